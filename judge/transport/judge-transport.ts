import { classifyFailure, isRetryable, retryDelayMs, type AttemptFailure } from './attempt-failure.js';
import type { ChatAnswer, ChatCall } from './chat-call.js';
import { parseTransportConfig, type TransportConfig, type TransportConfigInput } from './endpoint-config.js';
import { EndpointRouter, type Lease } from './endpoint-router.js';
import { JudgeEndpoint } from './judge-endpoint.js';
import { LatencyWindow } from './latency-window.js';
import { ChatBodyText, exchangeChat, type ExchangeReply } from './openai-exchange.js';
import type { PrefixKey } from './prefix-affinity.js';
import { JudgeTransportError, type JudgeTransportErrorKind } from './transport-error.js';
import type { TransportEvent, TransportInfo } from './transport-info.js';

export interface JudgeTransportOptions {
  /** Clock for breaker, Retry-After and latency bookkeeping (timers stay real). */
  now?: () => number;
  log?: (event: TransportEvent) => void;
  /** Jitter source for backoff. */
  random?: () => number;
}

type AttemptRole = 'first' | 'retry' | 'hedge';

/**
 * A slot left free with nobody in line for this long means no new calls are coming for now (the
 * end of an input, or of a batch): then calls running elsewhere may be copied onto it.
 */
const IDLE_HEDGE_GRACE_MS = 50;

interface RunningAttempt {
  readonly lease: Lease;
  readonly role: AttemptRole;
  readonly sentAt: number;
  readonly controller: AbortController;
  hedgeTimer: NodeJS.Timeout | undefined;
  /** A hedge was started because this attempt ran long; losing to it counts as a timeout. */
  hedgedAgainst: boolean;
  /** Aborted because another copy answered. */
  lost: boolean;
}

/**
 * Sends judge chat calls to one or more OpenAI-compatible endpoints: least-outstanding routing,
 * a circuit breaker per endpoint, retries with jittered backoff on another endpoint, hedging of
 * calls that run far past the observed latency, Retry-After, optional rpm/tpm limits, and an
 * overall deadline per call. See README.md in this folder.
 */
export class JudgeTransport {
  readonly config: TransportConfig;
  private readonly endpoints: JudgeEndpoint[];
  private readonly router: EndpointRouter;
  private readonly latency = new LatencyWindow(256);
  private readonly calls = new Set<CallRun>();
  readonly now: () => number;
  readonly random: () => number;
  private readonly log: (event: TransportEvent) => void;
  private closed = false;
  private latencySamples = 0;
  private hedgeDelay: number | undefined;
  private hedgeDelayAt = 0;
  private totals = { requests: 0, retries: 0, hedges: 0, hedgeWins: 0, rateLimitWaitsMs: 0 };
  /** When an endpoint last answered (retryDelay's "some endpoint keeps answering"). */
  private lastAnswerAt = -Infinity;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(config: TransportConfigInput, options: JudgeTransportOptions = {}) {
    this.config = parseTransportConfig(config);
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.log = options.log ?? (() => {});
    const deps = {
      now: this.now,
      breaker: this.config.breaker,
      estimatedTokensPerRequest: this.config.estimatedTokensPerRequest,
      requestTimeoutMs: this.config.requestTimeoutMs,
      adaptiveConcurrency: this.config.adaptiveConcurrency,
      emit: (event: TransportEvent) => this.log(event),
      changed: () => this.router.pump(),
    };
    this.endpoints = this.config.endpoints.map((e) => new JudgeEndpoint(e, deps));
    this.router = new EndpointRouter(this.endpoints, this.now, this.config.prefixAffinity);
  }

  /** @throws JudgeTransportError */
  complete(call: ChatCall): Promise<ChatAnswer> {
    if (this.closed) return Promise.reject(new JudgeTransportError('aborted', 'transport closed', { attempts: 0 }));
    this.totals.requests++;
    return new Promise<ChatAnswer>((resolve, reject) => {
      const run = new CallRun(this, call, this.router, (outcome) => {
        this.calls.delete(run);
        if (outcome instanceof JudgeTransportError) reject(outcome);
        else resolve(outcome);
      });
      this.calls.add(run);
      run.start();
    });
  }

  info(): TransportInfo {
    const now = this.now();
    const prefixAffinity = this.router.affinityInfo();
    return { deadlineMs: this.config.deadlineMs, endpoints: this.endpoints.map((e) => e.info(now)), totals: { ...this.totals }, ...(prefixAffinity === undefined ? {} : { prefixAffinity }) };
  }

