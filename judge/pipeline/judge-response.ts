import type { CriterionJudgment, JudgeRequest } from '../../adapters/host-adapter.js';
import type { RubricAdapter } from '../../adapters/rubric-adapter.js';
import { isJudgmentRead } from '../../adapters/judge-output/failure-policy.js';
import type { Decoding } from '../transport/chat-call.js';
import { JudgeTransportError } from '../transport/transport-error.js';
import type { JudgeAnswer, JudgeClient } from './judge-client.js';
import type { JudgeOptions } from './judge-options.js';
import { emptyJudgeStats, type JudgeStats } from './judge-stats.js';
import { logprobPs, withLogprobP } from './logprob-p.js';
import type { ParsedRows } from './parsed-rows.js';

/** One judge request as it went: which criteria, what came back (or why nothing did). */
export interface JudgeOutputRecord {
  readonly criteria: readonly number[];
  /** 0 for the first ask, k for the k-th re-ask of criteria left unread. */
  readonly reask: number;
  readonly output: string | null;
  readonly error: string | null;
  readonly cached: boolean;
  readonly endpoint: string | null;
  readonly finishReason: string | null;
}

export interface JudgedCriterion extends CriterionJudgment {
  /** Effective score under the injected scalarizer. */
  readonly effective: number;
  /** p as the judge verbalised it (before the failure policy); null when unread. */
  readonly pVerbalized: number | null;
  /** P(true) of the verdict token, when p is taken from logprobs and the answer had them. */
  readonly pLogprob: number | null;
}

/**
 * Why a criterion has no reading the policy did not have to replace: its request ran out of its
 * deadline (`deadline`: the transport retried every fault until then), the endpoint refused the
 * request (`client-error`, a 4xx), the call was cancelled (`aborted`), or the judge's answer came
 * back but could not be read as a verdict after every re-ask (`unread`: the model's answer), or
 * something else went wrong on the way (`error`).
 */
export type CriterionFailureReason = 'deadline' | 'client-error' | 'aborted' | 'unread' | 'error';

export interface FailedCriterion {
  readonly index: number;
  readonly id: string;
  readonly reason: CriterionFailureReason;
  /** The transport's last error, or what the reading found (the judgment's detail or status). */
  readonly detail: string;
}

export interface JudgeResult {
  readonly host: string;
  readonly aggregator: string;
  readonly method: string;
  readonly reward: number;
  readonly nativeReward: number;
  readonly criteria: readonly JudgedCriterion[];
  readonly failedCriteria: number;
  /** Each criterion the failure policy scored, with why (in criterion order). */
  readonly failures: readonly FailedCriterion[];
  readonly extras: Readonly<Record<string, string>>;
  readonly judge: { readonly stats: JudgeStats; readonly outputs: readonly JudgeOutputRecord[] };
}

interface Asked {
  readonly judgments: CriterionJudgment[];
  /** Set when the request itself failed (no answer to read). */
  readonly failure?: CriterionFailureReason;
  readonly record: JudgeOutputRecord;
  readonly logprobP: (number | undefined)[];
}

/**
 * Judges one response to one host row and scores it: the adapter plans and builds the host's
 * requests, the client sends them (cache, routing, retries below it), the adapter reads the
 * answers; criteria left unread are asked again on their own (at most `maxReasks` times), then the
 * failure policy scores whatever is still unread and the injected scalarizer gives the reward.
 *
 * @throws GearError `invalid_input` for a malformed row; `judge_failed` under the `error` policy.
 */
