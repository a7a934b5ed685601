import { afterEach, describe, expect, it } from 'vitest';
import { OFFICIAL_DECODING, type ChatAnswer, type ChatCall } from './chat-call.js';
import type { TransportConfigInput } from './endpoint-config.js';
import { JudgeTransport } from './judge-transport.js';
import { JudgeTransportError } from './transport-error.js';
import type { TransportEvent } from './transport-info.js';
import { deadPortUrl, type FaultBehaviour } from './testing/fault-server.js';
import { FaultFixtures } from './testing/fault-fixtures.js';
import { rejectionOf } from './testing/rejection.js';

const fixtures = new FaultFixtures();
const { server, track } = fixtures;
afterEach(() => fixtures.closeAll());

/**
 * Small delays so the suite stays fast; breaker knobs scaled to match. Hedging keeps its 1 s
 * minimum delay (a cold client on a busy machine can take a few hundred ms for its first
 * requests); the tests about hanging endpoints lower it.
 */
function transport(urls: string[], overrides: Partial<TransportConfigInput> = {}, events?: TransportEvent[]): JudgeTransport {
  const t = new JudgeTransport(
    {
      endpoints: urls.map((url) => ({ url, maxConcurrent: 4 })),
      requestTimeoutMs: 20_000,
      deadlineMs: 40_000,
      backoff: { baseMs: 20, capMs: 100 },
      breaker: { consecutiveFailures: 3, baseEjectionMs: 300, maxEjectionMs: 1200 },
      hedge: { maxHedgeFraction: 1 },
      ...overrides,
    },
    events === undefined ? {} : { log: (e) => events.push(e) },
  );
  track(t);
  return t;
}

const call = (text = 'judge this'): ChatCall => ({ messages: [{ role: 'user', content: text }], decoding: OFFICIAL_DECODING });

const runAll = (t: JudgeTransport, n: number): Promise<ChatAnswer[]> => Promise.all(Array.from({ length: n }, (_, i) => t.complete(call(`call ${i}`))));

/** Polls until `cond` holds (bounded: the test fails on its assertion after 5 s). */
async function until(cond: () => boolean): Promise<void> {
  for (let waited = 0; !cond() && waited < 5000; waited += 5) await new Promise((r) => setTimeout(r, 5));
}

