import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aggregate,
  compileOfficialRewardModel,
  computeFcp,
  createPrng,
  simulateJudgment,
  type CompiledRubric,
} from '../../core/index.js';
import { createGearContainer, resolveAdapter } from '../../adapters/container.js';
import { loadBundledRubrics } from '../../conformance/fixtures-loader/bundled-rubrics.js';
import { conformanceTarget } from '../../conformance/targets.js';
import type { RunningServer } from './server.js';
import { RpcTestClient } from './testing/rpc-test-client.js';
import { decodeFloat64Base64, encodeFloat64Base64 } from './float64-base64.js';
import { startTestService } from './testing/running-service.js';

interface ScoreResult {
  index?: number;
  reward: number;
  method: string;
  effective: number[];
  flat: number;
}

const bundled = loadBundledRubrics(['healthbench']);

/** One GRPO step's shape: each bundled rubric with 8 simulated responses (the judge is simulated). */
function responsesOf(rubricCount: number, perRubric: number, seed: number) {
  const prng = createPrng(seed);
  const out: { rubric: number; p: number[]; d: boolean[] }[] = [];
  for (let r = 0; r < rubricCount; r++) {
    const weights = bundled[r % bundled.length]!.rewardModel.rubrics.map((x) => x.points);
    for (let k = 0; k < perRubric; k++) {
      const j = simulateJudgment(weights, prng);
      out.push({ rubric: r % bundled.length, p: Array.from(j.p), d: Array.from(j.d) });
    }
  }
  return out;
}

