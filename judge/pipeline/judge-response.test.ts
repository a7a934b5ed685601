import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGearContainer, resolveAdapter } from '../../adapters/container.js';
import { loadHealthBenchRows } from '../testing/healthbench-rows.js';
import { startFakeOpenAi, type FakeChatRequest, type FakeOpenAiServer } from '../testing/fake-openai-server.js';
import { deadEndpointUrl } from '../testing/dead-endpoint.js';
import { JudgeRuntime } from '../judge-runtime.js';
import { resolveJudgeOptions, type JudgeOptionsInput } from './judge-options.js';
import { judgeCacheKey } from '../cache/cache-key.js';
import { JudgeCache } from '../cache/judge-cache.js';

/** A real HealthBench rubric (oss_eval, MIT) as a RuscaRL row: one grader call per criterion. */
const [row] = loadHealthBenchRows(1);
const criteria = row!.reward_model.rubrics;
const negative = criteria.findIndex((c) => c.points < 0);
const positiveSum = criteria.filter((c) => c.points > 0).reduce((s, c) => s + c.points, 0);
const response = 'Talk therapy (CBT or IPT) helps; ask your OB-GYN for a referral and call 911 if you think of harming yourself.';

/** Which criterion a RuscaRL grader prompt is about (the prompt carries its text verbatim). */
const criterionOf = (request: FakeChatRequest): number => {
  const content = String(request.messages[0]?.content ?? '');
  const rubricItem = content.slice(content.indexOf('# Rubric item'), content.indexOf('# Instructions'));
  return criteria.findIndex((c) => rubricItem.includes(c.criterion));
};
/** The scripted verdict: even-numbered criteria are met. */
const metByScript = (i: number): boolean => i % 2 === 0;
const verdict = (met: boolean): string => `\`\`\`json\n{"explanation": "scripted", "criteria_met": ${met}}\n\`\`\``;