describe('JudgeTransport on a healthy endpoint', () => {
  it('sends the decoding and reads content, usage and finish reason', async () => {
    const s = await server({ content: '{"1": {"criteria_met": true}}' });
    const t = transport([s.url]);
    const answer = await t.complete({
      messages: [{ role: 'user', content: 'grade' }],
      decoding: { ...OFFICIAL_DECODING, seed: 7, extra: { cache_prompt: false } },
      responseFormat: { name: 'grades', schema: { type: 'object' } },
    });
    expect(answer.content).toBe('{"1": {"criteria_met": true}}');
    expect(answer.finishReason).toBe('stop');
    expect(answer.endpoint).toBe(s.url);
    expect(answer.attempts).toBe(1);
    expect(answer.retries).toBe(0);
    expect(answer.hedged).toBe(false);
    expect(answer.completionTokens).toBe(3);
    expect(answer.promptTokens).toBeGreaterThan(0);
    const body = s.stats.requests[0]?.body;
    expect(body).toMatchObject({
      model: 'default',
      messages: [{ role: 'user', content: 'grade' }],
      temperature: 0,
      top_p: 0.8,
      top_k: 20,
      max_tokens: 1024,
      seed: 7,
      cache_prompt: false,
      chat_template_kwargs: { enable_thinking: false },
      response_format: { type: 'json_schema', json_schema: { name: 'grades', schema: { type: 'object' }, strict: true } },
    });
    expect(body).not.toHaveProperty('logprobs');
  });

  it('asks for and returns token logprobs', async () => {
    const s = await server({ content: 'true' });
    const t = transport([s.url]);
    const answer = await t.complete({ ...call(), logprobs: { top: 3 } });
    expect(s.stats.requests[0]?.body).toMatchObject({ logprobs: true, top_logprobs: 3 });
    expect(answer.logprobs).toEqual([
      { token: 'true', logprob: -0.1, top: [{ token: 'true', logprob: -0.1 }, { token: 'alt0', logprob: -3 }, { token: 'alt1', logprob: -4 }] },
    ]);
  });

  it('keeps at most maxConcurrent requests outstanding per endpoint and queues the rest', async () => {
    const s = await server({ latencyMs: 30 });
    const t = transport([s.url], { endpoints: [{ url: s.url, maxConcurrent: 2 }] });
    const answers = await runAll(t, 12);
    expect(answers).toHaveLength(12);
    expect(s.stats.maxRunning).toBe(2);
    expect(t.info().endpoints[0]).toMatchObject({ inFlight: 0, served: 12, state: 'healthy' });
  });

  it('reads every answer of a batch that finishes together, and refills its slots, before handing any on', async () => {
    // A batch's answers arrive together. Each answer's caller does its own work (reading the
    // verdict, scoring); were that work done as each answer is read, the slots of the answers
    // behind it would stay idle meanwhile.
    const s = await server({ batch: 4, latencyMs: 20 });
    const t = transport([s.url], { endpoints: [{ url: s.url, maxConcurrent: 4 }] });
    const seen: { served: number; inFlight: number }[] = [];
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.complete(call(`call ${i}`)).then((answer) => {
          const { served, inFlight } = t.info().endpoints[0] as { served: number; inFlight: number };
          seen.push({ served, inFlight });
          return answer;
        }),
      ),
    );
    expect(answers.map((a) => a.content)).toEqual(Array(8).fill('ok'));
    // The first caller hears of its answer when all four are read and the four calls waiting hold their slots.
    expect(seen[0]).toEqual({ served: 4, inFlight: 4 });
    expect(seen[7]).toEqual({ served: 8, inFlight: 0 });
    expect(s.stats.answered).toBe(8);
  });

  it('spreads calls over endpoints by fewest outstanding requests', async () => {
    const a = await server({ latencyMs: 40 });
    const b = await server({ latencyMs: 40 });
    // Room for all 16 at once: each goes where fewer are outstanding, ties to the least recently used.
    const t = transport([a.url, b.url], { endpoints: [{ url: a.url, maxConcurrent: 16 }, { url: b.url, maxConcurrent: 16 }] });
    await runAll(t, 16);
    expect(t.info().totals.hedges).toBe(0);
    expect(a.stats.requests.length).toBe(8);
    expect(b.stats.requests.length).toBe(8);
  });
});

describe('JudgeTransport under faults: every call completes', () => {
  const faults: [string, Partial<FaultBehaviour> | 'refused'][] = [
    ['refuses connections (dead port)', 'refused'],
    ['hangs', { mode: 'hang' }],
    ['is 3x slower', { latencyMs: 90 }],
    ['answers 500', { mode: 'status', status: 500 }],
    ['answers 429 with Retry-After', { mode: 'status', status: 429, retryAfter: '1' }],
    ['answers garbage bodies', { mode: 'garbage' }],
    ['answers empty content', { mode: 'empty' }],
    ['drops connections', { mode: 'reset' }],
  ];
  for (const [label, fault] of faults) {
    it(`when one endpoint ${label}`, async () => {
      const good = await server({ latencyMs: 30 });
      const badUrl = fault === 'refused' ? await deadPortUrl() : (await server(fault)).url;
      const t = transport([badUrl, good.url], { hedge: { minDelayMs: 300, maxHedgeFraction: 1 } });
      const answers = await runAll(t, 40);
      expect(answers.map((a) => a.content)).toEqual(Array(40).fill('ok'));
      const slowServes = fault !== 'refused' && fault.latencyMs !== undefined && fault.mode === undefined;
      if (!slowServes) expect(answers.every((a) => a.endpoint === good.url)).toBe(true);
      else expect(answers.filter((a) => a.endpoint === badUrl).length).toBeGreaterThan(0);
      // Every slot comes back, the cancelled copies' included.
      await until(() => t.info().endpoints.every((e) => e.inFlight === 0));
      expect(t.info().endpoints.map((e) => e.inFlight)).toEqual([0, 0]);
    });
  }
});

