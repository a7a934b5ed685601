/**
 * Why one HTTP attempt failed, and what that means:
 * - connection, timeout, server-error (5xx), request-timeout (408), bad-response (unreadable or
 *   empty reply): retried, and a failure for the endpoint's circuit breaker;
 * - rate-limited (429): retried; not a breaker failure, but the endpoint rests until Retry-After;
 * - client-error (other 4xx): not retried;
 * - aborted: we cancelled it (the call ended, or a hedge won).
 */
export type FailureKind =
  | 'connection'
  | 'timeout'
  | 'server-error'
  | 'request-timeout'
  | 'rate-limited'
  | 'bad-response'
  | 'client-error'
  | 'aborted';

export interface AttemptFailure {
  readonly kind: FailureKind;
  readonly status?: number;
  /** From Retry-After / retry-after-ms on a 429 (or 503). */
  readonly retryAfterMs?: number;
  readonly message: string;
}

/** A 2xx reply that is not a usable chat completion (garbage body, no choices, empty content). */
export class MalformedReplyError extends Error {
  override readonly name = 'MalformedReplyError';
}

/** A non-2xx reply; `headers` gives Retry-After. */
export class HttpStatusError extends Error {
  override readonly name = 'HttpStatusError';
  constructor(
    readonly status: number,
    readonly headers: HeaderLookup,
    message: string,
  ) {
    super(message);
  }
}

/** The attempt's own timeout passed before the whole reply was in. */
export class AttemptTimeoutError extends Error {
  override readonly name = 'AttemptTimeoutError';
}

/** The caller cancelled the attempt (its call ended, or a hedge won). */
export class AttemptAbortedError extends Error {
  override readonly name = 'AttemptAbortedError';
}

/** No reply: refused, reset, DNS, TLS, a socket closed mid-body. */
export class ConnectionFailedError extends Error {
  override readonly name = 'ConnectionFailedError';
}

/** What Retry-After is read from (a fetch `Headers` is one). */
export interface HeaderLookup {
  get(name: string): string | null;
}

export function countsAgainstBreaker(kind: FailureKind): boolean {
  return kind === 'connection' || kind === 'timeout' || kind === 'server-error' || kind === 'request-timeout' || kind === 'bad-response';
}

export function isRetryable(kind: FailureKind): boolean {
  return kind !== 'client-error' && kind !== 'aborted';
}

export function classifyFailure(error: unknown, nowMs: number): AttemptFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof AttemptAbortedError) return { kind: 'aborted', message };
  if (error instanceof AttemptTimeoutError) return { kind: 'timeout', message };
  if (error instanceof ConnectionFailedError) return { kind: 'connection', message };
  if (error instanceof HttpStatusError) {
    const status = error.status;
    const retryAfterMs = parseRetryAfterMs(error.headers, nowMs);
    const extra = retryAfterMs === undefined ? {} : { retryAfterMs };
    if (status === 429) return { kind: 'rate-limited', status, message, ...extra };
    if (status === 408) return { kind: 'request-timeout', status, message };
    if (status >= 500) return { kind: 'server-error', status, message, ...extra };
    return { kind: 'client-error', status, message };
  }
  return { kind: 'bad-response', message };
}

/**
 * Retry-After as the OpenAI SDKs read it: `retry-after-ms` (milliseconds), else `retry-after` as
 * seconds or an HTTP date. Undefined when absent or unreadable.
 */
export function parseRetryAfterMs(headers: HeaderLookup | undefined, nowMs: number): number | undefined {
  if (headers === undefined) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

export interface BackoffConfig {
  readonly baseMs: number;
  /** The longest wait when no endpoint has answered lately, or after a 429 / 503 without Retry-After. */
  readonly capMs: number;
  /**
   * The longest wait after a 5xx, a timeout, a dropped connection or an unusable body while some
   * endpoint keeps answering (one answered within the last capMs): the endpoint is alive, and a
   * flake there is retried promptly instead of after seconds.
   */
  readonly answeringCapMs: number;
  /** decorrelated: min(cap, uniform(base, 3 x the last wait)); full: uniform(0, min(cap, base x 2^(retry-1))); none: the ceiling. */
  readonly jitter: 'decorrelated' | 'full' | 'none';
}

/** Exponential backoff before retry number `retry` (1-based), with AWS-style full jitter (or none). */
export function backoffMs(retry: number, config: Pick<BackoffConfig, 'baseMs' | 'capMs' | 'jitter'>, random: () => number = Math.random): number {
  const ceiling = Math.min(config.capMs, config.baseMs * 2 ** Math.max(0, retry - 1));
  return config.jitter === 'full' ? random() * ceiling : ceiling;
}

/**
 * The wait before retry number `retry` (1-based) of a call whose last wait was `lastMs` (undefined
 * before its first retry), capped at `capMs`. With decorrelated jitter (the AWS Architecture
 * Blog's "Exponential Backoff and Jitter"): min(cap, uniform(base, 3 x last)), so the waits of
 * many calls failing together spread out, and a call that keeps failing backs off exponentially
 * on average.
 */
export function retryDelayMs(retry: number, lastMs: number | undefined, capMs: number, config: BackoffConfig, random: () => number = Math.random): number {
  if (config.jitter !== 'decorrelated') return backoffMs(retry, { ...config, capMs }, random);
  const low = Math.min(config.baseMs, capMs);
  const high = Math.max(low, 3 * (lastMs ?? config.baseMs));
  return Math.min(capMs, low + random() * (high - low));
}