const servers: FakeOpenAiServer[] = [];
const runtimes: JudgeRuntime[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function judgeWith(server: { url: string }, options: JudgeOptionsInput = {}, aggregator: 'flat' | 'gear' = 'flat', cacheFile?: string, deadlineMs = 4000) {
  const runtime = JudgeRuntime.create({
    transport: { endpoints: [{ url: server.url, model: 'scripted' }], requestTimeoutMs: 2000, deadlineMs, backoff: { baseMs: 10, capMs: 50 } },
    ...(cacheFile === undefined ? {} : { cache: { file: cacheFile } }),
  });
  runtimes.push(runtime);
  const adapter = resolveAdapter(createGearContainer(aggregator), 'ruscarl');
  return runtime.judge(adapter, row, response, options);
}

async function scripted(answer: (request: FakeChatRequest) => string): Promise<FakeOpenAiServer> {
  const server = await startFakeOpenAi({ answer });
  servers.push(server);
  return server;
}

describe('judging a real HealthBench row through the RuscaRL grader', () => {
  it('asks once per criterion and scores exactly the verdicts it was given', async () => {
    const server = await scripted((request) => verdict(metByScript(criterionOf(request))));
    const result = await judgeWith(server);
    // Flat RuscaRL reward: points of met criteria / positive points.
    const expected = criteria.reduce((s, c, i) => s + (metByScript(i) ? c.points : 0), 0) / positiveSum;
    expect(result.reward).toBe(expected);
    expect(result.nativeReward).toBe(expected);
    expect(result.criteria.map((c) => c.met)).toEqual(criteria.map((_, i) => metByScript(i)));
    expect(result.criteria.every((c) => c.status === 'ok')).toBe(true);
    expect(result.judge.stats).toMatchObject({ requests: criteria.length, cacheHits: 0, reasks: 0, failedCriteria: 0, failedRequests: 0 });
    expect(server.stats().received).toBe(criteria.length);
  });

  it('sends the official decoding with a seed, and the answer schema only when asked', async () => {
    const server = await scripted((request) => verdict(metByScript(criterionOf(request))));
    await judgeWith(server, { structuredOutput: true });
    const body = server.requests[0]!.body as unknown as Record<string, unknown>;
    expect(body).toMatchObject({ temperature: 0, top_p: 0.8, top_k: 20, max_tokens: 1024, seed: 0, chat_template_kwargs: { enable_thinking: false } });
    expect(body['response_format']).toMatchObject({ type: 'json_schema', json_schema: { strict: true } });
  });

  it('re-asks only the criterion it could not read, and takes the readable second answer', async () => {
    const flaky = 1;
    const server = await scripted((request) => {
      const i = criterionOf(request);
      const first = (request as unknown as { temperature: number }).temperature === 0;
      return i === flaky && first ? 'I think the criteria is met.' : verdict(metByScript(i));
    });
    const result = await judgeWith(server);
    expect(server.stats().received).toBe(criteria.length + 1);
    expect(criterionOf(server.requests.at(-1)!.body)).toBe(flaky);
    expect(result.judge.stats).toMatchObject({ reasks: 1, failedCriteria: 0 });
    expect(result.criteria[flaky]).toMatchObject({ status: 'ok', met: metByScript(flaky) });
    expect(result.judge.outputs.filter((o) => o.reask === 1).map((o) => o.criteria)).toEqual([[flaky]]);
  });

  it('counts an unreadable penalty criterion as applied, and drops it only under the official rule', async () => {
    expect(negative).toBeGreaterThanOrEqual(0);
    const server = await scripted((request) => {
      const i = criterionOf(request);
      return i === negative ? '{"criteria_met": "maybe"}' : verdict(false);
    });
    const pessimistic = await judgeWith(server);
    const official = await judgeWith(server, { onJudgeFailure: 'official' });
    const penalty = criteria[negative]!.points;
    // Every positive criterion is unmet; pessimistic applies the unread penalty, official drops it.
    expect(pessimistic.reward).toBe(penalty / positiveSum);
    expect(official.reward).toBe(0);
    expect(pessimistic.criteria[negative]).toMatchObject({ p: 1, met: true, status: 'invalid-value', pVerbalized: null });
    expect(pessimistic.failedCriteria).toBe(1);
    // The model's answer, not the transport: reason 'unread'.
    expect(pessimistic.failures).toEqual([{ index: negative, id: `r${negative + 1}`, reason: 'unread', detail: expect.any(String) }]);
    // First ask + 2 re-asks of the unread criterion, in either policy.
    expect(pessimistic.judge.stats.reasks).toBe(2);
    expect(official.judge.stats.requests).toBe(criteria.length + 2);
  });

  it('fails the response under the error policy, naming the unread criterion', async () => {
    const server = await scripted((request) => (criterionOf(request) === negative ? 'garbage' : verdict(true)));
    await expect(judgeWith(server, { onJudgeFailure: 'error', maxReasks: 0 })).rejects.toThrow(`r${negative + 1}`);
  });

  it('gives no credit when every endpoint is dead: positives unmet, penalties applied', async () => {
    const result = await judgeWith({ url: await deadEndpointUrl() });
    const penalties = criteria.reduce((s, c) => s + (c.points < 0 ? c.points : 0), 0);
    expect(result.reward).toBe(penalties / positiveSum);
    expect(result.failedCriteria).toBe(criteria.length);
    expect(result.judge.stats.failedRequests).toBe(criteria.length);
    // Retried until the 4 s deadline, then reported per criterion with why.
    expect(result.failures.map((f) => f.reason)).toEqual(criteria.map(() => 'deadline'));
    // Failed requests are not re-asked: the transport already retried them.
    expect(result.judge.stats.reasks).toBe(0);
  });

  describe('with an endpoint that is faulty but alive, every criterion is answered and the reward is the healthy one', () => {
    const healthyReward = criteria.reduce((s, c, i) => s + (metByScript(i) ? c.points : 0), 0) / positiveSum;
    const faults: [string, (n: number) => Partial<import('../testing/fake-openai-server.js').Behaviour> | undefined][] = [
      // Retry-After in seconds, fractional to keep the test short (whole seconds: the transport's tests and bench/judge-routing.ts).
      ['429 with Retry-After: 0.2 on every other request', (n) => (n % 2 === 1 ? { mode: 'status', status: 429, retryAfter: '0.2' } : undefined)],
      ['500 on every other request', (n) => (n % 2 === 1 ? { mode: 'status', status: 500 } : undefined)],
      ['garbage bodies on every other request', (n) => (n % 2 === 1 ? { mode: 'garbage', garbage: 'truncated-json' } : undefined)],
      ['its first three requests hanging (past the 2 s attempt timeout)', (n) => (n <= 3 ? { mode: 'hang' } : undefined)],
    ];
    for (const [name, fault] of faults) {
      it(name, async () => {
        const server = await startFakeOpenAi({ answer: (request) => verdict(metByScript(criterionOf(request))), behave: (_request, n) => fault(n) });
        servers.push(server);
        const result = await judgeWith(server, {}, 'flat', undefined, 60_000);
        expect(result.reward).toBe(healthyReward);
        expect(result.failedCriteria).toBe(0);
        expect(result.failures).toEqual([]);
        expect(result.judge.stats.failedRequests).toBe(0);
        expect(result.judge.stats.retries).toBeGreaterThan(0);
      }, 60_000);
    }
  });

  it('answers a second run from the cache file: zero LLM calls, identical result', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gear-judge-'));
    dirs.push(dir);
    const file = join(dir, 'cache.sqlite');
    const server = await scripted((request) => verdict(metByScript(criterionOf(request))));
    const first = await judgeWith(server, {}, 'gear', file);
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
    const received = server.stats().received;
    const second = await judgeWith(server, {}, 'gear', file);
    expect(server.stats().received).toBe(received);
    expect(second.judge.stats.cacheHits).toBe(criteria.length);
    expect(second.reward).toBe(first.reward);
    expect(second.criteria).toEqual(first.criteria);
  });

  it('answers from a cache file whose keys hash the messages as plain values (the key before the prompt was written once)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gear-judge-'));
    dirs.push(dir);
    const file = join(dir, 'cache.sqlite');
    // Filled as the judge client keyed answers before it wrote each prompt's JSON once for key and body.
    const format = resolveAdapter(createGearContainer('flat'), 'ruscarl').format;
    const parsed = format.parseRow(row);
    const { decoding } = resolveJudgeOptions({});
    const cache = new JudgeCache({ file });
    for (const [i] of criteria.entries()) {
      const request = format.buildJudgeRequest(parsed, response, [i]);
      const key = judgeCacheKey({ v: 1, model: 'scripted', messages: request.messages, decoding, responseFormat: undefined, logprobs: undefined });
      cache.set(key, { content: verdict(metByScript(i)), finishReason: 'stop', promptTokens: 1, completionTokens: 1 });
    }
    cache.close();
    const server = await scripted(() => verdict(false));
    const result = await judgeWith(server, {}, 'flat', file);
    expect(server.stats().received).toBe(0);
    expect(result.judge.stats.cacheHits).toBe(criteria.length);
    expect(result.criteria.map((c) => c.met)).toEqual(criteria.map((_, i) => metByScript(i)));
  });

  it('takes p from the verdict token when asked to, and keeps the verbalised p beside it', async () => {
    const server = await scripted((request) => {
      const met = metByScript(criterionOf(request));
      return JSON.stringify({ explanation: 'x', criteria_met: met });
    });
    server.set({
      answer: (request) => {
        const met = metByScript(criterionOf(request));
        const content = `{"criteria_met": ${met}}`;
        const lead = '{"criteria_met": ';
        const yes = met ? 0.8 : 0.3;
        return {
          content,
          logprobs: [
            { token: lead, logprob: 0, bytes: null, top_logprobs: [] },
            { token: String(met), logprob: Math.log(met ? yes : 1 - yes), bytes: null, top_logprobs: [
              { token: 'true', logprob: Math.log(yes), bytes: null },
              { token: 'false', logprob: Math.log(1 - yes), bytes: null },
            ] },
            { token: '}', logprob: 0, bytes: null, top_logprobs: [] },
          ],
        };
      },
    });
    const result = await judgeWith(server, { pFrom: 'logprobs' });
    for (const [i, c] of result.criteria.entries()) {
      const yes = metByScript(i) ? 0.8 : 0.3;
      expect(c.pLogprob).toBeCloseTo(yes, 12);
      expect(c.p).toBeCloseTo(yes, 12);
      expect(c.pVerbalized).toBe(metByScript(i) ? 1 : 0);
    }
    expect((server.requests[0]!.body as unknown as Record<string, unknown>)['top_logprobs']).toBe(5);
  });
});
