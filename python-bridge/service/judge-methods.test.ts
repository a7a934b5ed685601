import { afterEach, describe, expect, it } from 'vitest';
import { JudgeRuntime } from '../../judge/judge-runtime.js';
import { loadOfficialHealthBenchRows } from '../../judge/testing/healthbench-rows.js';
import { startFakeOpenAi, type FakeChatRequest, type FakeOpenAiServer } from '../../judge/testing/fake-openai-server.js';
import type { RunningServer } from './server.js';
import { RpcTestClient } from './testing/rpc-test-client.js';
import { startTestService } from './testing/running-service.js';

/*
 * judge.* over a real socket, against a scripted OpenAI-compatible endpoint: the official GEAR
 * batch prompt (one request per response, keys "1".."n").
 */
const [row] = loadOfficialHealthBenchRows(1);
const rubric = row!.reward_model.rubrics;
const positive = rubric.filter((c) => c.points > 0).reduce((s, c) => s + c.points, 0);

/** Every criterion met with prob 0.9: the official flat reward is then 0.9 x (sum of points) / positive points. */
const allMet = (request: FakeChatRequest): string => {
  const content = String(request.messages[0]?.content ?? '');
  const keys = rubric.map((_, i) => i + 1).filter((k) => content.includes(`${k}. (points=`));
  return JSON.stringify(Object.fromEntries(keys.map((k) => [String(k), { criteria_met: true, prob_met: 0.9 }])));
};