describe('the service methods, over a real socket', () => {
  let server: RunningServer;
  let client: RpcTestClient;
  const compiled: CompiledRubric[] = bundled.map((b) => compileOfficialRewardModel(b.rewardModel));
  const ids: string[] = [];

  beforeAll(async () => {
    server = await startTestService();
    client = await RpcTestClient.open(server.url);
    for (const b of bundled) ids.push((await client.call<{ rubricId: string }>('rubric.register', { reward_model: b.rewardModel })).rubricId);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  describe('rubric.register', () => {
    it('registerBatch gives each rubric the id rubric.register gives it, and a bad one its error at its index', async () => {
      const items = [{ reward_model: bundled[1]!.rewardModel }, { rubric: { criteria: 'no' } }, { reward_model: bundled[2]!.rewardModel }, {}];
      const { results } = await client.call<{ results: { index: number; rubricId?: string; size?: number; error?: { path: unknown[] } }[] }>('rubric.registerBatch', { items });
      expect(results.map((r) => r.index)).toEqual([0, 1, 2, 3]);
      expect(results[0]!.rubricId).toBe(ids[1]);
      expect(results[0]!.size).toBe(compiled[1]!.size);
      expect(results[2]!.rubricId).toBe(ids[2]);
      expect(results[1]!.error?.path).toEqual(['items', 1, 'rubric', 'criteria']);
      expect(results[3]!.error?.path).toEqual(['items', 3, 'rubricId']);
    });

    it('gives the same id for the same content in either format, and says it was cached', async () => {
      const official = bundled[0]!.rewardModel;
      const canonical = compiled[0]!.rubric;
      // Same rubric, keys of each criterion written in reverse order: the parsed content is equal.
      const reordered = { edges: canonical.edges, criteria: canonical.criteria.map((c) => Object.fromEntries(Object.entries(c).reverse())) };
      const again = await client.call<{ rubricId: string; cached: boolean }>('rubric.register', { reward_model: official });
      const viaCanonical = await client.call<{ rubricId: string; cached: boolean }>('rubric.register', { rubric: reordered });
      expect(again).toMatchObject({ rubricId: ids[0], cached: true });
      expect(viaCanonical).toMatchObject({ rubricId: ids[0], cached: true });
    });

    it('returns the compile report, naming each dropped edge and why', async () => {
      const result = await client.call<{ report: { edgesIn: number; edgesKept: number; droppedEdges: { index: number; reason: string }[] } }>(
        'rubric.register',
        {
          rubric: {
            criteria: [
              { id: 'a', text: 'A', weight: 2 },
              { id: 'b', text: 'B', weight: 1 },
            ],
            edges: [
              { parent: 'a', child: 'b', relation: 'weak' },
              { parent: 'b', child: 'a', relation: 'weak' },
              { parent: 'a', child: 'a', relation: 'strong' },
            ],
          },
        },
      );
      expect(result.report.edgesIn).toBe(3);
      expect(result.report.edgesKept).toBe(1);
      expect(result.report.droppedEdges.map((d) => [d.index, d.reason])).toEqual([
        [1, 'cycle'],
        [2, 'self-loop'],
      ]);
    });
  });

  describe('rubric.scoreBatch with a whole GRPO step (112 prompts x 8 responses)', () => {
    const step = responsesOf(112, 8, 4);

    it('answers every response bit for bit as in-process core does, for each aggregator', async () => {
      for (const aggregator of ['flat', 'hard', 'gear', 'gear-exact', 'auto'] as const) {
        const items = step.map((r) => ({ rubricId: ids[r.rubric], scores: { p: r.p, d: r.d } }));
        const { results } = await client.call<{ results: ScoreResult[] }>('rubric.scoreBatch', { items, aggregator });
        expect(results).toHaveLength(896);
        results.forEach((result, i) => {
          const r = step[i]!;
          const local = aggregate(compiled[r.rubric]!, aggregator, { p: r.p, d: r.d });
          expect(result.index).toBe(i);
          expect(result.reward).toBe(local.reward);
          expect(result.method).toBe(local.method);
          expect(result.effective).toEqual(Array.from(local.q));
          expect(result.flat).toBe(aggregate(compiled[r.rubric]!, 'flat', { p: r.p }).reward);
        });
      }
    });

    it('returns a bad item as data at its index and still scores the others', async () => {
      const items: unknown[] = step.slice(0, 8).map((r) => ({ rubricId: ids[r.rubric], scores: { p: r.p } }));
      (items[3] as { scores: { p: number[] } }).scores.p = [...step[3]!.p.slice(1), 1.5];
      items[5] = { rubricId: ids[0], scores: { p: step[5]!.p }, aggregator: 'median' };
      const { results } = await client.call<{ results: (ScoreResult & { error?: { code: string; path: unknown[] } })[] }>('rubric.scoreBatch', {
        items,
      });
      expect(results[3]!.error).toMatchObject({ code: 'invalid_input', path: ['items', 3, 'scores', 'p', step[3]!.p.length - 1] });
      expect(results[5]!.error).toMatchObject({ code: 'invalid_input', path: ['items', 5, 'aggregator'] });
      for (const i of [0, 1, 2, 4, 6, 7]) expect(results[i]!.reward).toBe(aggregate(compiled[step[i]!.rubric]!, 'gear', step[i]!).reward);
    });

    it('fails the whole request with -32001 listing every unknown rubric id', async () => {
      const unknown = `sha256:${'0'.repeat(64)}`;
      const items = [
        { rubricId: ids[0], scores: { p: step[0]!.p } },
        { rubricId: unknown, scores: { p: [0.5] } },
      ];
      const response = await client.request('rubric.scoreBatch', { items });
      expect(response.error).toMatchObject({ code: -32001, data: { rubricIds: [unknown] } });
    });
  });

  describe('rubric.scoreColumns and the float64-base64 encoding', () => {
    const step = responsesOf(112, 8, 5);
    const b64 = (values: readonly number[]) => encodeFloat64Base64(values);

    it('score a GRPO step in columns bit for bit as in-process core does', async () => {
      const result = await client.call<{ rewards: number[]; flat: number[]; methods: string[]; sizes: number[]; effective: string; errors: unknown[] }>(
        'rubric.scoreColumns',
        { rubricIds: step.map((r) => ids[r.rubric]), p: b64(step.flatMap((r) => r.p)), aggregator: 'gear' },
      );
      const effective = decodeFloat64Base64(result.effective, []);
      let offset = 0;
      step.forEach((r, i) => {
        const local = aggregate(compiled[r.rubric]!, 'gear', { p: r.p });
        expect(result.rewards[i]).toBe(local.reward);
        expect(result.flat[i]).toBe(aggregate(compiled[r.rubric]!, 'flat', { p: r.p }).reward);
        expect(result.sizes[i]).toBe(r.p.length);
        expect(Array.from(effective.subarray(offset, offset + r.p.length))).toEqual(Array.from(local.q));
        offset += r.p.length;
      });
      expect(result.errors).toEqual([]);
    });

    it('rubric.scoreBatch gives the same also as rubric.scoreColumns', async () => {
      const part = step.slice(0, 16);
      const items = part.map((r) => ({ rubricId: ids[r.rubric], scores: { p: r.p, d: r.d } }));
      const batch = await client.call<{ results: { also: Record<string, number> }[] }>('rubric.scoreBatch', { items, alsoAggregators: ['hard', 'flat'] });
      const columns = await client.call<{ also: Record<string, number[]> }>('rubric.scoreColumns', {
        rubricIds: part.map((r) => ids[r.rubric]),
        p: b64(part.flatMap((r) => r.p)),
        d: part.flatMap((r) => r.d),
        alsoAggregators: ['hard', 'flat'],
      });
      batch.results.forEach((result, i) => expect(result.also).toEqual({ hard: columns.also.hard![i], flat: columns.also.flat![i] }));
    });

    it('give the other aggregators\' rewards of the same scores in also, as in-process core does', async () => {
      const part = step.slice(0, 64);
      const result = await client.call<{ rewards: number[]; also: Record<string, number[]> }>('rubric.scoreColumns', {
        rubricIds: part.map((r) => ids[r.rubric]),
        p: b64(part.flatMap((r) => r.p)),
        d: part.flatMap((r) => r.d),
        aggregator: 'gear',
        alsoAggregators: ['hard', 'flat', 'gear-exact'],
      });
      expect(Object.keys(result.also)).toEqual(['hard', 'flat', 'gear-exact']);
      part.forEach((r, i) => {
        for (const name of ['hard', 'flat', 'gear-exact'] as const) {
          expect(result.also[name]![i]).toBe(aggregate(compiled[r.rubric]!, name, { p: r.p, d: r.d }).reward);
        }
      });
      const plain = await client.call<Record<string, unknown>>('rubric.scoreColumns', { rubricIds: [ids[0]], p: b64(step[0]!.p) });
      expect(plain).not.toHaveProperty('also');
    });

    it('report a response with an out-of-range score at its global position and score the rest', async () => {
      const p = step.slice(0, 3).flatMap((r) => r.p);
      const bad = step[0]!.p.length + 1;
      p[bad] = 2;
      const result = await client.call<{ rewards: (number | null)[]; errors: { index: number; error: { path: unknown[] } }[] }>('rubric.scoreColumns', {
        rubricIds: step.slice(0, 3).map((r) => ids[r.rubric]),
        p: b64(p),
      });
      expect(result.errors).toEqual([{ index: 1, error: expect.objectContaining({ code: 'invalid_input', path: ['p', bad] }) }]);
      expect(result.rewards[1]).toBeNull();
      expect(result.rewards[2]).toBe(aggregate(compiled[step[2]!.rubric]!, 'gear', step[2]!).reward);
    });

    it('pass the decisions to hard gating like rubric.scoreBatch does', async () => {
      const part = step.slice(0, 24);
      const result = await client.call<{ rewards: number[] }>('rubric.scoreColumns', {
        rubricIds: part.map((r) => ids[r.rubric]),
        p: b64(part.flatMap((r) => r.p)),
        d: part.flatMap((r) => r.d),
        aggregator: 'hard',
      });
      part.forEach((r, i) => expect(result.rewards[i]).toBe(aggregate(compiled[r.rubric]!, 'hard', { p: r.p, d: r.d }).reward));
    });

    it('fail only the responses of a rubric that does not compile under the options', async () => {
      const cyclic = await client.call<{ rubricId: string }>('rubric.register', {
        rubric: { criteria: [{ id: 'a', text: 'A', weight: 1 }, { id: 'b', text: 'B', weight: 1 }], edges: [{ parent: 'a', child: 'b', relation: 'weak' }, { parent: 'b', child: 'a', relation: 'weak' }] },
      });
      const result = await client.call<{ rewards: (number | null)[]; errors: { index: number; error: { path: unknown[] } }[] }>('rubric.scoreColumns', {
        rubricIds: [cyclic.rubricId, ids[0], cyclic.rubricId],
        p: b64([1, 1, ...step[0]!.p.map(() => 0.5), 1, 1].slice(0, 4 + compiled[0]!.size)),
        options: { onInvalidEdge: 'reject' },
      });
      expect(result.errors.map((e) => [e.index, e.error.path])).toEqual([
        [0, ['rubricIds', 0, 'edges', 1]],
        [2, ['rubricIds', 2, 'edges', 1]],
      ]);
      expect(result.rewards[1]).toBe(aggregate(compiled[0]!, 'gear', { p: compiled[0]!.ids.map(() => 0.5) }).reward);
    });

    it('take new rubrics inline in rubrics + rubricIndex: registered by the request, scored as by id', async () => {
      const part = step.slice(0, 40); // rubrics 0..4, 8 responses each
      const fresh = { criteria: [{ id: 'a', text: 'A new rubric of this step', weight: 2 }, { id: 'b', text: 'B', weight: -1 }], edges: [{ parent: 'a', child: 'b', relation: 'strong' }] };
      const byId = await client.call<{ rewards: number[]; flat: number[]; sizes: number[]; effective: string }>('rubric.scoreColumns', {
        rubricIds: part.map((r) => ids[r.rubric]),
        p: b64(part.flatMap((r) => r.p)),
        alsoAggregators: ['hard'],
      });
      // Rubric 0 by id, 1..4 inline (as the bridge sends a step whose rubrics are new), then the fresh one.
      const rubrics = [{ rubricId: ids[0] }, ...[1, 2, 3, 4].map((k) => ({ reward_model: bundled[k]!.rewardModel })), { rubric: fresh }];
      const inline = await client.call<{ rewards: number[]; flat: number[]; sizes: number[]; effective: string; rubricIds: string[]; errors: unknown[] }>('rubric.scoreColumns', {
        rubrics,
        rubricIndex: [...part.map((r) => r.rubric), 5],
        p: b64([...part.flatMap((r) => r.p), 1, 0.25]),
        alsoAggregators: ['hard'],
      });
      expect(inline.errors).toEqual([]);
      expect(inline.rewards.slice(0, 40)).toEqual(byId.rewards);
      expect(inline.flat.slice(0, 40)).toEqual(byId.flat);
      expect(inline.sizes.slice(0, 40)).toEqual(byId.sizes);
      const fromIds = decodeFloat64Base64(byId.effective, []);
      expect(Array.from(decodeFloat64Base64(inline.effective, []).subarray(0, fromIds.length))).toEqual(Array.from(fromIds));
      const freshId = (await client.call<{ rubricId: string }>('rubric.register', { rubric: fresh })).rubricId;
      expect(inline.rubricIds).toEqual([...ids.slice(0, 5), freshId]);
      // Registered by that request: scoring it by id now works.
      const again = await client.call<{ rewards: number[] }>('rubric.scoreColumns', { rubricIds: [freshId], p: b64([1, 0.25]) });
      expect(again.rewards[0]).toBe(inline.rewards[40]);
    });

    it('refuse a bad rubrics entry at its field, a bad rubricIndex at its index, and both forms at once', async () => {
      const p = b64(step[0]!.p);
      const bad = await client.request('rubric.scoreColumns', { rubrics: [{ rubric: { criteria: [{ id: 'a', text: 'A', weight: 'one' }] } }], rubricIndex: [0], p: b64([1]) });
      expect(bad.error).toMatchObject({ code: -32602, data: { path: ['rubrics', 0, 'rubric', 'criteria', 0, 'weight'] } });
      const neither = await client.request('rubric.scoreColumns', { rubrics: [{}], rubricIndex: [0], p });
      expect(neither.error).toMatchObject({ code: -32602, data: { path: ['rubrics', 0, 'rubricId'] } });
      const outside = await client.request('rubric.scoreColumns', { rubrics: [{ rubricId: ids[0] }], rubricIndex: [0, 1], p });
      expect(outside.error).toMatchObject({ code: -32602, data: { path: ['rubricIndex', 1] } });
      const both = await client.request('rubric.scoreColumns', { rubricIds: [ids[0]], rubrics: [{ rubricId: ids[0] }], rubricIndex: [0], p });
      expect(both.error).toMatchObject({ code: -32602, data: { path: ['rubrics'] } });
      const unknown = `sha256:${'0'.repeat(64)}`;
      const forgotten = await client.request('rubric.scoreColumns', { rubrics: [{ rubricId: unknown }], rubricIndex: [0], p });
      expect(forgotten.error).toMatchObject({ code: -32001, data: { rubricIds: [unknown] } });
    });

    it('refuse scores whose count does not match the rubrics', async () => {
      const response = await client.request('rubric.scoreColumns', { rubricIds: [ids[0]], p: b64([0.5]) });
      expect(response.error).toMatchObject({ code: -32602, data: { path: ['p'] } });
    });

    it('let rubric.scoreBatch take and return base64 vectors with the same numbers', async () => {
      const items = step.slice(0, 16).map((r) => ({ rubricId: ids[r.rubric], scores: { p: b64(r.p) } }));
      const { results } = await client.call<{ results: { reward: number; effective: string }[] }>('rubric.scoreBatch', { items, encoding: 'float64-base64' });
      results.forEach((result, i) => {
        const local = aggregate(compiled[step[i]!.rubric]!, 'gear', step[i]!);
        expect(result.reward).toBe(local.reward);
        expect(Array.from(decodeFloat64Base64(result.effective, []))).toEqual(Array.from(local.q));
      });
    });
  });

  describe('rubric.score', () => {
    it('scores an inline rubric with per-call options like the in-process core', async () => {
      const r = responsesOf(1, 1, 9)[0]!;
      const options = { retention: { weak: 0.5, strong: 0.1, activation: 0 }, gamma: 2, normalize: 'abs-sum' };
      const result = await client.call<ScoreResult>('rubric.score', { reward_model: bundled[0]!.rewardModel, scores: { p: r.p }, options });
      const local = aggregate(compileOfficialRewardModel(bundled[0]!.rewardModel, options as never), 'gear', { p: r.p });
      expect(result.reward).toBe(local.reward);
      expect(result.effective).toEqual(Array.from(local.q));
    });

    it('names the field of a bad option', async () => {
      const response = await client.request('rubric.score', { rubricId: ids[0], scores: { p: [] }, options: { gamma: -1 } });
      expect(response.error).toMatchObject({ code: -32602, data: { code: 'invalid_input', path: ['options', 'gamma'] } });
    });

    it('refuses a reference that gives two rubrics', async () => {
      const response = await client.request('rubric.score', { rubricId: ids[0], rubric: compiled[0]!.rubric, scores: { p: [] } });
      expect(response.error).toMatchObject({ code: -32602, data: { path: ['rubric'] } });
    });
  });

  describe('host.score and host.scoreBatch', () => {
    for (const host of ['ruscarl', 'gear', 'rar-explicit', 'writingbench'] as const) {
      it(`reproduce the ${host} adapter in process, judge outputs and all`, async () => {
        const { cases } = conformanceTarget(host);
        const local = resolveAdapter(createGearContainer('gear'), host);
        const items = cases.slice(0, 30).map((c) => ({ row: c.row, response: c.response, judgeOutputs: c.judgeOutputs }));
        const { results } = await client.call<{ results: { reward: number; nativeReward: number; effective: number[]; judgments: unknown[] }[] }>(
          'host.scoreBatch',
          { host, items },
        );
        results.forEach((result, i) => {
          const expected = local.score(items[i]!);
          expect(result.reward).toBe(expected.reward);
          expect(result.nativeReward).toBe(expected.nativeReward);
          expect(result.effective).toEqual(expected.effective);
          expect(result.judgments).toEqual(expected.judgments);
        });
        const single = await client.call<{ reward: number }>('host.score', { host, ...items[0]! });
        expect(single.reward).toBe(local.score(items[0]!).reward);
        // Scoring never reads the response: without it (or empty, as gear_bridge sends it), the same results.
        const unread = await client.call<{ results: unknown[] }>('host.scoreBatch', { host, items: items.map(({ row, judgeOutputs }) => ({ row, judgeOutputs })) });
        const empty = await client.call<{ results: unknown[] }>('host.scoreBatch', { host, items: items.map((item) => ({ ...item, response: '' })) });
        expect(unread.results).toEqual(results);
        expect(empty.results).toEqual(results);
      });
    }

    it('score items naming shared rows (rowIndex) exactly as items carrying their rows, with also', async () => {
      const { cases } = conformanceTarget('ruscarl');
      const rows = cases.slice(0, 6).map((c) => c.row);
      // Two responses per row, in an order that interleaves the rows.
      const picks = [0, 3, 1, 5, 0, 2, 4, 3, 1, 5, 2, 4];
      const inline = picks.map((k) => ({ row: cases[k]!.row, response: cases[k]!.response, judgeOutputs: cases[k]!.judgeOutputs }));
      const shared = picks.map((k) => ({ rowIndex: k, response: cases[k]!.response, judgeOutputs: cases[k]!.judgeOutputs }));
      type Result = { reward: number; nativeReward: number; effective: number[]; judgments: unknown[]; also?: Record<string, number> };
      const a = await client.call<{ results: Result[] }>('host.scoreBatch', { host: 'ruscarl', items: inline });
      const b = await client.call<{ results: Result[] }>('host.scoreBatch', { host: 'ruscarl', items: shared, rows, alsoAggregators: ['flat', 'hard'] });
      const byAggregator = Object.fromEntries(
        await Promise.all(['flat', 'hard'].map(async (aggregator) => [aggregator, (await client.call<{ results: Result[] }>('host.scoreBatch', { host: 'ruscarl', items: inline, aggregator })).results] as const)),
      );
      b.results.forEach((result, i) => {
        const { also, ...rest } = result;
        expect(rest).toEqual(a.results[i]);
        expect(also).toEqual({ flat: byAggregator.flat![i]!.reward, hard: byAggregator.hard![i]!.reward });
      });
      const lean = await client.call<{ results: Record<string, unknown>[] }>('host.scoreBatch', { host: 'ruscarl', items: shared, rows, omit: ['judgments', 'extras'] });
      lean.results.forEach((result, i) => {
        const kept: Record<string, unknown> = { ...a.results[i] };
        delete kept.judgments;
        delete kept.extras;
        expect(result).toEqual(kept);
      });
    });

    it('fail every item naming a bad shared row at rows[k], and only those', async () => {
      const [good] = conformanceTarget('ruscarl').cases;
      const rows = [good!.row, { prompt: [{ role: 'user', content: 'hi' }] }];
      const items = [
        { rowIndex: 1, response: 'x', judgeOutputs: [] },
        { rowIndex: 0, response: good!.response, judgeOutputs: good!.judgeOutputs },
        { rowIndex: 1, response: 'y', judgeOutputs: [] },
        { rowIndex: 2, response: 'z', judgeOutputs: [] },
        { row: good!.row, rowIndex: 0, response: 'w', judgeOutputs: [] },
      ];
      const { results } = await client.call<{ results: { index: number; reward?: number; error?: { path: unknown[] } }[] }>('host.scoreBatch', { host: 'ruscarl', items, rows });
      expect(results[0]!.error?.path).toEqual(['rows', 1, 'reward_model']);
      expect(results[1]!.reward).toBe(resolveAdapter(createGearContainer('gear'), 'ruscarl').score(good!).reward);
      expect(results[2]!.error?.path).toEqual(['rows', 1, 'reward_model']);
      expect(results[3]!.error?.path).toEqual(['items', 3, 'rowIndex']);
      expect(results[4]!.error?.path).toEqual(['items', 4, 'rowIndex']);
    });

    it('host.requests returns the judge prompts exactly as the adapter builds them', async () => {
      const [first] = conformanceTarget('ruscarl').cases;
      const local = resolveAdapter(createGearContainer('flat'), 'ruscarl');
      const { requests } = await client.call<{ requests: unknown[] }>('host.requests', { host: 'ruscarl', row: first!.row, response: first!.response });
      expect(requests).toEqual(local.format.buildJudgeRequests(local.format.parseRow(first!.row), first!.response));
    });

    it('locates a malformed row field under row', async () => {
      const response = await client.request('host.score', { host: 'ruscarl', row: { prompt: [{ role: 'user', content: 'hi' }] }, response: 'x', judgeOutputs: [] });
      expect(response.error).toMatchObject({ code: -32602, data: { path: ['row', 'reward_model'] } });
    });
  });

  describe('diagnostics.fcp', () => {
    it('equals computeFcp in process over the same responses', async () => {
      const step = responsesOf(20, 8, 11);
      const items = step.map((r) => ({ rubricId: ids[r.rubric], scores: { p: r.p } }));
      const report = await client.call<Record<string, unknown>>('diagnostics.fcp', { items, aggregators: ['flat', 'hard', 'gear'] });
      const local = computeFcp(
        step.map((r) => ({ compiled: compiled[r.rubric]!, scores: { p: r.p } })),
        { aggregators: ['flat', 'hard', 'gear'] },
      );
      expect(report).toEqual({ ...local, skipped: [] });
    });

    it("rubric.scoreColumns' fcp is the diagnostics.fcp report of the responses it scored", async () => {
      const step = responsesOf(20, 8, 12);
      const p = step.flatMap((r) => r.p);
      p[step[0]!.p.length] = 2; // the second response fails alone, and is left out of the figure
      const settings = { aggregators: ['gear', 'flat'], threshold: 0.6, relations: ['weak', 'strong'] };
      const result = await client.call<{ errors: unknown[]; fcp: Record<string, unknown> }>('rubric.scoreColumns', {
        rubricIds: step.map((r) => ids[r.rubric]),
        p: encodeFloat64Base64(p),
        d: step.flatMap((r) => r.d),
        fcp: settings,
      });
      expect(result.errors).toHaveLength(1);
      const scored = step.filter((_, i) => i !== 1);
      const report = await client.call<Record<string, unknown>>('diagnostics.fcp', {
        items: scored.map((r) => ({ rubricId: ids[r.rubric], scores: { p: r.p, d: r.d } })),
        ...settings,
      });
      expect(result.fcp).toEqual({ ...report, skipped: 0 });
      expect(result.fcp).toMatchObject({ responses: step.length - 1 });
      expect((result.fcp.leakageCases as number) > 0).toBe(true);
    });
  });
});
