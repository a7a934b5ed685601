import { countsAgainstBreaker, type AttemptFailure } from './attempt-failure.js';
import {
  INITIAL_BREAKER,
  breakerAdmits,
  breakerDispatch,
  breakerFailure,
  breakerInconclusive,
  breakerPanicSuccess,
  breakerSuccess,
  breakerView,
  type BreakerConfig,
  type BreakerState,
} from './circuit-breaker.js';
import { ChatHttpClient } from './chat-http.js';
import { initialLimit, limitOverload, limitSuccess, slotsOf, type AdaptiveLimit } from './adaptive-limit.js';
import { metricsUrlOf, type EndpointConfig } from './endpoint-config.js';
import { LatencyWindow } from './latency-window.js';
import { EndpointRateLimits } from './rate-limits.js';
import { probeServerLoad } from './server-load-probe.js';
import type { EndpointInfo, TransportEvent } from './transport-info.js';

/** The metrics page is read at most this often, by one probe at a time (as the official sampler's interval). */
const LOAD_REFRESH_MS = 2000;
const LOAD_PROBE_TIMEOUT_MS = 5000;

export type AttemptResult =
  | { readonly kind: 'success'; readonly latencyMs: number }
  | { readonly kind: 'failure'; readonly failure: AttemptFailure }
  /** Cancelled by us before a verdict (the call ended elsewhere). */
  | { readonly kind: 'inconclusive' };

export interface EndpointDeps {
  readonly now: () => number;
  readonly breaker: BreakerConfig;
  readonly estimatedTokensPerRequest: number;
  readonly requestTimeoutMs: number;
  /** AIMD on 429 / 503 (adaptive-limit.ts); off: maxConcurrent always. */
  readonly adaptiveConcurrency: boolean;
  readonly emit: (event: TransportEvent) => void;
  /** Something routing depends on changed (load figure, health). */
  readonly changed: () => void;
}

/** One endpoint's client and live state: breaker, in-flight count, latencies, load, limits. */
export class JudgeEndpoint {
  readonly url: string;
  readonly http: ChatHttpClient;
  readonly limits: EndpointRateLimits;
  readonly latency = new LatencyWindow(128);
  inFlight = 0;
  served = 0;
  failures = 0;
  /** Dispatch order of the last request sent here (ties go to the least recently used). */
  lastUsed = 0;
  rateLimitedUntil = 0;
  private breaker: BreakerState = INITIAL_BREAKER;
  private adaptive: AdaptiveLimit;
  private serverLoad: { running: number; waiting: number; at: number } | undefined;
  private loadProbe: AbortController | undefined;
  private lastLoadProbeAt = -Infinity;
  private closed = false;

  constructor(
    readonly config: EndpointConfig,
    private readonly deps: EndpointDeps,
  ) {
    this.url = config.url;
    this.http = new ChatHttpClient(config.url, config.apiKey);
    this.limits = new EndpointRateLimits(config, deps.estimatedTokensPerRequest);
    this.adaptive = initialLimit(config.maxConcurrent);
  }

  /** Not ejected, no probe out, no Retry-After pending: a request could go here (capacity aside). */
  acceptsTraffic(now: number): boolean {
    return breakerAdmits(this.breaker, now) && now >= this.rateLimitedUntil;
  }

  /** Its breaker lets a request through now (healthy, or an ejection over with no probe out). */
  breakerAdmits(now: number): boolean {
    return breakerAdmits(this.breaker, now);
  }

  /** A Retry-After keeps traffic away until it passes. */
  resting(now: number): boolean {
    return now < this.rateLimitedUntil;
  }

  /** Requests this endpoint may have in flight now: maxConcurrent, or less after 429s / 503s (AIMD). */
  concurrencyLimit(): number {
    return this.deps.adaptiveConcurrency ? Math.min(this.config.maxConcurrent, slotsOf(this.adaptive)) : this.config.maxConcurrent;
  }

  hasCapacity(): boolean {
    return this.inFlight < this.concurrencyLimit();
  }

  /** Outstanding requests: ours plus, when probed, the server's running + waiting. */
  load(): number {
    return this.inFlight + (this.serverLoad === undefined ? 0 : this.serverLoad.running + this.serverLoad.waiting);
  }

  /** When this endpoint's availability next changes by time alone (ejection or Retry-After ending). */
  wakeAt(now: number): number | undefined {
    const times: number[] = [];
    if (this.breaker.state === 'ejected' && this.breaker.until > now) times.push(this.breaker.until);
    if (this.rateLimitedUntil > now) times.push(this.rateLimitedUntil);
    return times.length === 0 ? undefined : Math.min(...times);
  }

  /**
   * Takes a slot; returns whether this request is the breaker's half-open probe. `panic`: every
   * endpoint is ejected and this one gets the request anyway (never a probe; its answer restores it).
   */
  dispatch(now: number, order: number, panic = false): boolean {
    if (panic) {
      this.inFlight++;
      this.lastUsed = order;
      return false;
    }
    const step = breakerDispatch(this.breaker, now);
    if (step === undefined) throw new Error(`dispatch to ${this.url} while it admits no traffic`);
    this.breaker = step.state;
    this.inFlight++;
    this.lastUsed = order;
    return step.probe;
  }

