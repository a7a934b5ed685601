import type { FailureKind } from './attempt-failure.js';
import type { BreakerView } from './circuit-breaker.js';
import type { PrefixAffinityStats } from './prefix-affinity.js';

export interface EndpointInfo {
  readonly url: string;
  readonly model: string;
  readonly state: BreakerView;
  readonly inFlight: number;
  readonly maxConcurrent: number;
  /** Requests allowed in flight now: maxConcurrent, lowered after 429s / 503s and climbing back on successes (AIMD). */
  readonly concurrencyLimit: number;
  /** Successful answers. */
  readonly served: number;
  /** Failed attempts that count against the breaker (plus failed metrics probes). */
  readonly failures: number;
  readonly ejections: number;
  /** Epoch ms when the current ejection ends; null unless ejected. */
  readonly ejectedUntil: number | null;
  /** Epoch ms until which a Retry-After keeps traffic away; null if none. */
  readonly rateLimitedUntil: number | null;
  readonly latencyP50Ms: number | null;
  readonly latencyP95Ms: number | null;
  /** vllm:num_requests_running + waiting at the last metrics probe (null when not probed). */
  readonly serverLoad: { readonly running: number; readonly waiting: number; readonly at: number } | null;
}

export interface TransportTotals {
  /** complete() calls. */
  readonly requests: number;
  readonly retries: number;
  readonly hedges: number;
  /** Hedges that answered first. */
  readonly hedgeWins: number;
  /** Time spent waiting on rpm/tpm limits and on Retry-After. */
  readonly rateLimitWaitsMs: number;
}

export interface TransportInfo {
  /** How long a request is retried through transport faults, from its first send. */
  readonly deadlineMs: number;
  readonly endpoints: readonly EndpointInfo[];
  readonly totals: TransportTotals;
  /** Prefix-aware routing's counts of attempts (absent when it is off or there is one endpoint). */
  readonly prefixAffinity?: PrefixAffinityStats & { readonly entries: number };
}

export type TransportEvent =
  | { readonly type: 'attempt-failed'; readonly endpoint: string; readonly failure: FailureKind; readonly status?: number; readonly message: string }
  | { readonly type: 'ejected'; readonly endpoint: string; readonly until: number; readonly ejections: number }
  | { readonly type: 'restored'; readonly endpoint: string }
  | { readonly type: 'hedge'; readonly from: string; readonly to: string; readonly afterMs: number }
  | { readonly type: 'rate-limited'; readonly endpoint: string; readonly until: number }
  | { readonly type: 'concurrency-lowered'; readonly endpoint: string; readonly limit: number }
  | { readonly type: 'load-probe-failed'; readonly endpoint: string; readonly down: boolean; readonly message: string };