const servers: { stop(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function serviceWithJudge(endpoint: FakeOpenAiServer | undefined): Promise<{ service: RunningServer; client: RpcTestClient }> {
  const service = await startTestService();
  if (endpoint !== undefined) service.context.judge = JudgeRuntime.create({ transport: { endpoints: [{ url: endpoint.url }] } });
  servers.push({ stop: async () => (await service.close(), await service.context.closeJudges()) });
  const client = await RpcTestClient.open(service.url);
  servers.push({ stop: () => client.close() });
  return { service, client };
}

async function fake(options: Parameters<typeof startFakeOpenAi>[0]): Promise<FakeOpenAiServer> {
  const server = await startFakeOpenAi(options);
  servers.push(server);
  return server;
}

interface JudgeReply {
  reward: number;
  nativeReward: number;
  failedCriteria: number;
  judgments: { status: string; p: number }[];
  judge: { stats: { requests: number } };
}

describe('judge.score and judge.scoreBatch on gear serve', () => {
  it('judge.scoreBatch scores each item in order and reports a bad item as data', async () => {
    const endpoint = await fake({ answer: allMet });
    const { client } = await serviceWithJudge(endpoint);
    const reply = await client.call<{ results: (JudgeReply & { index: number; id?: string })[] | { index: number; error: { path: unknown[] } }[] }>('judge.scoreBatch', {
      host: 'gear',
      aggregator: 'flat',
      items: [
        { id: 'a', row, response: 'first' },
        { row: { prompt: row!.prompt }, response: 'no rubric' },
        { id: 'c', row, response: 'third' },
      ],
    });
    const [a, bad, c] = reply.results as unknown as [JudgeReply & { id: string }, { error: { path: unknown[] } }, JudgeReply & { id: string }];
    const expected = (0.9 * rubric.reduce((s, x) => s + x.points, 0)) / positive;
    expect(a.id).toBe('a');
    expect(a.reward).toBeCloseTo(expected, 12);
    expect(a.nativeReward).toBeCloseTo(expected, 12);
    expect(a.failedCriteria).toBe(0);
    expect(a.judge.stats.requests).toBe(1);
    expect(c.reward).toBe(a.reward);
    expect(bad.error.path.slice(0, 3)).toEqual(['items', 1, 'row']);
    expect(endpoint.stats().received).toBe(2);
  });

  it('judge.scoreBatch gives the other aggregators\' rewards of the same verdicts in also, with no more requests', async () => {
    const endpoint = await fake({ answer: allMet });
    const { client } = await serviceWithJudge(endpoint);
    type Reply = { results: (JudgeReply & { also?: Record<string, number> })[] };
    const items = [{ row, response: 'first' }];
    const withAlso = await client.call<Reply>('judge.scoreBatch', { host: 'gear', aggregator: 'gear', alsoAggregators: ['flat', 'hard'], items });
    const requestsAfterFirst = endpoint.requests.length;
    const [flat, hard] = await Promise.all(
      (['flat', 'hard'] as const).map(async (aggregator) => (await client.call<Reply>('judge.scoreBatch', { host: 'gear', aggregator, items })).results[0]!.reward),
    );
    const [result] = withAlso.results;
    expect(result!.also).toEqual({ flat, hard });
    expect(flat).toBeCloseTo((0.9 * rubric.reduce((s, c) => s + c.points, 0)) / positive, 12);
    expect(requestsAfterFirst).toBe(1);  // one judge request for the response; the also rewards cost none
  });

  it('judge.scoreBatch takes shared rows by rowIndex and leaves out the omitted fields, with the same rewards', async () => {
    // Each response gets its own verdicts (met iff the response names the criterion's key), so a
    // mixed-up row or item would show in the rewards.
    const byResponse = (request: FakeChatRequest): string => {
      const content = String(request.messages[0]?.content ?? '');
      const keys = rubric.map((_, i) => i + 1).filter((k) => content.includes(`${k}. (points=`));
      const odd = content.includes('odd answer');
      return JSON.stringify(Object.fromEntries(keys.map((k) => [String(k), { criteria_met: odd === (k % 2 === 1), prob_met: odd === (k % 2 === 1) ? 0.8 : 0.2 }])));
    };
    const endpoint = await fake({ answer: byResponse });
    const { client } = await serviceWithJudge(endpoint);
    const other = { ...row!, prompt: [{ role: 'user', content: 'another prompt' }] };
    const responses = ['odd answer one', 'even answer', 'odd answer two'];
    type Result = Record<string, unknown> & { reward: number; judge: Record<string, unknown> };
    const call = async (params: Record<string, unknown>): Promise<Result[]> =>
      (await client.call<{ results: Result[] }>('judge.scoreBatch', { host: 'gear', aggregator: 'gear', alsoAggregators: ['flat'], ...params })).results;
    const inline = await call({ items: responses.map((response, k) => ({ row: k === 1 ? other : row, response })) });
    const shared = await call({
      rows: [other, row],
      items: responses.map((response, k) => ({ rowIndex: k === 1 ? 0 : 1, response })),
      omit: ['judgments', 'extras', 'outputs'],
    });
    expect(shared.map((r) => [r['reward'], r['nativeReward'], r['effective'], r['also'], r['failedCriteria']])).toEqual(
      inline.map((r) => [r['reward'], r['nativeReward'], r['effective'], r['also'], r['failedCriteria']]),
    );
    expect(new Set(inline.map((r) => r.reward)).size).toBe(2);
    for (const r of inline) expect(Object.keys(r)).toEqual(expect.arrayContaining(['judgments', 'extras']));
    for (const r of shared) {
      expect(Object.keys(r).sort()).toEqual(['also', 'effective', 'failedCriteria', 'failures', 'host', 'index', 'judge', 'method', 'nativeReward', 'reward']);
      expect(Object.keys(r.judge)).toEqual(['stats']);
    }
    // The second call's verdicts came from the judge's cache (same prompts), which its stats count.
    const stats = (r: Result): Record<string, number> => r.judge['stats'] as Record<string, number>;
    expect(shared.map((r) => [stats(r)['requests'], stats(r)['cacheHits']])).toEqual(inline.map((r) => [stats(r)['requests'], stats(r)['requests']]));
    expect(endpoint.stats().received).toBe(3);
  });

  it('judge.scoreBatch reports a bad rowIndex at the item, and a bad shared row at rows[k]', async () => {
    const endpoint = await fake({ answer: allMet });
    const { client } = await serviceWithJudge(endpoint);
    const reply = await client.call<{ results: { index: number; reward?: number; error?: { path: unknown[]; message: string } }[] }>('judge.scoreBatch', {
      host: 'gear',
      aggregator: 'flat',
      rows: [row, { prompt: row!.prompt }],
      items: [{ rowIndex: 2, response: 'x' }, { rowIndex: 0, row, response: 'x' }, { rowIndex: 1, response: 'x' }, { rowIndex: 0, response: 'x' }],
    });
    const [outOfRange, both, badRow, good] = reply.results;
    expect(outOfRange!.error).toMatchObject({ path: ['items', 0, 'rowIndex'], message: 'items[0].rowIndex: names rows[2] but the batch has 2 rows' });
    expect(both!.error).toMatchObject({ path: ['items', 1, 'rowIndex'], message: 'items[1].rowIndex: give row or rowIndex, not both' });
    expect(badRow!.error!.path.slice(0, 2)).toEqual(['rows', 1]);
    expect(good!.reward).toBeCloseTo((0.9 * rubric.reduce((s, c) => s + c.points, 0)) / positive, 12);
  });

  it('judge.score on a server without a judge says how to give it one', async () => {
    const { client } = await serviceWithJudge(undefined);
    await expect(client.call('judge.score', { host: 'gear', row, response: 'x' })).rejects.toThrow('"code":-32602,"message":"Invalid params: endpoints: this server has no judge');
    expect(await client.call('judge.info')).toEqual({ configured: false });
  });

  it('takes endpoints from the call when the server has none', async () => {
    const endpoint = await fake({ answer: allMet });
    const { client } = await serviceWithJudge(undefined);
    const reply = await client.call<JudgeReply>('judge.score', { host: 'gear', row, response: 'x', endpoints: [{ url: endpoint.url }] });
    expect(reply.failedCriteria).toBe(0);
    expect(endpoint.stats().received).toBe(1);
  });

  it('scores an endpoint returning 500s until the deadline as failed criteria, never as credit, each with its reason', async () => {
    const endpoint = await fake({ mode: 'status', status: 500 });
    const { service, client } = await serviceWithJudge(undefined);
    service.context.judge = JudgeRuntime.create({ transport: { endpoints: [{ url: endpoint.url }], deadlineMs: 300, backoff: { baseMs: 1, capMs: 2 } } });
    const reply = await client.call<JudgeReply & { failures: { id: string; reason: string }[] }>('judge.score', { host: 'gear', aggregator: 'flat', row, response: 'x' });
    const penalties = rubric.reduce((s, c) => s + (c.points < 0 ? c.points : 0), 0);
    expect(reply.failedCriteria).toBe(rubric.length);
    // Retried for the whole deadline (not a fixed count), then reported per criterion.
    expect(endpoint.stats().received).toBeGreaterThan(5);
    expect(reply.failures.map((f) => f.reason)).toEqual(rubric.map(() => 'deadline'));
    expect(reply.reward).toBe(penalties / positive);
    const info = await client.call<{ responses: number; totals: { failedRequests: number } }>('judge.info');
    expect(info).toMatchObject({ responses: 1, totals: { failedRequests: 1 } });
  });

  it('judge.scoreBatch sends its first items\' requests while later items\' prompts are still unbuilt', async () => {
    // undici writes a request on a reused keep-alive socket from a setImmediate, so requests wait
    // for every immediate queued before them: items started from immediates queued all at once
    // held the first request back until all ~1,300 prompts of a verl chunk were built.
    const items = 200;
    let builtAtFirstRequest: number | undefined;
    const { service, client } = await serviceWithJudge(undefined);
    const endpoint = await fake({
      answer: (request) => {
        builtAtFirstRequest ??= service.context.judge!.info().cache.misses;
        return allMet(request);
      },
    });
    service.context.judge = JudgeRuntime.create({ transport: { endpoints: [{ url: endpoint.url }] } });
    const reply = await client.call<{ results: JudgeReply[] }>('judge.scoreBatch', {
      host: 'gear',
      aggregator: 'flat',
      rows: [row],
      items: Array.from({ length: items }, (_, k) => ({ rowIndex: 0, response: `response ${k}` })),
    });
    expect(endpoint.stats().received).toBe(items);
    expect(reply.results.map((r) => r.failedCriteria)).toEqual(Array(items).fill(0));
    expect(service.context.judge.info().cache.misses).toBe(items);
    expect(builtAtFirstRequest).toBeGreaterThan(0);
    expect(builtAtFirstRequest).toBeLessThan(items / 2);
  });

  it('answers other calls while a slow judge call is in flight', async () => {
    const endpoint = await fake({ answer: allMet, latencyMs: 1500 });
    const { client } = await serviceWithJudge(endpoint);
    const order: string[] = [];
    const judged = client.call('judge.score', { host: 'gear', row, response: 'x' }).then(() => order.push('judge'));
    const health = client.call('server.health').then(() => order.push('health'));
    await Promise.all([judged, health]);
    expect(order).toEqual(['health', 'judge']);
  });
});