  /**
   * Gives the slot back and feeds the result to the breaker and the concurrency limit. `order`:
   * the request's dispatch order; `panic`: it was sent while every endpoint was ejected.
   */
  finish(probe: boolean, result: AttemptResult, order = this.lastUsed, panic = false): void {
    this.inFlight--;
    const now = this.deps.now();
    if (result.kind === 'success') {
      this.served++;
      this.latency.add(result.latencyMs);
      this.adaptive = limitSuccess(this.adaptive, this.config.maxConcurrent);
      const before = this.breaker;
      const after = panic ? breakerPanicSuccess(before) : breakerSuccess(before, probe);
      this.breaker = after;
      if (before.state !== 'healthy' && after.state === 'healthy') this.deps.emit({ type: 'restored', endpoint: this.url });
    } else if (result.kind === 'inconclusive') {
      this.breaker = breakerInconclusive(this.breaker, probe);
    } else {
      const { failure } = result;
      // A Retry-After (on a 429, or a 503) keeps traffic away until it passes.
      if (failure.retryAfterMs !== undefined && failure.retryAfterMs > 0) {
        this.rateLimitedUntil = Math.max(this.rateLimitedUntil, now + failure.retryAfterMs);
        this.deps.emit({ type: 'rate-limited', endpoint: this.url, until: this.rateLimitedUntil });
      }
      // The server says it has too much (429, 503): fewer requests in flight here, for a while.
      if (failure.kind === 'rate-limited' || failure.status === 503) {
        const before = this.concurrencyLimit();
        this.adaptive = limitOverload(this.adaptive, order, this.lastUsed);
        const after = this.concurrencyLimit();
        if (after < before) this.deps.emit({ type: 'concurrency-lowered', endpoint: this.url, limit: after });
      }
      if (failure.kind === 'rate-limited') {
        this.breaker = breakerInconclusive(this.breaker, probe);
      } else if (countsAgainstBreaker(failure.kind)) {
        this.failed(probe, now);
      } else {
        // A 4xx the caller caused says the server is up.
        this.breaker = failure.kind === 'client-error' ? breakerSuccess(this.breaker, probe) : breakerInconclusive(this.breaker, probe);
      }
    }
  }

  private failed(probe: boolean, now: number): void {
    this.failures++;
    const before = this.breaker;
    this.breaker = breakerFailure(this.breaker, probe, now, this.deps.breaker);
    if (this.breaker.state === 'ejected' && before.state !== 'ejected') {
      this.serverLoad = undefined;
      this.deps.emit({ type: 'ejected', endpoint: this.url, until: this.breaker.until, ejections: this.breaker.ejections });
    }
  }

  /**
   * Starts a metrics probe when load figures are on, the endpoint is healthy, none is out and the
   * last is 2 s old. A probe that gets no answer (or a 5xx) is a breaker failure, not load 0.
   */
  refreshLoad(): void {
    const now = this.deps.now();
    if (!this.config.metrics || this.closed || this.loadProbe !== undefined) return;
    if (this.breaker.state !== 'healthy' || now - this.lastLoadProbeAt < LOAD_REFRESH_MS) return;
    this.lastLoadProbeAt = now;
    const controller = new AbortController();
    this.loadProbe = controller;
    const timeout = Math.min(LOAD_PROBE_TIMEOUT_MS, this.deps.requestTimeoutMs);
    void probeServerLoad(metricsUrlOf(this.url), timeout, controller.signal).then((result) => {
      this.loadProbe = undefined;
      if (this.closed) return;
      const at = this.deps.now();
      // The probe's time is when it ended: a slow probe waits its full interval before the next.
      this.lastLoadProbeAt = at;
      if (result.ok) {
        this.serverLoad = result.load === undefined ? undefined : { ...result.load, at };
      } else {
        this.deps.emit({ type: 'load-probe-failed', endpoint: this.url, down: result.down, message: result.message });
        if (result.down) this.failed(false, at);
      }
      this.deps.changed();
    });
  }

  info(now: number): EndpointInfo {
    const p50 = this.latency.quantile(0.5);
    const p95 = this.latency.quantile(0.95);
    return {
      url: this.url,
      model: this.config.model,
      state: breakerView(this.breaker, now),
      inFlight: this.inFlight,
      maxConcurrent: this.config.maxConcurrent,
      concurrencyLimit: this.concurrencyLimit(),
      served: this.served,
      failures: this.failures,
      ejections: this.breaker.ejections,
      ejectedUntil: this.breaker.state === 'ejected' && this.breaker.until > now ? this.breaker.until : null,
      rateLimitedUntil: this.rateLimitedUntil > now ? this.rateLimitedUntil : null,
      latencyP50Ms: p50 ?? null,
      latencyP95Ms: p95 ?? null,
      serverLoad: this.serverLoad ?? null,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.loadProbe?.abort();
    await Promise.all([this.limits.stop(), this.http.close()]);
  }
}
