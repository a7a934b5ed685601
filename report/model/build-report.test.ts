import { describe, expect, it, beforeAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GearError, compileOfficialRewardModel, computeFcp, type AggregationMethod, type FcpCase, type FcpReport } from '../../core/index.js';
import { loadBundledRubrics } from '../../conformance/fixtures-loader/bundled-rubrics.js';
import { sampleInputLines } from '../../cli/commands/sample-input.js';
import { buildReportModel } from './build-report.js';
import type { FcpCell, ReportModel } from './report-model.js';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const ALL: AggregationMethod[] = ['flat', 'hard', 'gear', 'gear-exact'];

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
});

/** The demo's lines as `gear aggregate --demo --format jsonl --explain` (a real process) writes them. */
const demo = spawnSync(process.execPath, [CLI, 'aggregate', '--demo', '--format', 'jsonl', '--explain'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  .stdout.split('\n')
  .filter((l) => l !== '');
/** The same responses read straight from the demo input, compiled by core. */
const inputs = [...sampleInputLines({ responsesPerRubric: 8, seed: 1, benchmarks: ['healthbench'] })].map(
  (l) => JSON.parse(l) as { id: string; reward_model: unknown; p_list: number[]; criteria_met_list: boolean[] },
);
const cases: (FcpCase & { id: string })[] = inputs.map((r) => ({
  id: r.id,
  compiled: compileOfficialRewardModel(r.reward_model),
  scores: { p: r.p_list, d: r.criteria_met_list },
}));

/** Core's FCP report in the report's terms (gear-exact is written gear_exact). */
function asCell(report: FcpReport): FcpCell {
  const by: Record<string, unknown> = {};
  for (const m of ALL) by[m === 'gear-exact' ? 'gear_exact' : m] = report.byAggregator[m];
  return { responses: report.responses, considered_edges: report.consideredEdges, leakage_cases: report.leakageCases, preserved_cases: report.preservedCases, by_aggregator: by };
}

describe('the report model of gear aggregate --explain output', () => {
  const model: ReportModel = buildReportModel(demo);

  it('counts the lines by kind', () => {
    expect(demo).toHaveLength(336);
    expect(model.input).toMatchObject({ lines: 336, aggregate_lines: 336, score_lines: 0, judge_lines: 0, error_lines: 0, explained_lines: 336 });
    expect(model.aggregators).toEqual(['flat', 'hard', 'gear', 'gear_exact']);
  });

  it('gives core\'s FCP diagnostics to the last bit, overall and per relation type', () => {
    const fcp = model.fcp;
    expect(fcp).not.toBeNull();
    expect(fcp?.overall).toEqual(asCell(computeFcp(cases, { aggregators: ALL })));
    expect(fcp?.overall.leakage_cases).toBeGreaterThan(100);
    for (const relation of ['weak', 'strong', 'activation'] as const) {
      expect(fcp?.by_relation[relation]).toEqual(asCell(computeFcp(cases, { aggregators: ALL, relations: [relation] })));
    }
    const sum = (k: 'considered_edges' | 'leakage_cases') => (['weak', 'strong', 'activation'] as const).reduce((s, r) => s + (fcp?.by_relation[r][k] ?? 0), 0);
    expect(sum('considered_edges')).toBe(fcp?.overall.considered_edges);
    expect(sum('leakage_cases')).toBe(fcp?.overall.leakage_cases);
  });

  it('gives core\'s FCP per rubric, with the mean rewards of its responses', () => {
    const rows = model.fcp?.by_rubric ?? [];
    expect(rows).toHaveLength(42);
    for (const row of rows) {
      const mine = cases.filter((c) => c.id.slice(0, c.id.lastIndexOf('#')) === row.label);
      expect(row.responses).toBe(mine.length);
      expect(row.fcp).toEqual(asCell(computeFcp(mine, { aggregators: ALL })));
      const lines = demo.map((l) => JSON.parse(l) as { id: string; gear: number }).filter((l) => l.id.startsWith(`${row.label}#`));
      expect(row.mean_reward.gear).toBeCloseTo(lines.reduce((s, l) => s + l.gear, 0) / lines.length, 14);
    }
  });

  it('summarises each aggregator\'s rewards and the per-response differences', () => {
    const lines = demo.map((l) => JSON.parse(l) as Record<string, number>);
    for (const a of ['flat', 'hard', 'gear', 'gear_exact']) {
      const values = lines.map((l) => l[a] as number).sort((x, y) => x - y);
      const d = model.rewards.by_aggregator[a as 'flat'];
      expect(d?.n).toBe(336);
      expect(d?.mean).toBeCloseTo(values.reduce((s, v) => s + v, 0) / 336, 14);
      expect(d?.min).toBe(values[0]);
      expect(d?.max).toBe(values[335]);
      expect(d?.median).toBe(((values[167] as number) + (values[168] as number)) / 2);
      expect(d?.histogram.counts.reduce((s, c) => s + c, 0)).toBe(336);
    }
    const diff = model.rewards.differences['gear - flat'];
    expect(diff?.n).toBe(336);
    // GEAR cuts credit (gear < flat) and cuts penalties too (gear > flat).
    expect(diff?.min).toBeLessThan(-0.05);
    expect(diff?.mean).toBeCloseTo((model.rewards.by_aggregator.gear?.mean ?? 0) - (model.rewards.by_aggregator.flat?.mean ?? 0), 12);
  });

  it('draws the responses where GEAR and flat differ most, with the edges that cut most credit marked', () => {
    const lines = demo.map((l) => JSON.parse(l) as { line: number; gear: number; flat: number });
    const expected = [...lines].sort((a, b) => Math.abs(b.gear - b.flat) - Math.abs(a.gear - a.flat) || a.line - b.line).slice(0, 24);
    expect(model.responses.map((v) => v.line)).toEqual(expected.map((l) => l.line));
    for (const view of model.responses) {
      const sizes = view.edges.map((e) => Math.abs(e.credit_cut)).sort((a, b) => b - a);
      const top = view.edges.filter((e) => e.top).map((e) => Math.abs(e.credit_cut));
      expect(top.length).toBe(Math.min(3, sizes.filter((s) => s > 1e-12).length));
      expect(Math.min(...top)).toBeGreaterThanOrEqual(sizes[top.length - 1] as number);
      for (const c of view.criteria) {
        const into = view.edges.filter((e) => e.child === c.id);
        if (into.length > 0) expect(into.reduce((s, e) => s + e.credit_cut, 0)).toBeCloseTo(c.credit_cut, 12);
        expect(c.credit_cut).toBeCloseTo((c.weight * (c.p - (c.q.gear as number))) / view.denominator, 12);
      }
    }
  });

  it('adds the responses asked for by id, and draws none with --views 0', () => {
    const id = (JSON.parse(demo[5] as string) as { id: string }).id;
    const some = buildReportModel(demo, { views: 0, responseIds: [id] });
    expect(some.responses.map((v) => v.id)).toEqual([id]);
    expect(buildReportModel(demo, { views: 0 }).responses).toEqual([]);
  });
});

describe('what the report refuses and what it counts', () => {
  it('counts error lines and lists them', () => {
    const model = buildReportModel([demo[0] as string, '{"line":2,"error":{"code":"invalid_input","path":["p_list",3],"message":"must be <= 1"}}']);
    expect(model.input.error_lines).toBe(1);
    expect(model.input.errors).toEqual([{ line: 2, path: 'p_list.3', message: 'must be <= 1' }]);
    expect(model.fcp?.overall.responses).toBe(1);
  });

  it('names the line and the field of a line that is not gear output', () => {
    const fail = (lines: string[]): GearError => {
      try {
        buildReportModel(lines);
      } catch (error) {
        if (error instanceof GearError) return error;
        throw error;
      }
      throw new Error('no error');
    };
    expect(fail(['{"line":1}']).message).toContain('line 1');
    expect(fail([demo[0] as string, '{"line":2,"flat":0.1,"gear":"high","hard":0,"gear_exact":0}']).path).toEqual(['line 2', 'gear']);
    expect(fail(['{"line":1,"flat":', '']).message).toMatch(/line 1.*not JSON/);
    const bad = JSON.parse(demo[0] as string) as { explain: { criteria: { p: number }[] } };
    (bad.explain.criteria[0] as { p: number }).p = 1.5;
    expect(fail([JSON.stringify(bad)]).path).toEqual(['line 1', 'explain', 'criteria', 0, 'p']);
  });

  it('reports rewards without FCP when no line carries explain', () => {
    const plain = demo.map((l) => {
      const record = JSON.parse(l) as Record<string, unknown>;
      delete record['explain'];
      return JSON.stringify(record);
    });
    const model = buildReportModel(plain);
    expect(model.fcp).toBeNull();
    expect(model.responses).toEqual([]);
    expect(model.rewards.by_aggregator.gear?.n).toBe(336);
  });
});

describe('graph statistics of graph-annotated rows', () => {
  const bundled = loadBundledRubrics(['healthbench']);
  const rows = bundled.map((b) => ({ data_source: 'healthbench', reward_model: b.rewardModel, extra_info: { reward_model: b.rewardModel } }));

  it('are core\'s compile figures, with the build summary\'s numbers', () => {
    const summary = { num_rows: 42, graph_nonempty_ratio: 0.9, node_type_counts: { foundation: 300 }, annotation_profile: 'healthbench' };
    const model = buildReportModel([], { graphs: { rows, summary } });
    const compiled = bundled.map((b) => compileOfficialRewardModel(b.rewardModel));
    const g = model.graphs;
    expect(g?.rubrics).toBe(42);
    expect(g?.criteria_per_rubric).toBeCloseTo(compiled.reduce((s, c) => s + c.size, 0) / 42, 12);
    expect(g?.edges_kept_per_rubric).toBeCloseTo(compiled.reduce((s, c) => s + c.report.edgesKept, 0) / 42, 12);
    expect(g?.non_empty_rate).toBeCloseTo(compiled.filter((c) => c.report.edgesKept > 0).length / 42, 12);
    expect(Object.values(g?.relations ?? {}).reduce((s, n) => s + n, 0)).toBe(compiled.reduce((s, c) => s + c.report.edgesKept, 0));
    expect(g?.summary).toEqual({ num_rows: 42, graph_nonempty_ratio: 0.9, 'node_type_counts.foundation': 300 });
  });

  it('name the rows that do not compile', () => {
    const model = buildReportModel([], { graphs: { rows: [...rows.slice(0, 2), { reward_model: { rubrics: [{ criterion: 'x', points: 'lots' }] } }, { other: 1 }] } });
    expect(model.graphs?.rubrics).toBe(2);
    expect(model.graphs?.rows_failed).toBe(2);
    expect(model.graphs?.errors[0]).toMatch(/^row 3: rubrics\[0\]\.points/);
    expect(model.graphs?.errors[1]).toBe('row 4: no reward_model or rubric');
  });
});
