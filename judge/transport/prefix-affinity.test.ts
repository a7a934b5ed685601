import { afterEach, describe, expect, it } from 'vitest';
import type { ChatAnswer, ChatCall } from './chat-call.js';
import type { TransportConfigInput } from './endpoint-config.js';
import { JudgeTransport } from './judge-transport.js';
import { FaultFixtures } from './testing/fault-fixtures.js';

const fixtures = new FaultFixtures();
const { server, track } = fixtures;
afterEach(() => fixtures.closeAll());

function transport(urls: string[], overrides: Partial<TransportConfigInput> = {}, maxConcurrent = 4): JudgeTransport {
  const t = new JudgeTransport({
    endpoints: urls.map((url) => ({ url, maxConcurrent })),
    requestTimeoutMs: 20_000,
    deadlineMs: 40_000,
    backoff: { baseMs: 10, capMs: 20 },
    hedge: { enabled: false },
    ...overrides,
  });
  track(t);
  return t;
}

/** A RuscaRL-like request: header + conversation + response (several 1024-char blocks), then the criterion and instructions. */
function criterionCall(response: string, criterion: number): ChatCall {
  const content = `Grade the last turn.\n${`conversation about ${response}. `.repeat(80)}\n# Rubric item\ncriterion ${criterion}\n${'instructions. '.repeat(40)}`;
  return { messages: [{ role: 'user', content }], decoding: { temperature: 0, top_p: 1, max_tokens: 8 } };
}

const responseCalls = (t: JudgeTransport, response: string, criteria: number): Promise<ChatAnswer>[] =>
  Array.from({ length: criteria }, (_, c) => t.complete(criterionCall(response, c)));

const endpointsOf = (answers: readonly ChatAnswer[]): Set<string> => new Set(answers.map((a) => a.endpoint));