describe('circuit breaker', () => {
  it('sends a dead endpoint only consecutiveFailures requests plus one probe per ejection', async () => {
    const dead = await server({ mode: 'reset' });
    const good = await server({ latencyMs: 20 });
    const events: TransportEvent[] = [];
    const t = transport([dead.url, good.url], { endpoints: [{ url: dead.url, maxConcurrent: 1 }, { url: good.url, maxConcurrent: 4 }] }, events);
    // About 2 s of traffic: several ejections (300, 600, 900 ms) and their half-open probes.
    await runAll(t, 200);
    const info = t.info().endpoints[0];
    const ejections = events.filter((e) => e.type === 'ejected').length;
    expect(info?.ejections).toBe(ejections);
    expect(ejections).toBeGreaterThanOrEqual(2);
    // 3 failures in a row open the breaker; after that only the half-open probes reach it.
    expect(dead.stats.connections).toBe(3 + (ejections - 1));
    expect(good.stats.answered).toBe(200);
  });

  it('sends to an ejected endpoint anyway when every endpoint is ejected (panic), and an answer restores it', async () => {
    const s = await server({ mode: 'status', status: 500 });
    const events: TransportEvent[] = [];
    const t = transport([s.url], {}, events);
    const pending = t.complete(call());
    // Once the third failure has ejected it (for 300 ms), the server recovers; the next retry,
    // sent after its backoff without waiting for the ejection's end, finds that.
    await until(() => events.some((e) => e.type === 'ejected'));
    s.set({ mode: 'ok' });
    const answer = await pending;
    expect(answer.attempts).toBe(4);
    expect(answer.retries).toBe(3);
    expect(s.stats.requests.length).toBe(4);
    expect(events.map((e) => e.type)).toEqual(['attempt-failed', 'attempt-failed', 'attempt-failed', 'ejected', 'restored']);
    expect(t.info().endpoints[0]).toMatchObject({ state: 'healthy', ejections: 1, failures: 3 });
  });
});