  /** Aborts every call in progress (kind 'aborted') and stops the limiters and probes. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    for (const run of [...this.calls]) run.fail('aborted', 'transport closed');
    this.router.close();
    await Promise.all(this.endpoints.map((e) => e.close()));
  }

  /** Run past this, an attempt gets a hedge: max(minDelayMs, multiplier x p95 over all endpoints). */
  hedgeDelayMs(): number {
    // The p95 is re-read every 16 answers, not sorted again on every attempt.
    if (this.hedgeDelay === undefined || this.latencySamples - this.hedgeDelayAt >= 16) {
      const p95 = this.latency.quantile(0.95) ?? 0;
      this.hedgeDelay = Math.max(this.config.hedge.minDelayMs, this.config.hedge.latencyMultiplier * p95);
      this.hedgeDelayAt = this.latencySamples;
    }
    return this.hedgeDelay;
  }

  /** Whether a call can be hedged at all: hedging on, and another endpoint to send the copy to. */
  hedging(): boolean {
    return this.config.hedge.enabled && this.endpoints.length >= 2;
  }

  /** Whether one more hedge stays within maxHedgeFraction of the calls (a probe's hedge always may). */
  mayHedge(probe: boolean): boolean {
    if (!this.hedging()) return false;
    return probe || this.totals.hedges + 1 <= this.config.hedge.maxHedgeFraction * this.totals.requests;
  }

  /**
   * @internal An attempt ended and freed its slot: if a slot stays free with nobody in line for
   * IDLE_HEDGE_GRACE_MS, hedgeIntoIdle.
   */
  slotFreed(): void {
    if (this.idleTimer !== undefined || this.closed || !this.hedging()) return;
    this.armIdleHedge(IDLE_HEDGE_GRACE_MS);
  }

  private armIdleHedge(delayMs: number): void {
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      this.hedgeIntoIdle();
    }, delayMs);
  }

  /**
   * Hedging into idle capacity ("The Tail at Scale"): when no call waits for a slot and an
   * endpoint has free slots, the calls that have run elsewhere for longer than that endpoint's
   * median answer get a copy there, oldest first, one per free slot, within maxHedgeFraction. At
   * the end of an input the calls left are the ones queued on the slowest endpoint (one 3x slower
   * one holds its last 32 requests for 1.2 s while the other sits idle); the copies use only slots
   * nothing else wanted, and the first answer wins. A copy that wins is no verdict on the
   * endpoint it beat (no breaker failure): that endpoint was busy, not broken.
   */
  private hedgeIntoIdle(): void {
    if (this.closed || this.router.waiting > 0) return;
    const now = this.now();
    const idle = this.endpoints.filter((e) => e.hasCapacity() && e.acceptsTraffic(now) && e.served > 0);
    if (idle.length === 0) return;
    const free = new Map(idle.map((e) => [e, e.concurrencyLimit() - e.inFlight]));
    const median = new Map(idle.map((e) => [e, e.latency.quantile(0.5) ?? Infinity]));
    const candidates: { run: CallRun; sentAt: number; endpoint: JudgeEndpoint }[] = [];
    for (const run of this.calls) {
      const running = run.idleHedgeCandidate();
      if (running !== undefined) candidates.push({ run, ...running });
    }
    candidates.sort((a, b) => a.sentAt - b.sentAt);
    let lookAgainAt = Infinity;
    for (const { run, sentAt, endpoint } of candidates) {
      if (!this.mayHedge(false)) break;
      // The free endpoint (another than the attempt's) whose median answer this attempt has outrun.
      let target: JudgeEndpoint | undefined;
      for (const [e, slots] of free) {
        if (e === endpoint || slots <= 0) continue;
        const due = sentAt + (median.get(e) ?? Infinity);
        if (due <= now) target = e;
        else lookAgainAt = Math.min(lookAgainAt, due);
      }
      if (target === undefined) continue;
      free.set(target, (free.get(target) ?? 0) - 1);
      run.hedgeIntoIdle();
    }
    // Attempts not run that long yet: look again when the first has (the idle endpoint runs
    // nothing that could end before then and look again).
    if (lookAgainAt !== Infinity && this.idleTimer === undefined) this.armIdleHedge(Math.max(1, lookAgainAt - now));
  }

  /** @internal bookkeeping for CallRun */
  count(key: 'retries' | 'hedges' | 'hedgeWins', by = 1): void {
    this.totals[key] += by;
  }

  /** @internal */
  addRateLimitWait(ms: number): void {
    this.totals.rateLimitWaitsMs += ms;
  }

  /** @internal */
  recordLatency(ms: number): void {
    this.latency.add(ms);
    this.latencySamples++;
    this.lastAnswerAt = this.now();
  }

  /**
   * The wait before a call's retry number `retry` after `failure` (its last wait `lastMs`). A
   * Retry-After rests that endpoint in the router until it passes, so the call's own wait is the
   * shortest step (another endpoint takes the retry at once). A flake (5xx, timeout, dropped
   * connection, unusable body) while some endpoint answered within the last capMs is retried
   * within answeringCapMs: the endpoint is alive, and an alternating 500 must not cost seconds a
   * request. An overload (429, 503) without Retry-After, or no endpoint answering, backs off to capMs.
   */
  retryDelay(retry: number, lastMs: number | undefined, failure: AttemptFailure): number {
    const { backoff } = this.config;
    if (failure.retryAfterMs !== undefined) return retryDelayMs(1, undefined, Math.min(backoff.answeringCapMs, backoff.capMs), backoff, this.random);
    const overload = failure.kind === 'rate-limited' || failure.status === 503;
    const answering = this.now() - this.lastAnswerAt <= backoff.capMs;
    return retryDelayMs(retry, lastMs, !overload && answering ? Math.min(backoff.answeringCapMs, backoff.capMs) : backoff.capMs, backoff, this.random);
  }

  /** @internal */
  emit(event: TransportEvent): void {
    this.log(event);
  }
}

