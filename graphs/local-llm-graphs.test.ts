// gear graph build end to end on the real local LLM (SmolLM2-135M behind llama.cpp's server), on
// two small bundled HealthBench rubrics, with both strategies, measured against their
// hand-annotated graphs. A 135M model's graphs are poor: the test asserts that the pipeline runs,
// that the rows are valid, that no role contradicts a criterion's sign in the default strategy
// (and that the official one counts every contradiction it keeps), and that the measurement is
// consistent, never that it is high. Skipped only when GEAR_SKIP_LLM=1.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileOfficialRewardModel } from '../core/index.js';
import { fixturesDir } from '../conformance/fixtures-loader/fixtures-dir.js';
import { localLlmSkipped, startLocalLlm, type LocalLlm } from '../judge/testing/local-llm.js';
import { DEFAULT_ANNOTATION_SETTINGS, type Strategy } from './build/annotation-context.js';
import { contradictsSign } from './model/role-rules.js';
import { readRows } from './io/row-files.js';
import { comparableGraph, compareGraphs, type ComparableGraph } from './report/compare-graphs.js';
import { buildGraphs } from './run/build-graphs.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON rows read back from files, checked field by field
type Row = Record<string, any>;
const LINES = [19, 24]; // 3 and 4 criteria: a handful of requests on two shared cores

describe.skipIf(localLlmSkipped)('gear graph build on the real local LLM (SmolLM2-135M)', () => {
  let llm: LocalLlm;
  let dir: string;
  const quiet = { write: () => true } as unknown as NodeJS.WritableStream;

  beforeAll(async () => {
    llm = await startLocalLlm();
    dir = mkdtempSync(join(tmpdir(), 'gear-graphs-llm-'));
    const lines = readFileSync(join(fixturesDir(), 'healthbench', 'oss_eval_first30.jsonl'), 'utf8').split('\n');
    writeFileSync(join(dir, 'in.jsonl'), `${LINES.map((n) => lines[n - 1]).join('\n')}\n`);
  }, 15 * 60_000);

  afterAll(async () => {
    await llm?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const build = (output: string, strategy: Strategy = 'pairwise', limit = 0) =>
    buildGraphs({
      profile: 'healthbench',
      transport: { endpoints: [{ url: llm.url, model: llm.model, maxConcurrent: 1 }], requestTimeoutMs: 120_000, hedge: { enabled: false } },
      cache: { file: join(dir, 'answers.sqlite') },
      input: join(dir, 'in.jsonl'),
      output,
      // a handful of short requests: a 135M model on two shared cores
      settings: { ...DEFAULT_ANNOTATION_SETTINGS, strategy, roleReasks: 1, edgeReasks: 0 },
      concurrency: 1,
      limit,
      stderr: quiet,
    });

  it('builds valid graphs and measures them against the hand graphs; a re-run replays every answer from the cache', async () => {
    const first = await build(join(dir, 'out.jsonl'));
    expect(first.failed).toEqual([]);
    const rows = (await readRows(join(dir, 'out.jsonl'))) as Row[];
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const stats = row.gear_annotation_stats;
      const rubrics = row.reward_model.rubrics as { id: string; points: number; tags: { node_type: string } }[];
      expect(stats.annotation_strategy).toBe('pairwise');
      expect(stats.llm_requests).toBe(stats.pair_questions);
      expect(stats.pair_questions).toBeGreaterThan(0);
      expect(stats.num_node_judged + stats.num_node_fallback).toBe(rubrics.filter((r) => r.points > 0).length);
      expect(stats.node_roles_by_sign).toBe(rubrics.filter((r) => r.points <= 0).length);
      expect(compileOfficialRewardModel(row.reward_model).report.droppedEdges).toEqual([]);
      expect(stats.num_graph_edges).toBe(row.reward_model.graph.edges.length);
      expect(stats.num_graph_edges).toBeLessThanOrEqual(stats.num_edge_candidates);
      // No role contradicts its sign, and every parent is a foundation (the candidate rules).
      for (const r of rubrics) expect(contradictsSign(r.tags.node_type as never, r.points)).toBe(false);
      const typeOf = new Map(rubrics.map((r) => [r.id, r.tags.node_type]));
      for (const e of row.reward_model.graph.edges) expect(typeOf.get(e.parent)).toBe('foundation');
      expect(stats.node_parse_status).toBe(stats.pair_unreadable === 0 && stats.node_degenerate_replies === 0 ? 'full' : stats.pair_unreadable === stats.pair_questions ? 'failed' : 'partial');
    }

    const reference = ((await readRows(join(fixturesDir(), 'healthbench', 'graphs.jsonl'))) as Row[]).map(comparableGraph) as ComparableGraph[];
    const c = compareGraphs(rows.map(comparableGraph) as ComparableGraph[], reference);
    expect(c.rows).toBe(2);
    expect(c.referenceEdges).toBe(3); // line 19: 1 edge, line 24: 2 edges (GRAPHS.md)
    expect(c.builtEdges).toBe(rows.reduce((n, r) => n + r.reward_model.graph.edges.length, 0));
    expect(c.matchedEdges).toBeLessThanOrEqual(Math.min(c.builtEdges, c.referenceEdges));
    expect(c.recall).toBe(c.matchedEdges / 3);
    expect(c.precision).toBe(c.builtEdges === 0 ? null : c.matchedEdges / c.builtEdges);
    expect(c.criteria).toBe(7);

    const again = await build(join(dir, 'again.jsonl'));
    expect(again.failed).toEqual([]);
    const replayed = (await readRows(join(dir, 'again.jsonl'))) as Row[];
    expect(replayed.map((r) => r.reward_model.graph)).toEqual(rows.map((r) => r.reward_model.graph));
    for (const row of replayed) expect(row.gear_annotation_stats.llm_cached_requests).toBe(row.gear_annotation_stats.llm_requests);
  }, 15 * 60_000);

  it('the official strategy keeps the model\'s labels and counts every one its sign contradicts; such a row is never full', async () => {
    // One rubric (3 criteria): the official requests are long JSON replies, slow on two shared cores.
    const result = await build(join(dir, 'official.jsonl'), 'official', 1);
    expect(result.failed).toEqual([]);
    const rows = (await readRows(join(dir, 'official.jsonl'))) as Row[];
    for (const row of rows) {
      const stats = row.gear_annotation_stats;
      const rubrics = row.reward_model.rubrics as { points: number; tags: { node_type: string } }[];
      expect(stats.annotation_strategy).toBe('official');
      expect(stats.pair_questions).toBe(0);
      expect(stats.node_requests).toBeGreaterThan(0);
      // Criteria the model labelled keep their label; the count of those the sign contradicts is exact.
      const contradicted = rubrics.filter((r) => contradictsSign(r.tags.node_type as never, r.points)).length;
      expect(stats.node_sign_contradictions).toBe(contradicted);
      if (contradicted > 0 || stats.node_degenerate_replies > 0) expect(stats.node_parse_status).not.toBe('full');
      expect(compileOfficialRewardModel(row.reward_model).report.droppedEdges).toEqual([]);
    }
  }, 15 * 60_000);
});
