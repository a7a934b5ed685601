/** The page's stylesheet (inline: the file opens with no network). */
export const PAGE_STYLE = `
:root { color-scheme: light; --ink: #24292f; --muted: #57606a; --line: #d0d7de; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 24px 48px; }
header { display: flex; align-items: baseline; gap: 24px; border-bottom: 1px solid var(--line); margin-bottom: 12px; }
h1 { font-size: 22px; margin: 8px 0; }
h2 { font-size: 18px; margin: 28px 0 6px; padding-top: 8px; border-top: 1px solid var(--line); }
h3 { font-size: 15px; margin: 18px 0 6px; }
nav a { margin-right: 14px; color: #0969da; text-decoration: none; }
p { max-width: 900px; color: var(--muted); margin: 4px 0 10px; }
figure { margin: 8px 0; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
table.figures { border-collapse: collapse; margin: 6px 0 10px; font-size: 13px; }
table.figures th, table.figures td { border-bottom: 1px solid #eaeef2; padding: 3px 8px; text-align: left; vertical-align: top; }
table.figures tr:first-child th { background: var(--soft); font-weight: 600; }
table.figures th { font-weight: 500; white-space: nowrap; }
td.num, span.num { font-variant-numeric: tabular-nums; text-align: right; white-space: nowrap; }
table.small { font-size: 12px; }
th.label { max-width: 320px; overflow: hidden; text-overflow: ellipsis; }
td.text { min-width: 240px; max-width: 380px; color: var(--muted); font-size: 12px; }
td.cuts { min-width: 140px; max-width: 240px; }
td.cuts .edge { white-space: nowrap; }
.scroll { overflow-x: auto; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; vertical-align: baseline; }
.edge { display: inline-block; border-left: 3px solid; padding: 0 4px; margin: 1px 0; white-space: nowrap; font-size: 12px; }
.edge.top { font-weight: 600; background: #fff1f0; }
.edge i { color: var(--muted); font-style: normal; }
.side { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.view-head { display: flex; gap: 24px; align-items: flex-start; }
select { font: inherit; padding: 4px 6px; margin: 4px 0 8px; max-width: 100%; }
.note { background: #fff8c5; padding: 8px 12px; border-radius: 6px; color: var(--ink); }
ul.errors { color: #b31d28; font-size: 13px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
`;

/** The only script: show the response chosen in the list. */
export const PAGE_SCRIPT = `
(function () {
  var select = document.getElementById('response-select');
  if (!select) return;
  select.addEventListener('change', function () {
    document.querySelectorAll('.response-view').forEach(function (view) {
      view.hidden = view.getAttribute('data-view') !== select.value;
    });
  });
})();
`;