export async function judgeResponse(
  adapter: RubricAdapter<unknown>,
  client: JudgeClient,
  rowInput: unknown,
  response: string,
  options: JudgeOptions,
  /** Rows already parsed for other responses of the same batch (a GRPO group shares its row). */
  parsedRows?: ParsedRows,
): Promise<JudgeResult> {
  const started = performance.now();
  const format = adapter.format;
  const row = parsedRows === undefined ? format.parseRow(rowInput) : parsedRows.parse(format, rowInput);
  const stats = emptyJudgeStats();
  const outputs: JudgeOutputRecord[] = [];
  const current = new Map<number, CriterionJudgment>();
  const verbalized = new Map<number, number>();
  const fromLogprobs = new Map<number, number>();
  const requestFailures = new Map<number, CriterionFailureReason>();

  const askAll = async (plan: readonly (readonly number[])[], reask: number): Promise<void> => {
    const asked = await Promise.all(plan.map((criteria) => askOnce(format.buildJudgeRequest(row, response, criteria), reask)));
    for (const one of asked) {
      outputs.push(one.record);
      one.judgments.forEach((judgment, k) => {
        const read = isJudgmentRead(judgment);
        // A re-ask only replaces what it read: an earlier reading is never lost to a worse one.
        if (reask > 0 && !read) return;
        if (read) verbalized.set(judgment.index, judgment.p);
        const lp = one.logprobP[k];
        if (read && lp !== undefined) fromLogprobs.set(judgment.index, lp);
        if (one.failure === undefined) requestFailures.delete(judgment.index);
        else requestFailures.set(judgment.index, one.failure);
        current.set(judgment.index, options.pFrom === 'logprobs' ? withLogprobP(judgment, lp, read) : judgment);
      });
    }
  };

  const askOnce = async (request: JudgeRequest, reask: number): Promise<Asked> => {
    stats.requests++;
    if (reask > 0) stats.reasks++;
    const decoding: Decoding =
      reask === 0 ? options.decoding : { ...options.decoding, temperature: options.reaskTemperature, seed: (options.decoding.seed ?? 0) + reask };
    let answer: JudgeAnswer;
    try {
      answer = await client.ask({
        messages: request.messages,
        decoding,
        ...(options.structuredOutput && request.responseSchema !== undefined ? { responseFormat: { name: request.responseSchema.name, schema: { ...request.responseSchema.schema } } } : {}),
        ...(options.pFrom === 'logprobs' ? { logprobs: { top: options.topLogprobs } } : {}),
      });
    } catch (error) {
      stats.failedRequests++;
      const reason = error instanceof Error ? error.message : String(error);
      const judgments = format.parseJudgeOutput(row, request.criteria, undefined).map((j) => ({ ...j, status: 'missing' as const, detail: `judge request failed: ${reason}` }));
      return {
        judgments,
        failure: error instanceof JudgeTransportError ? error.kind : 'error',
        record: { criteria: request.criteria, reask, output: null, error: reason, cached: false, endpoint: null, finishReason: null },
        logprobP: [],
      };
    }
    if (answer.cached) stats.cacheHits++;
    stats.retries += answer.retries;
    if (answer.hedged) stats.hedges++;
    stats.promptTokens += answer.promptTokens;
    stats.completionTokens += answer.completionTokens;
    return {
      judgments: format.parseJudgeOutput(row, request.criteria, answer.content),
      record: { criteria: request.criteria, reask, output: answer.content, error: null, cached: answer.cached, endpoint: answer.endpoint, finishReason: answer.finishReason },
      logprobP: options.pFrom === 'logprobs' ? logprobPs(answer.content, answer.logprobs, request.criteria.length) : [],
    };
  };

  await askAll(format.planJudgeRequests(row), 0);
  for (let reask = 1; reask <= options.maxReasks; reask++) {
    // Criteria whose request failed outright are not re-asked: the transport already retried them.
    const unread = [...current.values()]
      .filter((j) => !isJudgmentRead(j) && !(j.detail ?? '').startsWith('judge request failed'))
      .map((j) => j.index)
      .sort((a, b) => a - b);
    if (unread.length === 0) break;
    await askAll(format.planJudgeRequests(row, unread), reask);
  }

  // Criteria no request covered (e.g. rule-verified ones the host checks itself) read as missing there.
  const scored = adapter.scoreJudgedRow(row, [...current.values()], options.onJudgeFailure);
  stats.failedCriteria = scored.failedCriteria;
  stats.latencyMs = performance.now() - started;
  return {
    host: scored.host,
    aggregator: scored.aggregator,
    method: scored.method,
    reward: scored.reward,
    nativeReward: scored.nativeReward,
    criteria: scored.judgments.map((j, i) => ({
      ...j,
      effective: scored.effective[i] ?? 0,
      pVerbalized: verbalized.get(i) ?? null,
      pLogprob: fromLogprobs.get(i) ?? null,
    })),
    failedCriteria: scored.failedCriteria,
    failures: scored.judgments
      .filter((j) => !isJudgmentRead(j))
      .map((j) => ({ index: j.index, id: j.id, reason: requestFailures.get(j.index) ?? 'unread', detail: j.detail ?? j.status })),
    extras: scored.extras,
    judge: { stats, outputs },
  };
}