/** One complete() call: its attempts, hedge, retries, deadline. */
class CallRun {
  private readonly startedAt: number;
  /** Set when the first attempt goes out: the time in our own waiting line does not count. */
  private deadline = Infinity;
  private readonly body: ChatBodyText;
  /** Its leading text's block hashes, for prefix-aware routing (undefined when that is off). */
  private readonly prefix: PrefixKey | undefined;
  private readonly running = new Set<RunningAttempt>();
  private readonly tried = new Set<JudgeEndpoint>();
  private attempts = 0;
  private retries = 0;
  /** The wait before the last retry (decorrelated jitter grows from it). */
  private lastDelay: number | undefined;
  private hedged = false;
  /** Its hedge went to a slot nothing else wanted (hedgeIntoIdle): losing to it is no timeout. */
  private idleHedge = false;
  private done = false;
  private lastFailure: (AttemptFailure & { endpoint: string }) | undefined;
  private withdraw: (() => void) | undefined;
  private waitingRole: AttemptRole | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly onCallerAbort = (): void => this.fail('aborted', 'aborted by the caller');

  constructor(
    private readonly transport: JudgeTransport,
    private readonly call: ChatCall,
    private readonly router: EndpointRouter,
    private readonly settle: (outcome: ChatAnswer | JudgeTransportError) => void,
  ) {
    this.startedAt = transport.now();
    // The model differs per endpoint: written at each attempt.
    this.body = new ChatBodyText(call);
    this.prefix = router.prefixKey(call.messages);
  }

  start(): void {
    if (this.call.signal?.aborted) {
      this.fail('aborted', 'aborted by the caller');
      return;
    }
    this.call.signal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.requestSlot('first');
  }

  private requestSlot(role: AttemptRole): void {
    this.waitingRole = role;
    const exclude = role === 'hedge' ? new Set([...this.running].map((a) => a.lease.endpoint)) : new Set<JudgeEndpoint>();
    this.withdraw = this.router.request({
      priority: this.startedAt,
      prefix: this.prefix,
      avoid: role === 'retry' ? this.tried : new Set(),
      exclude,
      granted: (lease) => {
        this.withdraw = undefined;
        this.waitingRole = undefined;
        if (this.done || (role === 'hedge' && this.running.size === 0)) {
          if (role === 'hedge') this.transport.count('hedges', -1);
          lease.release({ kind: 'inconclusive' });
          return;
        }
        this.startAttempt(lease, role);
      },
    });
  }

  private cancelSlotRequest(): void {
    if (this.waitingRole === 'hedge' && this.withdraw !== undefined) this.transport.count('hedges', -1);
    this.withdraw?.();
    this.withdraw = undefined;
    this.waitingRole = undefined;
  }

