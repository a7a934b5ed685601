import { describe } from './distribution.js';
import type { JudgeStatsLine } from './input-line.js';
import type { JudgeHealth } from './report-model.js';

/** Judge health over score and judge lines: failed criteria, read statuses, and `gear judge`'s stats. */
export class JudgeHealthSums {
  private responses = 0;
  private failedCriteria = 0;
  private responsesWithFailed = 0;
  private readonly statuses: Record<string, number> = {};
  private judged = 0;
  private readonly totals = { requests: 0, cache_hits: 0, retries: 0, hedges: 0, reasks: 0, failed_requests: 0, prompt_tokens: 0, completion_tokens: 0 };
  private readonly latencies: number[] = [];

  add(failedCriteria: number, statuses: readonly string[], judge: JudgeStatsLine | null): void {
    this.responses += 1;
    this.failedCriteria += failedCriteria;
    if (failedCriteria > 0) this.responsesWithFailed += 1;
    for (const s of statuses) this.statuses[s] = (this.statuses[s] ?? 0) + 1;
    if (judge === null) return;
    this.judged += 1;
    const t = this.totals;
    t.requests += judge.requests;
    t.cache_hits += judge.cacheHits;
    t.retries += judge.retries;
    t.hedges += judge.hedges;
    t.reasks += judge.reasks;
    t.failed_requests += judge.failedRequests;
    t.prompt_tokens += judge.promptTokens;
    t.completion_tokens += judge.completionTokens;
    this.latencies.push(judge.latencyMs);
  }

  health(): JudgeHealth | null {
    if (this.responses === 0) return null;
    return {
      responses: this.responses,
      failed_criteria: this.failedCriteria,
      responses_with_failed_criteria: this.responsesWithFailed,
      criteria_by_status: Object.fromEntries(Object.entries(this.statuses).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      judged: this.judged === 0 ? null : { responses: this.judged, ...this.totals, latency_ms: describe(this.latencies, undefined, 30) },
    };
  }
}
