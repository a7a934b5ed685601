import type { TopLevelSpec } from 'vega-lite';

// vega and vega-lite are ES modules with top-level await: imported, not required, so the CLI's
// CommonJS bundle (scripts/bundle-cli) leaves them to Node's ES module loader.
const charts = async () => ({ vega: await import('vega'), vl: await import('vega-lite') });

/** Shared look of every chart: the page's font, no outer padding, quiet axes. */
const CONFIG = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  view: { stroke: '#d0d7de' },
  axis: { labelFontSize: 11, titleFontSize: 11, titleFontWeight: 'normal', gridColor: '#eef1f4' },
  header: { labelFontSize: 12, titleFontSize: 12 },
  legend: { labelFontSize: 11, titleFontSize: 11, titleFontWeight: 'normal' },
  title: { fontSize: 13, fontWeight: 'normal', anchor: 'start' },
} as const;

/**
 * A Vega-Lite spec drawn to an SVG string, headless (no canvas, no DOM): the chart library does
 * all the geometry at report-build time, and the page only embeds the result.
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const { vega, vl } = await charts();
  const compiled = vl.compile({ ...spec, config: { ...CONFIG, ...(spec.config ?? {}) } } as TopLevelSpec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