  private startAttempt(lease: Lease, role: AttemptRole): void {
    const transport = this.transport;
    this.attempts++;
    if (this.attempts === 1) {
      const deadlineMs = transport.config.deadlineMs;
      this.deadline = transport.now() + deadlineMs;
      this.deadlineTimer = setTimeout(() => {
        const last = this.lastFailure;
        this.fail('deadline', `deadline of ${deadlineMs} ms passed after ${this.attempts} attempts${last === undefined ? ' (none answered)' : `; last: ${last.endpoint}: ${last.message}`}`);
      }, deadlineMs);
    }
    this.tried.add(lease.endpoint);
    if (role === 'retry') {
      this.retries++;
      transport.count('retries');
    }
    const attempt: RunningAttempt = {
      lease,
      role,
      sentAt: transport.now(),
      controller: new AbortController(),
      hedgeTimer: undefined,
      hedgedAgainst: false,
      lost: false,
    };
    if (role === 'hedge') {
      this.hedged = true;
      for (const other of this.running) {
        other.hedgedAgainst = !this.idleHedge;
        transport.emit({ type: 'hedge', from: other.lease.endpoint.url, to: lease.endpoint.url, afterMs: transport.now() - other.sentAt });
      }
    }
    this.running.add(attempt);
    // No timer where no hedge can be sent: one fewer setTimeout on every attempt to a lone endpoint.
    if (role !== 'hedge' && !this.hedged && transport.hedging()) {
      attempt.hedgeTimer = setTimeout(() => this.maybeHedge(attempt), transport.hedgeDelayMs());
    }
    void this.exchange(attempt).then((result) => this.attemptDone(attempt, result));
  }

  private async exchange(attempt: RunningAttempt): Promise<{ reply: ExchangeReply; latencyMs: number } | AttemptFailure> {
    const { endpoint } = attempt.lease;
    const transport = this.transport;
    try {
      let charged = 0;
      if (endpoint.limits.limited) {
        const waitStart = transport.now();
        charged = await endpoint.limits.admit();
        transport.addRateLimitWait(transport.now() - waitStart);
        if (attempt.controller.signal.aborted) return { kind: 'aborted', message: 'aborted while rate limited' };
      }
      const sentAt = transport.now();
      const timeoutMs = Math.max(1, Math.min(transport.config.requestTimeoutMs, this.deadline - sentAt));
      const reply = await exchangeChat(endpoint.http, this.body.for(endpoint.config.model), { timeoutMs, signal: attempt.controller.signal });
      const latencyMs = transport.now() - sentAt;
      // The correction is bookkeeping: a limiter already stopped by close() has nothing to correct.
      if (charged > 0) endpoint.limits.settle(charged, reply.promptTokens + reply.completionTokens).catch(() => {});
      return { reply, latencyMs };
    } catch (error) {
      return classifyFailure(error, transport.now());
    }
  }

  private maybeHedge(attempt: RunningAttempt): void {
    attempt.hedgeTimer = undefined;
    if (this.done || this.hedged || !this.running.has(attempt) || this.waitingRole !== undefined) return;
    if (!this.transport.mayHedge(attempt.lease.probe)) {
      // Over the hedge budget now: look again after another delay, as the budget grows with the
      // calls made. Given up here, an attempt to a hanging endpoint waited for its whole timeout
      // (with the deadline as long as the timeout, its call failed) whenever the calls that found
      // the hang came before the budget had room, as the first rows of `gear judge` do.
      if (this.transport.hedging()) attempt.hedgeTimer = setTimeout(() => this.maybeHedge(attempt), this.transport.hedgeDelayMs());
      return;
    }
    // Counted when asked for, not when its slot comes: calls whose hedge timers fire together must
    // not all pass the cap before any of them is granted a slot.
    this.transport.count('hedges');
    this.requestSlot('hedge');
  }

  /**
   * This call's one attempt (its send time and endpoint) when the call has no hedge yet and waits
   * for no slot; else undefined.
   */
  idleHedgeCandidate(): { sentAt: number; endpoint: JudgeEndpoint } | undefined {
    if (this.done || this.hedged || this.waitingRole !== undefined || this.running.size !== 1) return undefined;
    const attempt = this.running.values().next().value as RunningAttempt;
    return { sentAt: attempt.sentAt, endpoint: attempt.lease.endpoint };
  }

