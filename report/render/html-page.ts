import { RELATIONS, type Aggregator, type Distribution, type FcpCell, type ReportModel, type ResponseView } from '../model/report-model.js';
import { AGGREGATOR_COLOR, RELATION_COLOR, countsSpec, differenceHistogramSpec, fcpSpec, latencySpec, rewardHistogramSpec } from './chart-specs.js';
import { graphSpec } from './graph-spec.js';
import { cell, esc, figure, shown } from './html-text.js';
import { PAGE_SCRIPT, PAGE_STYLE } from './page-assets.js';
import { renderSvg } from './vega-svg.js';

const STATS = ['n', 'mean', 'sd', 'min', 'q25', 'median', 'q75', 'max'] as const;
/** Rows of the per-rubric table on the page (the JSON has every rubric). */
const MAX_RUBRIC_ROWS = 200;

const swatch = (color: string): string => `<span class="swatch" style="background:${color}"></span>`;

function distributionTable(rows: readonly [string, string, Distribution, string][]): string {
  const head = `<tr><th></th>${STATS.map((s) => `<th>${s}</th>`).join('')}</tr>`;
  const body = rows
    .map(([label, path, d, color]) => `<tr><th>${swatch(color)}${esc(label)}</th>${STATS.map((s) => figure(`${path}.${s}`, d[s])).join('')}</tr>`)
    .join('');
  return `<table class="figures">${head}${body}</table>`;
}

