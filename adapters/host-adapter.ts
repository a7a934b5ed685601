import type { AggregationOptionsInput, Rubric } from '../core/index.js';

export type HostName = 'ruscarl' | 'rar-explicit' | 'merf' | 'gear' | 'writingbench' | 'plawbench';

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/**
 * The JSON schema of exactly the answer a host's parser reads, for judges that constrain decoding
 * (`response_format: {type: "json_schema", json_schema: {name, schema, strict: true}}`). It travels
 * beside the prompt and never changes the prompt's bytes.
 */
export interface JudgeResponseSchema {
  /** ^[A-Za-z0-9_-]{1,64}$, as OpenAI-compatible servers require. */
  readonly name: string;
  readonly schema: Readonly<Record<string, unknown>>;
}

/** One call to the judge model, exactly as the host would send it. */
export interface JudgeRequest {
  readonly messages: readonly ChatMessage[];
  /** The criteria (rubric positions) this request judges, in the order of the prompt's keys "1".."n". */
  readonly criteria: readonly number[];
  readonly responseSchema?: JudgeResponseSchema;
}

/**
 * How a criterion's judgment was read. Readable: `ok`, `flipped` (a probability on the wrong side
 * of the boolean, read as 1 - p as the host does), `clamped` (a number outside its range, clamped
 * as the host does), `partial` (some subitems unanswered, counted as not met as the host does).
 * Unread: `missing`, `unparsable`, `invalid-value`, `duplicate`; the parser reports them with
 * p = 0 and met = false, and RubricAdapter.score replaces that with the failure policy's value
 * (judge-output/failure-policy.ts: by default an unread penalty counts as applied).
 */
export type JudgmentStatus =
  | 'ok'
  | 'flipped'
  | 'clamped'
  | 'partial'
  | 'missing'
  | 'unparsable'
  | 'invalid-value'
  | 'duplicate';

export interface CriterionJudgment {
  readonly index: number;
  readonly id: string;
  /** Local score p in [0, 1] handed to the scalarizer. */
  readonly p: number;
  /** The judge's own decision. */
  readonly met: boolean;
  readonly status: JudgmentStatus;
  readonly detail?: string;
}

/** The host format's parts that are not scalarization but travel with it. */
export type HostExtras = Readonly<Record<string, string>>;

/**
 * One host reward format: its rubric rows, its judge protocol, and its native scalarization.
 * Everything here is independent of the scalarizer (conformance checks that byte for byte).
 * Judge requests are planned, built and read one at a time, so a judge can re-ask only the
 * criteria it could not read; `buildJudgeRequests` and `parseJudgeOutputs` are the same three
 * steps over the whole plan (adapters/judge-requests.ts).
 */
export interface HostFormat<Row> {
  readonly host: HostName;
  /** @throws GearError `invalid_input` naming the field of a malformed row. */
  parseRow(row: unknown): Row;
  /** The canonical rubric (weights as the host scores them, plus the row's graph if any). */
  toRubric(row: Row): Rubric;
  /** Normalization the host's native formula uses, so a flat scalarizer reproduces it. */
  readonly scalarOptions: AggregationOptionsInput;
  /**
   * Rubric positions judged together in one request, in request order (the host's batching).
   * `only` restricts to those positions (re-asks): the host's batching applied to just them.
   * Criteria the host never sends to an LLM judge (rule-verified) are in no request.
   * @throws GearError `invalid_input` when `only` names a position outside the rubric.
   */
  planJudgeRequests(row: Row, only?: readonly number[]): readonly (readonly number[])[];
  /**
   * The request for exactly these criteria (one element of a plan). A batch host numbers them
   * "1".."n" in the given order, as its prompt would for a rubric of just those items.
   * @throws GearError `invalid_input` when `criteria` is empty or names a position outside the rubric.
   */
  buildJudgeRequest(row: Row, response: string, criteria: readonly number[]): JudgeRequest;
  /**
   * Reads one request's raw output (undefined = no output) into judgments for exactly `criteria`,
   * in that order, as the host reads it where the host's reading is sane. Never throws on hostile
   * text; an unreadable criterion comes back with an unread status, p = 0 and met = false (the
   * failure policy decides what it counts as).
   */
  parseJudgeOutput(row: Row, criteria: readonly number[], raw: string | undefined): CriterionJudgment[];
  /** Every request of the full plan, in order. */
  buildJudgeRequests(row: Row, response: string): JudgeRequest[];
  /**
   * Reads one raw output per request of the full plan into judgments in rubric order; a
   * criterion in no request gets `notJudged`'s reading.
   */
  parseJudgeOutputs(row: Row, rawOutputs: readonly (string | undefined)[]): CriterionJudgment[];
  /** The host's own reward from the judgments (failure policy already applied), written as the host writes it. */
  nativeReward(row: Row, judgments: readonly CriterionJudgment[]): number;
  extras(row: Row): HostExtras;
}