  /** A copy onto a free slot elsewhere (JudgeTransport.hedgeIntoIdle); counted against the hedge budget. */
  hedgeIntoIdle(): void {
    for (const attempt of this.running) {
      if (attempt.hedgeTimer !== undefined) clearTimeout(attempt.hedgeTimer);
      attempt.hedgeTimer = undefined;
    }
    this.idleHedge = true;
    this.transport.count('hedges');
    this.requestSlot('hedge');
  }

  private attemptDone(attempt: RunningAttempt, result: { reply: ExchangeReply; latencyMs: number } | AttemptFailure): void {
    this.running.delete(attempt);
    this.transport.slotFreed();
    if (attempt.hedgeTimer !== undefined) clearTimeout(attempt.hedgeTimer);
    const { lease } = attempt;
    if ('reply' in result) {
      lease.release({ kind: 'success', latencyMs: result.latencyMs });
      this.transport.recordLatency(result.latencyMs);
      if (this.done) return;
      if (attempt.role === 'hedge') this.transport.count('hedgeWins');
      this.finish(result.reply, lease.endpoint.url);
      return;
    }
    if (attempt.lost) {
      // It ran past the hedge delay and another endpoint answered first: a timeout for its breaker.
      const slow = attempt.hedgedAgainst;
      lease.release(slow ? { kind: 'failure', failure: { kind: 'timeout', message: 'lost to a hedge' } } : { kind: 'inconclusive' });
      return;
    }
    if (result.kind === 'aborted') {
      lease.release({ kind: 'inconclusive' });
      return;
    }
    this.transport.emit({ type: 'attempt-failed', endpoint: lease.endpoint.url, failure: result.kind, ...(result.status === undefined ? {} : { status: result.status }), message: result.message });
    lease.release({ kind: 'failure', failure: result });
    if (this.done) return;
    this.lastFailure = { ...result, endpoint: lease.endpoint.url };
    if (!isRetryable(result.kind)) {
      this.fail('client-error', `${lease.endpoint.url}: ${result.message}`);
      return;
    }
    // The other copy may still answer.
    if (this.running.size > 0) return;
    // A hedge still waiting for a slot becomes the retry.
    if (this.waitingRole === 'hedge') this.cancelSlotRequest();
    const delay = this.transport.retryDelay(this.retries + 1, this.lastDelay, result);
    this.lastDelay = delay;
    if (this.transport.now() + delay >= this.deadline) {
      this.fail('deadline', `deadline of ${this.transport.config.deadlineMs} ms passes during the backoff after ${this.attempts} attempts; last: ${lease.endpoint.url}: ${result.message}`);
      return;
    }
    if (result.retryAfterMs !== undefined) this.transport.addRateLimitWait(result.retryAfterMs);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.done) this.requestSlot('retry');
    }, delay);
  }

  private finish(reply: ExchangeReply, endpoint: string): void {
    this.done = true;
    this.cleanup();
    const answer: ChatAnswer = {
      ...reply,
      endpoint,
      attempts: this.attempts,
      retries: this.retries,
      hedged: this.hedged,
      latencyMs: this.transport.now() - this.startedAt,
    };
    // The answer goes on after this turn of the event loop: the replies that arrived with it free
    // their slots and send their next requests first. Delivered at once, each answer's reading,
    // scoring and storing ran before the next reply was even read, so with a fast judge a slot
    // stood idle for the work of every answer ahead of it.
    setImmediate(() => this.settle(answer));
  }

  fail(kind: JudgeTransportErrorKind, message: string): void {
    if (this.done) return;
    this.done = true;
    this.cleanup();
    const last = this.lastFailure;
    this.settle(
      new JudgeTransportError(kind, message, {
        attempts: this.attempts,
        status: kind === 'aborted' ? undefined : last?.status,
        endpoint: last?.endpoint,
        last: last?.kind,
      }),
    );
  }

  /** Stops timers, withdraws a pending slot request, aborts the copies still running. */
  private cleanup(): void {
    if (this.deadlineTimer !== undefined) clearTimeout(this.deadlineTimer);
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.call.signal?.removeEventListener('abort', this.onCallerAbort);
    this.cancelSlotRequest();
    for (const attempt of this.running) {
      attempt.lost = true;
      if (attempt.hedgeTimer !== undefined) clearTimeout(attempt.hedgeTimer);
      attempt.controller.abort();
    }
  }
}
