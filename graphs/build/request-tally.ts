import type { JudgeAnswer } from '../../judge/pipeline/judge-client.js';

/** The LLM requests of one row's annotation, counted. */
export interface RequestTally {
  requests: number;
  cached: number;
  failed: number;
  promptTokens: number;
  completionTokens: number;
}

export function emptyTally(): RequestTally {
  return { requests: 0, cached: 0, failed: 0, promptTokens: 0, completionTokens: 0 };
}

export function countAnswer(tally: RequestTally, answer: JudgeAnswer): void {
  tally.requests++;
  if (answer.cached) tally.cached++;
  tally.promptTokens += answer.promptTokens;
  tally.completionTokens += answer.completionTokens;
}
