/**
 * One endpoint's adaptive concurrency limit, AIMD as TCP's congestion window does it: a 429 or a
 * 503 (the server saying it has too much) halves the limit, at most once per round of requests
 * (the overloads of requests sent before the last decrease are the same overload, not a new one),
 * never below 1; each success adds 1/limit, so the limit climbs by about one per round of
 * successes, back to the configured `maxConcurrent`. Pure: the endpoint keeps the state.
 *
 * Why hand-written: npm has no maintained AIMD limiter (Netflix's concurrency-limits is Java);
 * the rule is these two lines, and the property test pins its bounds.
 */
export interface AdaptiveLimit {
  /** The current limit (fractional between increases; requests in flight stay below its floor). */
  readonly limit: number;
  /** Dispatch order of the last request sent before the last decrease: later overloads count again. */
  readonly decreasedAt: number;
}

export function initialLimit(max: number): AdaptiveLimit {
  return { limit: max, decreasedAt: -1 };
}

/** Requests that may be in flight under the limit. */
export function slotsOf(s: AdaptiveLimit): number {
  return Math.max(1, Math.floor(s.limit));
}

/** A success: additive increase, capped at `max`. */
export function limitSuccess(s: AdaptiveLimit, max: number): AdaptiveLimit {
  if (s.limit >= max) return s.limit === max ? s : { ...s, limit: max };
  return { ...s, limit: Math.min(max, s.limit + 1 / s.limit) };
}

/**
 * An overload (429, 503) of the request dispatched `order`-th; `lastOrder` is the latest dispatch
 * so far. Halves the limit unless a decrease already answered a request sent after this one.
 */
export function limitOverload(s: AdaptiveLimit, order: number, lastOrder: number): AdaptiveLimit {
  if (order <= s.decreasedAt) return s;
  return { limit: Math.max(1, s.limit / 2), decreasedAt: lastOrder };
}
