/** What judging cost and how it went, per response and summed over a run. */
export interface JudgeStats {
  /** Judge requests the pipeline made (first asks and re-asks), cache hits included. */
  requests: number;
  /** Of those, answered from the cache (no LLM call). */
  cacheHits: number;
  /** HTTP attempts beyond the first, over all requests (transport retries). */
  retries: number;
  /** Requests that were hedged to a second endpoint. */
  hedges: number;
  /** Requests re-asking criteria whose verdict could not be read. */
  reasks: number;
  /** Criteria whose verdict could not be read after every re-ask (scored by the failure policy). */
  failedCriteria: number;
  /** Requests that failed outright (endpoint errors after every retry). */
  failedRequests: number;
  promptTokens: number;
  completionTokens: number;
  /** Wall time from the first request to the last answer of this response, ms. */
  latencyMs: number;
}

export function emptyJudgeStats(): JudgeStats {
  return { requests: 0, cacheHits: 0, retries: 0, hedges: 0, reasks: 0, failedCriteria: 0, failedRequests: 0, promptTokens: 0, completionTokens: 0, latencyMs: 0 };
}

/** Adds `more` into `into` (latency adds up: a run's total judge time). */
export function addJudgeStats(into: JudgeStats, more: Readonly<JudgeStats>): JudgeStats {
  for (const key of Object.keys(into) as (keyof JudgeStats)[]) into[key] += more[key];
  return into;
}