describe('retries', () => {
  for (const status of [429, 503]) {
    it(`honours Retry-After on a ${status}: the next request to that endpoint comes no earlier`, async () => {
      const s = await server({ mode: 'status', status, retryAfter: '1' });
      const t = transport([s.url]);
      const pending = t.complete(call());
      await until(() => s.stats.requests.length > 0);
      s.set({ mode: 'ok' });
      const answer = await pending;
      const [first, second] = s.stats.requests;
      expect(answer.retries).toBe(1);
      expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1000);
      // A 429 is not the server failing; a 503 is.
      expect(t.info().endpoints[0]).toMatchObject({ ejections: 0, failures: status === 429 ? 0 : 1 });
      expect(t.info().totals.rateLimitWaitsMs).toBeGreaterThanOrEqual(1000);
    });
  }

  it('keeps traffic off a 429ing endpoint until each Retry-After (ms) passes, without ejecting it', async () => {
    const limited = await server({ mode: 'status', status: 429, retryAfterMs: '300' });
    const good = await server({ latencyMs: 20 });
    // One request at a time there, so every request after the first is sent after a 429 came back.
    const t = transport([limited.url, good.url], { endpoints: [{ url: limited.url, maxConcurrent: 1 }, { url: good.url, maxConcurrent: 4 }] });
    await runAll(t, 100);
    expect(limited.stats.requests.length).toBeGreaterThanOrEqual(2);
    const times = limited.stats.requests.map((r) => r.at);
    for (let i = 1; i < times.length; i++) expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(300 - 2);
    expect(t.info().endpoints[0]?.ejections).toBe(0);
  });

  it('does not retry a 4xx other than 408 and 429', async () => {
    for (const status of [400, 401, 404, 422]) {
      const s = await server({ mode: 'status', status });
      const t = transport([s.url]);
      const error = await rejectionOf(t.complete(call()), JudgeTransportError);
      expect(error).toMatchObject({ kind: 'client-error', status, attempts: 1, endpoint: s.url });
      expect(s.stats.requests.length).toBe(1);
    }
  });

  it("retries a 408 until the deadline, then gives up with kind 'deadline' and the last status", async () => {
    const s = await server({ mode: 'status', status: 408 });
    const t = transport([s.url], { deadlineMs: 400 });
    const error = await rejectionOf(t.complete(call()), JudgeTransportError);
    expect(error).toMatchObject({ kind: 'deadline', status: 408, last: 'request-timeout' });
    // Retried for the whole deadline, not a fixed number of times: backoff 20 ms doubling to 100 ms.
    expect(error.attempts).toBeGreaterThanOrEqual(3);
    expect(s.stats.requests.length).toBe(error.attempts);
  });

  it("retries an endpoint that only answers garbage until the deadline (last failure 'bad-response')", async () => {
    const s = await server({ mode: 'garbage' });
    const t = transport([s.url], { deadlineMs: 400 });
    const error = await rejectionOf(t.complete(call()), JudgeTransportError);
    expect(error).toMatchObject({ kind: 'deadline', last: 'bad-response' });
    expect(error.attempts).toBeGreaterThanOrEqual(3);
  });

  it('retries garbage and empty bodies until a readable reply comes', async () => {
    for (const mode of ['garbage', 'empty'] as const) {
      const s = await server({ mode });
      const t = transport([s.url]);
      const pending = t.complete(call());
      await until(() => s.stats.requests.length >= 3);
      s.set({ mode: 'ok', content: 'read me' });
      const answer = await pending;
      expect(answer.content).toBe('read me');
      expect(answer.retries).toBeGreaterThanOrEqual(3);
    }
  });

  it('honours the overall deadline', async () => {
    const s = await server({ mode: 'hang' });
    const t = transport([s.url], { deadlineMs: 300, hedge: { enabled: false } });
    const error = await rejectionOf(t.complete(call()), JudgeTransportError);
    expect(error.kind).toBe('deadline');
    expect(error.attempts).toBe(1);
  });

  it('times out an attempt and retries it', async () => {
    const s = await server({ mode: 'hang' });
    const t = transport([s.url], { requestTimeoutMs: 100, hedge: { enabled: false } });
    const pending = t.complete(call());
    await until(() => s.stats.requests.length >= 2);
    s.set({ mode: 'ok' });
    const answer = await pending;
    // The hanging attempts timed out, the one after the switch answered.
    expect(answer.attempts).toBe(s.stats.requests.length);
    expect(answer.attempts).toBeGreaterThanOrEqual(3);
  });

  it("stops on the caller's signal (kind 'aborted')", async () => {
    const s = await server({ mode: 'hang' });
    const t = transport([s.url]);
    const controller = new AbortController();
    const pending = t.complete({ ...call(), signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await rejectionOf(pending, JudgeTransportError)).kind).toBe('aborted');
    // The aborted HTTP request gives its slot back as soon as the SDK has cancelled it.
    await until(() => t.info().endpoints[0]?.inFlight === 0);
    expect(t.info().endpoints[0]).toMatchObject({ inFlight: 0, failures: 0, state: 'healthy' });
  });
});

