import type { JudgeAnswer } from '../../judge/pipeline/judge-client.js';

/** The LLM requests of one row's annotation, counted. */
export interface RequestTally {
  requests: number;
  cached: number;
  failed: number;
  promptTokens: number;
  /** Of promptTokens, those the server reused from its prompt cache (what it did not have to evaluate). */
  cachedPromptTokens: number;
  completionTokens: number;
}

export function emptyTally(): RequestTally {
  return { requests: 0, cached: 0, failed: 0, promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0 };
}

export function countAnswer(tally: RequestTally, answer: JudgeAnswer): void {
  tally.requests++;
  if (answer.cached) tally.cached++;
  tally.promptTokens += answer.promptTokens;
  // A replayed answer evaluated nothing this run: all of its prompt counts as reused.
  tally.cachedPromptTokens += answer.cached ? answer.promptTokens : (answer.cachedPromptTokens ?? 0);
  tally.completionTokens += answer.completionTokens;
}