function rewardsSection(model: ReportModel, charts: { rewards: string; differences: string | undefined }): string {
  if (model.aggregators.length === 0 && model.rewards.native === null) {
    return `<section id="rewards"><h2>Rewards</h2><p class="note">No scored line in the input.</p></section>`;
  }
  const rows: [string, string, Distribution, string][] = model.aggregators.map((a) => [a, `rewards.by_aggregator.${a}`, model.rewards.by_aggregator[a] as Distribution, AGGREGATOR_COLOR[a]]);
  if (model.rewards.native !== null) rows.push(['native (host)', 'rewards.native', model.rewards.native, AGGREGATOR_COLOR.native]);
  const differences = Object.entries(model.rewards.differences).map(([name, d]): [string, string, Distribution, string] => [
    name,
    `rewards.differences.${name}`,
    d,
    AGGREGATOR_COLOR[name.split(' ')[0] as Aggregator] ?? '#4c78a8',
  ]);
  return `<section id="rewards"><h2>Rewards</h2>
<p>The same judge scores under each aggregator${model.rewards.native !== null ? ', and the host\'s own reward' : ''}: how much credit flat scalarization pays that the dependencies do not license.</p>
<figure>${charts.rewards}</figure>
${distributionTable(rows)}
${differences.length > 0 ? `<h3>Per-response differences</h3><p>Each response's reward under one aggregator minus another, on the same scores.</p><figure>${charts.differences ?? ''}</figure>${distributionTable(differences)}` : ''}
</section>`;
}

function fcpRow(label: string, path: string, c: FcpCell, aggregators: readonly Aggregator[]): string {
  return (
    `<tr><th>${esc(label)}</th>${figure(`${path}.considered_edges`, c.considered_edges)}${figure(`${path}.leakage_cases`, c.leakage_cases)}${figure(`${path}.preserved_cases`, c.preserved_cases)}` +
    aggregators.map((a) => figure(`${path}.by_aggregator.${a}.leakage`, c.by_aggregator[a]?.leakage)).join('') +
    aggregators.map((a) => figure(`${path}.by_aggregator.${a}.preservation`, c.by_aggregator[a]?.preservation)).join('') +
    '</tr>'
  );
}

function fcpHead(first: string, aggregators: readonly Aggregator[], extra = ''): string {
  const n = aggregators.length;
  return (
    `<tr><th rowspan="2">${first}</th>${extra}<th rowspan="2">edges</th><th rowspan="2">leakage cases</th><th rowspan="2">preserved cases</th><th colspan="${n}">L_FCP (lower is better)</th><th colspan="${n}">P (higher is better)</th></tr>` +
    `<tr>${[...aggregators, ...aggregators].map((a) => `<th>${swatch(AGGREGATOR_COLOR[a])}${a}</th>`).join('')}</tr>`
  );
}

function fcpSection(model: ReportModel, chart: string | undefined): string {
  const fcp = model.fcp;
  if (fcp === null) {
    return `<section id="fcp"><h2>False credit propagation</h2><p class="note">No line carries an <code>explain</code> block: run <code>gear aggregate</code> (or <code>gear score</code>, <code>gear judge</code>) with <code>--explain</code> for the FCP diagnostics and the drawn responses.</p></section>`;
  }
  const aggs = model.aggregators.filter((a) => fcp.overall.by_aggregator[a] !== undefined);
  const rows = [fcpRow('all edges', 'fcp.overall', fcp.overall, aggs), ...RELATIONS.map((r) => fcpRow(r, `fcp.by_relation.${r}`, fcp.by_relation[r], aggs))].join('');
  const rubricRows = fcp.by_rubric
    .slice(0, MAX_RUBRIC_ROWS)
    .map((r, k) => {
      const path = `fcp.by_rubric.${k}`;
      return (
        `<tr><th class="label" title="${esc(r.label)}">${esc(r.label)}</th>${figure(`${path}.criteria`, r.criteria)}${figure(`${path}.edges`, r.edges)}${figure(`${path}.responses`, r.responses)}` +
        aggs.map((a) => figure(`${path}.mean_reward.${a}`, r.mean_reward[a])).join('') +
        aggs.map((a) => figure(`${path}.fcp.by_aggregator.${a}.leakage`, r.fcp.by_aggregator[a]?.leakage)).join('') +
        aggs.map((a) => figure(`${path}.fcp.by_aggregator.${a}.preservation`, r.fcp.by_aggregator[a]?.preservation)).join('') +
        '</tr>'
      );
    })
    .join('');
  const n = aggs.length;
  return `<section id="fcp"><h2>False credit propagation (paper sec. 5.3)</h2>
<p>Over (response, edge) cases of the compiled graphs, threshold ${fcp.threshold}: a <b>leakage</b> case has the child supported (p ≥ ${fcp.threshold}) but not its parent; L_FCP is the mean child utility |w|/Σw⁺ · s that still reaches the reward there. A <b>preserved</b> case has both supported; P is the mean share s/p of the child's score kept.</p>
<figure>${chart ?? ''}</figure>
<table class="figures">${fcpHead('scope', aggs)}${rows}</table>
<h3>Per rubric</h3>
<div class="scroll"><table class="figures"><tr><th rowspan="2">rubric</th><th rowspan="2">K</th><th rowspan="2">edges</th><th rowspan="2">responses</th><th colspan="${n}">mean reward</th><th colspan="${n}">L_FCP</th><th colspan="${n}">P</th></tr>
<tr>${[...aggs, ...aggs, ...aggs].map((a) => `<th>${swatch(AGGREGATOR_COLOR[a])}${a}</th>`).join('')}</tr>${rubricRows}</table></div>
${fcp.by_rubric.length > MAX_RUBRIC_ROWS ? `<p>The first ${MAX_RUBRIC_ROWS} of ${fcp.by_rubric.length} rubrics; all are in <code>gear report --format json</code>.</p>` : ''}
</section>`;
}

function viewSection(view: ResponseView, k: number, svg: string, aggregators: readonly Aggregator[]): string {
  const path = `responses.${k}`;
  const cutBy = (id: string): string =>
    view.edges
      .map((e, j) => ({ e, j }))
      .filter(({ e }) => e.child === id)
      .map(({ e, j }) => `<span class="edge${e.top ? ' top' : ''}" style="border-color:${RELATION_COLOR[e.relation] ?? '#888'}">${esc(e.parent)} <i>${esc(e.relation)}</i> ${figure(`${path}.edges.${j}.credit_cut`, e.credit_cut, 4, 'span')}</span>`)
      .join(' ');
  const criteria = view.criteria
    .map((c, i) => {
      const at = `${path}.criteria.${i}`;
      return (
        `<tr><th>${esc(c.id)}</th><td class="text">${esc(c.text)}</td>${cell(c.role)}${figure(`${at}.weight`, c.weight)}${figure(`${at}.p`, c.p)}${cell(c.met ? 'yes' : 'no')}` +
        aggregators.map((a) => figure(`${at}.q.${a}`, c.q[a])).join('') +
        `${figure(`${at}.credit_cut`, c.credit_cut)}<td class="cuts">${cutBy(c.id)}</td>${cell(c.status ?? '')}</tr>`
      );
    })
    .join('');
  const rewards = aggregators.map((a) => `<tr><th>${swatch(AGGREGATOR_COLOR[a])}${a}</th>${figure(`${path}.rewards.${a}`, view.rewards[a])}</tr>`).join('');
  return `<section class="response-view" data-view="${k}"${k === 0 ? '' : ' hidden'}>
<h3>Line ${view.line}${view.id === null ? '' : ` · ${esc(view.id)}`}</h3>
<div class="view-head"><table class="figures small">${rewards}${view.native_reward === null ? '' : `<tr><th>${swatch(AGGREGATOR_COLOR.native)}native</th>${figure(`${path}.native_reward`, view.native_reward)}</tr>`}</table>
<p>Nodes are criteria, filled by the judge's p, shaped by role; edges point from parent to child, coloured by relation. The thick edges with a red figure are the ones that cut the most credit under GEAR (reward units, w·Δ/Σw⁺). Rubric: ${esc(view.rubric)}.</p></div>
<figure class="graph">${svg}</figure>
<div class="scroll"><table class="figures criteria"><tr><th>id</th><th>criterion</th><th>role</th><th>w</th><th>p</th><th>met</th>${aggregators.map((a) => `<th>q ${a}</th>`).join('')}<th>credit cut</th><th>cut by (parent, relation, reward units)</th><th>judge</th></tr>${criteria}</table></div>
</section>`;
}

function responsesSection(model: ReportModel, svgs: readonly string[]): string {
  if (model.responses.length === 0) return '';
  const options = model.responses
    .map((v, k) => {
      const diff = v.rewards.gear !== undefined && v.rewards.flat !== undefined ? ` · gear − flat ${shown(v.rewards.gear - v.rewards.flat)}` : '';
      return `<option value="${k}">line ${v.line}${v.id === null ? '' : ` · ${esc(v.id)}`}${diff}</option>`;
    })
    .join('');
  const views = model.responses.map((v, k) => viewSection(v, k, svgs[k] ?? '', model.aggregators.filter((a) => v.criteria.every((c) => c.q[a] !== undefined)))).join('\n');
  return `<section id="responses"><h2>Responses, drawn</h2>
<p>${model.responses.length} responses where GEAR and flat differ most (and any asked for with <code>--response</code>). Choose one:</p>
<select id="response-select" aria-label="response">${options}</select>
${views}
</section>`;
}

function judgeSection(model: ReportModel, charts: { latency: string | undefined; statuses: string }): string {
  const j = model.judge;
  if (j === null) return '';
  const judged = j.judged;
  const rows: [string, string, number][] = [
    ['responses judged', 'judge.responses', j.responses],
    ['failed criteria (scored by the failure policy)', 'judge.failed_criteria', j.failed_criteria],
    ['responses with a failed criterion', 'judge.responses_with_failed_criteria', j.responses_with_failed_criteria],
  ];
  if (judged !== null) {
    rows.push(
      ['judge requests', 'judge.judged.requests', judged.requests],
      ['cache hits', 'judge.judged.cache_hits', judged.cache_hits],
      ['re-asks of unread criteria', 'judge.judged.reasks', judged.reasks],
      ['transport retries', 'judge.judged.retries', judged.retries],
      ['hedged requests', 'judge.judged.hedges', judged.hedges],
      ['failed requests', 'judge.judged.failed_requests', judged.failed_requests],
      ['prompt tokens', 'judge.judged.prompt_tokens', judged.prompt_tokens],
      ['completion tokens', 'judge.judged.completion_tokens', judged.completion_tokens],
    );
  }
  const table = rows.map(([label, path, v]) => `<tr><th>${esc(label)}</th>${figure(path, v)}</tr>`).join('');
  const latency = judged === null ? '' : `<h3>Latency per response</h3><figure>${charts.latency ?? ''}</figure>${distributionTable([['latency ms', 'judge.judged.latency_ms', judged.latency_ms, '#4c78a8']])}`;
  return `<section id="judge"><h2>Judge health</h2>
<div class="side"><table class="figures">${table}</table><figure>${charts.statuses}</figure></div>
${latency}
</section>`;
}

function graphsSection(model: ReportModel, charts: { nodes: string; relations: string; dropped: string | undefined }): string {
  const g = model.graphs;
  if (g === null) return '';
  const rows: [string, string, number | null][] = [
    ['rows', 'graphs.rows', g.rows],
    ['rubrics', 'graphs.rubrics', g.rubrics],
    ['rows that did not compile', 'graphs.rows_failed', g.rows_failed],
    ['criteria / rubric', 'graphs.criteria_per_rubric', g.criteria_per_rubric],
    ['edges given / rubric', 'graphs.edges_given_per_rubric', g.edges_given_per_rubric],
    ['edges kept / rubric', 'graphs.edges_kept_per_rubric', g.edges_kept_per_rubric],
    ['update size K+|E| / rubric', 'graphs.update_size', g.update_size],
    ['non-empty graph rate', 'graphs.non_empty_rate', g.non_empty_rate],
  ];
  const table = rows.map(([label, path, v]) => `<tr><th>${esc(label)}</th>${figure(path, v)}</tr>`).join('');
  const summary =
    g.summary === null
      ? ''
      : `<h3>Build summary</h3><div class="scroll"><table class="figures">${Object.entries(g.summary)
          .map(([k, v]) => `<tr><th>${esc(k)}</th>${figure(`graphs.summary.${k}`, v)}</tr>`)
          .join('')}</table></div>`;
  const errors = g.errors.length === 0 ? '' : `<ul class="errors">${g.errors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul>`;
  return `<section id="graphs"><h2>Graph statistics</h2>
<p>The rubric graphs given with <code>--graphs</code>, as core compiles them (the paper's construction table; HealthBench in the paper: 11.48 criteria, 10.92 edges, 91.84% non-empty).</p>
<div class="side"><table class="figures">${table}</table><figure>${charts.nodes}</figure><figure>${charts.relations}</figure>${charts.dropped === undefined ? '' : `<figure>${charts.dropped}</figure>`}</div>
${errors}${summary}
</section>`;
}

function inputSection(model: ReportModel): string {
  const i = model.input;
  const rows: [string, string, number][] = [
    ['lines read', 'input.lines', i.lines],
    ['gear aggregate lines', 'input.aggregate_lines', i.aggregate_lines],
    ['gear score lines', 'input.score_lines', i.score_lines],
    ['gear judge lines', 'input.judge_lines', i.judge_lines],
    ['lines with explain', 'input.explained_lines', i.explained_lines],
    ['error lines', 'input.error_lines', i.error_lines],
  ];
  const errors = i.errors.length === 0 ? '' : `<ul class="errors">${i.errors.map((e) => `<li>line ${e.line}: ${esc(e.path)} ${esc(e.message)}</li>`).join('')}</ul>`;
  return `<section id="input"><table class="figures small">${rows.map(([l, p, v]) => `<tr><th>${esc(l)}</th>${figure(p, v)}</tr>`).join('')}</table>${errors}</section>`;
}

/** The whole report as one self-contained HTML page: inline SVG, CSS and a few lines of JS. */
export async function renderReportHtml(model: ReportModel, title = 'gear report'): Promise<string> {
  const rewards = model.aggregators.length > 0 || model.rewards.native !== null ? await renderSvg(rewardHistogramSpec(model)) : '';
  const differences = Object.keys(model.rewards.differences).length > 0 ? await renderSvg(differenceHistogramSpec(model)) : undefined;
  const fcpChart = model.fcp === null ? undefined : await renderSvg(fcpSpec(model.fcp, model.aggregators));
  const views: string[] = [];
  for (const view of model.responses) views.push(await renderSvg(graphSpec(view)));
  const judged = model.judge?.judged ?? null;
  const judgeCharts = {
    latency: judged === null || judged.latency_ms.n === 0 ? undefined : await renderSvg(latencySpec(judged.latency_ms)),
    statuses: model.judge === null ? '' : await renderSvg(countsSpec('criteria by read status', model.judge.criteria_by_status)),
  };
  const g = model.graphs;
  const graphCharts = {
    nodes: g === null ? '' : await renderSvg(countsSpec('criteria by role', g.node_types)),
    relations: g === null ? '' : await renderSvg(countsSpec('kept edges by relation', g.relations, RELATION_COLOR)),
    dropped: g === null || Object.keys(g.dropped_edges).length === 0 ? undefined : await renderSvg(countsSpec('dropped edges by reason', g.dropped_edges)),
  };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${PAGE_STYLE}</style></head>
<body><main>
<header><h1>${esc(title)}</h1><nav><a href="#rewards">rewards</a><a href="#fcp">FCP</a>${model.responses.length > 0 ? '<a href="#responses">responses</a>' : ''}${model.judge !== null ? '<a href="#judge">judge</a>' : ''}${model.graphs !== null ? '<a href="#graphs">graphs</a>' : ''}</nav></header>
${inputSection(model)}
${rewardsSection(model, { rewards, differences })}
${fcpSection(model, fcpChart)}
${responsesSection(model, views)}
${judgeSection(model, judgeCharts)}
${graphsSection(model, graphCharts)}
<footer>Made by <code>gear report</code> (GEAR: dependency-aware aggregation of rubric rewards). Every figure is also in <code>gear report --format json</code>.</footer>
</main><script>${PAGE_SCRIPT}</script></body></html>
`;
}