describe('faults are retried until every call is answered', () => {
  it('a lone endpoint answering every other request with 500 answers every call, and is not ejected for good', async () => {
    const s = await server({ latencyMs: 20, slots: 4, alternate: { mode: 'status', status: 500 } });
    const events: TransportEvent[] = [];
    const t = transport([s.url], {}, events);
    const answers = await runAll(t, 40);
    expect(answers.map((a) => a.content)).toEqual(Array.from({ length: 40 }, () => 'ok'));
    // Every 500 was retried: one answer per call, the rest of the requests were the 500s.
    expect(s.stats.answered).toBe(40);
    expect(s.stats.requests.length - 40).toBe(answers.reduce((n, a) => n + a.retries, 0));
    // Ejected on 3 failures in a row, sent to anyway (panic: no other endpoint), restored by an answer.
    if (events.some((e) => e.type === 'ejected')) expect(events.some((e) => e.type === 'restored')).toBe(true);
    expect(t.info().endpoints[0]?.state).toBe('healthy');
  });

  it('retries a flake within answeringCapMs while an endpoint keeps answering, an outage or an overload up to capMs', async () => {
    const s = await server({ latencyMs: 5 });
    const t = new JudgeTransport({ endpoints: [{ url: s.url }] }, { random: () => 0.999999 });
    track(t);
    const flake = { kind: 'server-error', status: 500, message: '500' } as const;
    const overload = { kind: 'server-error', status: 503, message: '503' } as const;
    // Nothing answered yet: the long cap (8 s by default).
    expect(Math.round(t.retryDelay(6, 8000, flake))).toBe(8000);
    await t.complete(call());
    // An endpoint answers: a 500 is a flake, retried within 1 s; the first retry within 50-150 ms.
    expect(Math.round(t.retryDelay(6, 8000, flake))).toBe(1000);
    expect(Math.round(t.retryDelay(1, undefined, flake))).toBe(150);
    // A 503 without Retry-After says the server has too much: backed off to the long cap.
    expect(Math.round(t.retryDelay(6, 8000, overload))).toBe(8000);
    // With a Retry-After the router rests the endpoint; the call's own wait is the first step.
    expect(Math.round(t.retryDelay(6, 8000, { kind: 'rate-limited', status: 429, retryAfterMs: 1000, message: '429' }))).toBe(150);
  });

  it('a lone endpoint answering every other request with 429 + Retry-After: lowers its concurrency, honours the wait, answers every call', async () => {
    const s = await server({ latencyMs: 20, slots: 8, alternate: { mode: 'status', status: 429, retryAfterMs: '150' } });
    const events: TransportEvent[] = [];
    const t = transport([s.url], { endpoints: [{ url: s.url, maxConcurrent: 8 }] }, events);
    const answers = await runAll(t, 24);
    expect(answers).toHaveLength(24);
    expect(s.stats.answered).toBe(24);
    expect(events.find((e) => e.type === 'concurrency-lowered')).toMatchObject({ endpoint: s.url, limit: 4 });
    // Each 429's Retry-After kept traffic off the endpoint (its spacing is tested above).
    expect(t.info().totals.rateLimitWaitsMs).toBeGreaterThanOrEqual(150);
    expect(t.info().endpoints[0]).toMatchObject({ ejections: 0, failures: 0 });
  });

  it('the concurrency lowered by 429s climbs back to maxConcurrent on successes', async () => {
    const s = await server({ latencyMs: 5, mode: 'status', status: 429, retryAfterMs: '1' });
    const t = transport([s.url], { endpoints: [{ url: s.url, maxConcurrent: 8 }] });
    const pending = runAll(t, 8);
    await until(() => (t.info().endpoints[0]?.concurrencyLimit ?? 8) <= 2);
    expect(t.info().endpoints[0]?.concurrencyLimit).toBeLessThanOrEqual(2);
    s.set({ mode: 'ok' });
    await pending;
    await runAll(t, 200);
    expect(t.info().endpoints[0]?.concurrencyLimit).toBe(8);
  });

  it('a lone endpoint dropping every other connection answers every call', async () => {
    const s = await server({ latencyMs: 10, alternate: { mode: 'drop' } });
    const t = transport([s.url]);
    const answers = await runAll(t, 20);
    expect(answers).toHaveLength(20);
    expect(s.stats.answered).toBe(20);
    expect(answers.some((a) => a.retries > 0)).toBe(true);
  });

  it('a lone dead endpoint is retried until the deadline (never a fixed number of attempts)', async () => {
    const t = transport([await deadPortUrl()], { deadlineMs: 600, breaker: { consecutiveFailures: 1, baseEjectionMs: 10_000, maxEjectionMs: 10_000 } });
    const error = await rejectionOf(t.complete(call()), JudgeTransportError);
    expect(error).toMatchObject({ kind: 'deadline', last: 'connection' });
    // Ejected after the first failure for 10 s, yet retried within the 600 ms: panic routing.
    expect(error.attempts).toBeGreaterThanOrEqual(3);
  });
});