describe('prefix-aware routing', () => {
  it('sends one response`s requests to one endpoint, and another response to the other, under balanced load', async () => {
    const a = await server({ latencyMs: 20, slots: 2 });
    const b = await server({ latencyMs: 20, slots: 2 });
    const t = transport([a.url, b.url]);
    const [first, second] = await Promise.all([Promise.all(responseCalls(t, 'response one', 6)), Promise.all(responseCalls(t, 'response two', 6))]);
    expect(endpointsOf(first).size).toBe(1);
    expect(endpointsOf(second).size).toBe(1);
    expect([...endpointsOf(first), ...endpointsOf(second)].sort()).toEqual([a.url, b.url].sort());
    expect(a.stats.requests.length).toBe(6);
    expect(b.stats.requests.length).toBe(6);
    expect(t.info().prefixAffinity).toMatchObject({ followed: 10, unknown: 2, moved: 0, unbalanced: 0 });
  });

  it('keeps affinity with room to spare (maxConcurrent above the burst): each response on one endpoint', async () => {
    const a = await server({ latencyMs: 20 });
    const b = await server({ latencyMs: 20 });
    const t = transport([a.url, b.url], {}, 32);
    const [first, second] = await Promise.all([Promise.all(responseCalls(t, 'response one', 8)), Promise.all(responseCalls(t, 'response two', 8))]);
    expect(endpointsOf(first).size).toBe(1);
    expect(endpointsOf(second).size).toBe(1);
    expect(endpointsOf([...first, ...second]).size).toBe(2);
  });

  it('with routing off, spreads one response over both endpoints (least-outstanding)', async () => {
    const a = await server({ latencyMs: 20 });
    const b = await server({ latencyMs: 20 });
    const t = transport([a.url, b.url], { prefixAffinity: { enabled: false } }, 32);
    const answers = await Promise.all(responseCalls(t, 'response one', 6));
    expect(endpointsOf(answers).size).toBe(2);
    expect(a.stats.requests.length).toBe(3);
    expect(t.info().prefixAffinity).toBeUndefined();
  });

  it('falls back to least-outstanding when the preferred endpoint is past both balance thresholds', async () => {
    const a = await server({ latencyMs: 100 });
    const b = await server({ latencyMs: 100 });
    // Out of balance once load(preferred) - min > 2 and load(preferred) > 1.5 x min.
    const t = transport([a.url, b.url], { prefixAffinity: { balanceAbsolute: 2, balanceRelative: 1.5 } }, 16);
    const answers = await Promise.all(responseCalls(t, 'response one', 6));
    // 1st to a (tie); 2nd and 3rd follow it (loads 1-0 and 2-0: not past 2); the 4th finds a at
    // 3 against 0: past both, so least-outstanding (b), which the 5th and 6th then follow.
    expect(answers.map((x) => x.endpoint)).toEqual([a.url, a.url, a.url, b.url, b.url, b.url]);
    expect(t.info().prefixAffinity).toMatchObject({ followed: 4, unbalanced: 1, unknown: 1 });
  });

  it('within the relative threshold, a preferred endpoint keeps its requests even past the absolute one', async () => {
    const a = await server({ latencyMs: 100 });
    const b = await server({ latencyMs: 100 });
    const t = transport([a.url, b.url], { prefixAffinity: { balanceAbsolute: 2, balanceRelative: 100 } }, 16);
    // Load on b first (a response of its own), so min > 0 and the relative rule holds.
    const other = responseCalls(t, 'response two', 1);
    const answers = await Promise.all(responseCalls(t, 'response one', 6));
    await Promise.all(other);
    expect(endpointsOf(answers).size).toBe(1);
  });

  it('never sends to an ejected preferred endpoint: the response`s later requests go elsewhere', async () => {
    const a = await server({ latencyMs: 5 });
    const b = await server({ latencyMs: 5 });
    const t = transport([a.url, b.url], { breaker: { consecutiveFailures: 1, baseEjectionMs: 60_000, maxEjectionMs: 60_000 } });
    const [firstAnswer] = await Promise.all(responseCalls(t, 'response one', 1));
    expect(firstAnswer?.endpoint).toBe(a.url);
    // Eject a with a call of no prefix key (shorter than one block), least-outstanding: b was
    // used less recently, so one call goes to b and the next to a, which answers 500 (ejected).
    a.set({ mode: 'status', status: 500 });
    await t.complete({ messages: [{ role: 'user', content: 'short one' }], decoding: { temperature: 0, top_p: 1, max_tokens: 8 } });
    await t.complete({ messages: [{ role: 'user', content: 'short two' }], decoding: { temperature: 0, top_p: 1, max_tokens: 8 } });
    expect(t.info().endpoints[0]?.state).toBe('ejected');
    const requestsToA = a.stats.requests.length;
    const rest = await Promise.all(Array.from({ length: 5 }, (_, c) => t.complete(criterionCall('response one', c + 1))));
    expect(endpointsOf(rest)).toEqual(new Set([b.url]));
    expect(a.stats.requests.length).toBe(requestsToA);
    expect(rest.every((x) => x.attempts === 1)).toBe(true);
  });

  it('a dead preferred endpoint costs one failed attempt, then the response follows its retry', async () => {
    const a = await server({ latencyMs: 5 });
    const b = await server({ latencyMs: 5 });
    const t = transport([a.url, b.url]);
    const [firstAnswer] = await Promise.all(responseCalls(t, 'response one', 1));
    expect(firstAnswer?.endpoint).toBe(a.url);
    await a.close();
    const rest: ChatAnswer[] = [];
    for (let c = 1; c < 6; c++) rest.push(await t.complete(criterionCall('response one', c)));
    expect(endpointsOf(rest)).toEqual(new Set([b.url]));
    expect(rest.map((x) => x.attempts)).toEqual([2, 1, 1, 1, 1]);
  });

  it('a free slot never idles: a full preferred endpoint`s waiting requests go to the idle one', async () => {
    const a = await server({ latencyMs: 200 });
    const b = await server({ latencyMs: 200 });
    const t = transport([a.url, b.url], {}, 2);
    const answers = await Promise.all(responseCalls(t, 'response one', 6));
    // a takes 2; after the burst the 3rd moves to b, whose slot the 4th then takes.
    expect(a.stats.requests.length).toBeGreaterThan(0);
    expect(b.stats.requests.length).toBeGreaterThan(0);
    expect(t.info().prefixAffinity?.moved).toBeGreaterThanOrEqual(1);
    expect(answers).toHaveLength(6);
  });
});
