import type { TopLevelSpec } from 'vega-lite';
import { RELATIONS, type Aggregator, type Distribution, type FcpFigures, type ReportModel } from '../model/report-model.js';

/** One colour per aggregator, the same in every chart and table. */
export const AGGREGATOR_COLOR: Readonly<Record<Aggregator | 'native', string>> = {
  flat: '#9c9c9c',
  hard: '#e45756',
  gear: '#4c78a8',
  gear_exact: '#54a24b',
  native: '#b279a2',
};
export const RELATION_COLOR: Readonly<Record<string, string>> = { weak: '#4c78a8', strong: '#e45756', activation: '#b279a2' };

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

interface BinRow {
  readonly series: string;
  readonly x0: number;
  readonly x1: number;
  readonly count: number;
}

function binRows(series: string, d: Distribution): BinRow[] {
  const { start, step, counts } = d.histogram;
  return counts.map((count, k) => ({ series, x0: start + k * step, x1: start + (k + 1) * step, count }));
}

/** Histograms stacked in rows, one per series, bars drawn from the model's bins. */
function histogramRows(series: readonly [string, Distribution][], xTitle: string, colors: Readonly<Record<string, string>>, sharedX: boolean): TopLevelSpec {
  const values = series.flatMap(([name, d]) => binRows(name, d));
  const order = series.map(([name]) => name);
  return {
    $schema: SCHEMA,
    data: { values },
    facet: {
      row: { field: 'series', type: 'nominal', sort: order, header: { title: null, labelAngle: 0, labelAlign: 'left', labelAnchor: 'middle', labelBaseline: 'middle', labelFontWeight: 'bold', labelPadding: 4 } },
    },
    spacing: 6,
    resolve: { scale: { x: sharedX ? 'shared' : 'independent', y: 'independent' } },
    spec: {
      width: 560,
      height: 64,
      mark: { type: 'rect', stroke: '#ffffff', strokeWidth: 0.5 },
      encoding: {
        x: { field: 'x0', type: 'quantitative', title: xTitle, scale: { zero: false, nice: false } },
        x2: { field: 'x1' },
        y: { field: 'count', type: 'quantitative', title: 'count', axis: { tickCount: 3 } },
        y2: { datum: 0 },
        color: { field: 'series', type: 'nominal', legend: null, scale: { domain: order, range: order.map((s) => colors[s] ?? '#4c78a8') } },
      },
    },
  };
}

export function rewardHistogramSpec(model: ReportModel): TopLevelSpec {
  const series: [string, Distribution][] = model.aggregators.map((a) => [a, model.rewards.by_aggregator[a] as Distribution]);
  if (model.rewards.native !== null) series.push(['native', model.rewards.native]);
  return histogramRows(series, 'reward', AGGREGATOR_COLOR, true);
}

export function differenceHistogramSpec(model: ReportModel): TopLevelSpec {
  const series = Object.entries(model.rewards.differences);
  const colors = Object.fromEntries(series.map(([name]) => [name, AGGREGATOR_COLOR[name.split(' ')[0] as Aggregator] ?? '#4c78a8']));
  return histogramRows(series, 'difference in reward (same response)', colors, false);
}

export function fcpSpec(fcp: FcpFigures, aggregators: readonly Aggregator[]): TopLevelSpec {
  const scopes: [string, FcpFigures['overall']][] = [['all edges', fcp.overall], ...RELATIONS.map((r): [string, FcpFigures['overall']] => [r, fcp.by_relation[r]])];
  const values = scopes.flatMap(([scope, cell]) =>
    aggregators.flatMap((a) => {
      const s = cell.by_aggregator[a];
      return [
        { scope, aggregator: a, metric: 'L_FCP (leakage, lower is better)', value: s?.leakage ?? null },
        { scope, aggregator: a, metric: 'P (preservation, higher is better)', value: s?.preservation ?? null },
      ].filter((v) => v.value !== null);
    }),
  );
  return {
    $schema: SCHEMA,
    data: { values },
    facet: { column: { field: 'metric', type: 'nominal', header: { title: null, labelFontSize: 12 } } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 250,
      height: 170,
      mark: 'bar',
      encoding: {
        x: { field: 'scope', type: 'nominal', sort: scopes.map(([s]) => s), title: null, axis: { labelAngle: 0 } },
        xOffset: { field: 'aggregator', type: 'nominal', sort: [...aggregators] },
        y: { field: 'value', type: 'quantitative', title: null },
        color: {
          field: 'aggregator',
          type: 'nominal',
          scale: { domain: [...aggregators], range: aggregators.map((a) => AGGREGATOR_COLOR[a]) },
          legend: { orient: 'bottom', title: null },
        },
      },
    },
  };
}

export function latencySpec(latency: Distribution): TopLevelSpec {
  return histogramRows([['latency per response', latency]], 'ms (first request to last answer)', { 'latency per response': '#4c78a8' }, true);
}

/** Horizontal bars of counts by name (node types, relations, statuses...). */
export function countsSpec(title: string, counts: Readonly<Record<string, number>>, colors: Readonly<Record<string, string>> = {}): TopLevelSpec {
  const values = Object.entries(counts).map(([name, count]) => ({ name, count }));
  return {
    $schema: SCHEMA,
    title,
    data: { values },
    width: 260,
    height: { step: 18 },
    mark: 'bar',
    encoding: {
      y: { field: 'name', type: 'nominal', title: null, sort: '-x' },
      x: { field: 'count', type: 'quantitative', title: null },
      color: { field: 'name', type: 'nominal', legend: null, scale: { domain: values.map((v) => v.name), range: values.map((v) => colors[v.name] ?? '#4c78a8') } },
    },
  };
}