describe('hedging', () => {
  it('a hedge on another endpoint wins against a hanging one', async () => {
    const hang = await server({ mode: 'hang' });
    const good = await server({ latencyMs: 10 });
    const events: TransportEvent[] = [];
    const t = transport([hang.url, good.url], { requestTimeoutMs: 60_000, hedge: { minDelayMs: 150, maxHedgeFraction: 1 } }, events);
    // Ties go to the first endpoint: the hanging one.
    const answer = await t.complete(call());
    expect(answer).toMatchObject({ endpoint: good.url, hedged: true, attempts: 2, retries: 0 });
    expect(t.info().totals).toMatchObject({ requests: 1, hedges: 1, hedgeWins: 1 });
    expect(events.find((e) => e.type === 'hedge')).toMatchObject({ from: hang.url, to: good.url });
    expect(hang.stats.requests.length).toBe(1);
    // The losing copy is cancelled, not left hanging.
    await until(() => hang.stats.abandoned > 0);
    expect(hang.stats.abandoned).toBe(1);
    expect(t.info().endpoints[0]).toMatchObject({ inFlight: 0, failures: 1 });
  });

  it('hedges an attempt the budget held back once the budget has room (a hanging endpoint never costs the whole timeout)', async () => {
    const hang = await server({ mode: 'hang' });
    const good = await server({ latencyMs: 10 });
    const t = transport([hang.url, good.url], { requestTimeoutMs: 60_000, hedge: { minDelayMs: 50, maxHedgeFraction: 0.5 } });
    // The first call goes to the hanging endpoint (ties go to the first); with 1 call made, the
    // budget (0.5 x 1) has no room for its hedge.
    const first = t.complete(call('first'));
    await until(() => hang.stats.requests.length === 1);
    // A second call makes room for one hedge: the first call's is sent on its next look.
    const second = await t.complete(call('second'));
    expect(second.endpoint).toBe(good.url);
    const answer = await first;
    expect(answer).toMatchObject({ endpoint: good.url, hedged: true });
    expect(t.info().totals.hedges).toBe(1);
  });

  it('copies calls running elsewhere onto an endpoint left idle with nobody in line, and the endpoint they beat is no worse for it', async () => {
    const stuck = await server({ mode: 'hang' });
    const good = await server({ latencyMs: 10 });
    const events: TransportEvent[] = [];
    // The delay-based hedge is out of reach (60 s): only idle capacity can hedge here.
    const t = transport([stuck.url, good.url], { requestTimeoutMs: 120_000, hedge: { minDelayMs: 60_000, maxHedgeFraction: 1 } }, events);
    // 8 calls at once: 4 slots each, so 4 go to the endpoint that never answers.
    const answers = await runAll(t, 8);
    expect(stuck.stats.requests.length).toBe(4);
    expect(answers.every((a) => a.endpoint === good.url)).toBe(true);
    expect(answers.filter((a) => a.hedged)).toHaveLength(4);
    expect(t.info().totals).toMatchObject({ requests: 8, hedges: 4, hedgeWins: 4 });
    expect(events.filter((e) => e.type === 'hedge')).toHaveLength(4);
    // The copies used slots nothing else wanted: losing to them is no failure of the busy endpoint.
    await until(() => stuck.stats.abandoned === 4);
    expect(t.info().endpoints[0]).toMatchObject({ inFlight: 0, failures: 0, state: 'healthy' });
  });

  it('stays within maxHedgeFraction', async () => {
    const hang = await server({ mode: 'hang' });
    const good = await server({ latencyMs: 10 });
    // No ejection in this test: a half-open probe's hedge is exempt from the cap (tested above).
    const t = transport([hang.url, good.url], { hedge: { minDelayMs: 50, maxHedgeFraction: 0.25 }, requestTimeoutMs: 400, breaker: { consecutiveFailures: 1000 } });
    await runAll(t, 8);
    const { hedges, requests } = t.info().totals;
    expect(requests).toBe(8);
    expect(t.info().endpoints[0]?.ejections).toBe(0);
    expect(hedges).toBeLessThanOrEqual(2);
  });
});

describe('load figures and limits', () => {
  it("reads the server's running + waiting from /metrics and routes around it", async () => {
    const busy = await server({ latencyMs: 700, slots: 1 });
    const idle = await server({ latencyMs: 10 });
    // Another client's three requests: one running, two waiting on `busy`.
    const others = [1, 2, 3].map(() => fetch(`${busy.url}/chat/completions`, { method: 'POST', body: '{}' }).then((r) => r.text()));
    await until(() => busy.stats.requests.length >= 3);
    const t = transport([busy.url, idle.url], { endpoints: [{ url: busy.url, metrics: true }, { url: idle.url, metrics: true }] });
    await t.complete(call());
    await until(() => t.info().endpoints[0]?.serverLoad !== null);
    expect(t.info().endpoints[0]?.serverLoad).toMatchObject({ running: 1, waiting: 2 });
    const answers = await runAll(t, 6);
    expect(answers.every((a) => a.endpoint === idle.url)).toBe(true);
    await Promise.all(others);
  });

  it('counts a metrics probe that gets no answer as a failure, not as load 0', async () => {
    const hang = await server({ mode: 'hang' });
    const good = await server({ latencyMs: 10 });
    const events: TransportEvent[] = [];
    const t = transport([hang.url, good.url], { endpoints: [{ url: hang.url, metrics: true }, { url: good.url }], requestTimeoutMs: 200 }, events);
    await t.complete(call());
    await until(() => events.some((e) => e.type === 'load-probe-failed'));
    expect(events.find((e) => e.type === 'load-probe-failed')).toMatchObject({ endpoint: hang.url, down: true });
    expect(t.info().endpoints[0]?.serverLoad).toBeNull();
    expect(t.info().endpoints[0]?.failures).toBeGreaterThanOrEqual(1);
  });

  it('holds requests to rpm per endpoint', async () => {
    const s = await server();
    const t = transport([s.url], { endpoints: [{ url: s.url, rpm: 60 }] });
    await runAll(t, 62);
    const times = s.stats.requests.map((r) => r.at).sort((a, b) => a - b);
    // The bucket holds a minute's 60 requests; the 62nd waits for 2 more to refill (1 per second).
    expect((times[61] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(1500);
    expect(t.info().totals.rateLimitWaitsMs).toBeGreaterThan(0);
  });

  it('charges tpm the estimate and gives back what the reply did not use', async () => {
    const s = await server();
    // Without the correction the third call would wait ~30 s for 2000 tokens to refill.
    const t = transport([s.url], { endpoints: [{ url: s.url, tpm: 4000 }], estimatedTokensPerRequest: 2000 });
    for (let i = 0; i < 6; i++) await t.complete(call());
    expect(s.stats.answered).toBe(6);
  }, 10_000);
});
