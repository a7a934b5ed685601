import { z } from 'zod';
import { AggregatorNameSchema, GearError, RelationSchema } from '../../core/index.js';
import { SUPPORTED_HOSTS, type SupportedHost } from '../../adapters/container.js';
import type { RubricSource } from './rubric-cache.js';
import { WireEncodingValues } from './float64-base64.js';

/**
 * One zod schema per method's params. Schemas check the envelope (which fields, which types);
 * rubric contents, scores and options are checked by core, which names the exact field too.
 */
const RUBRIC_ID = /^sha256:[0-9a-f]{64}$/;

const RubricRefFields = {
  rubricId: z.string().regex(RUBRIC_ID, 'must be "sha256:" followed by 64 lowercase hex digits').optional(),
  rubric: z.unknown().optional(),
  reward_model: z.unknown().optional(),
};

export type RubricRef =
  | { readonly kind: 'id'; readonly rubricId: string }
  | { readonly kind: 'inline'; readonly source: RubricSource };

/** Exactly one of rubricId, rubric, reward_model. @throws GearError naming the fields. */
export function rubricRefOf(fields: { rubricId?: string | undefined; rubric?: unknown; reward_model?: unknown }, at: readonly (string | number)[]): RubricRef {
  const given = (['rubricId', 'rubric', 'reward_model'] as const).filter((k) => fields[k] !== undefined);
  if (given.length !== 1) {
    const detail = given.length === 0 ? 'missing: give one of rubricId, rubric, reward_model' : `give only one of ${given.join(', ')}`;
    throw new GearError('invalid_input', [...at, given[1] ?? 'rubricId'], detail);
  }
  if (fields.rubricId !== undefined) return { kind: 'id', rubricId: fields.rubricId };
  if (fields.rubric !== undefined) return { kind: 'inline', source: { format: 'canonical', rubric: fields.rubric } };
  return { kind: 'inline', source: { format: 'official-gear', reward_model: fields.reward_model } };
}

export const ScoresSchema = z.strictObject({ p: z.unknown(), d: z.unknown().optional() });

const Aggregation = {
  aggregator: AggregatorNameSchema.optional(),
  options: z.unknown().optional(),
};

/** How score vectors travel: JSON numbers (default) or float64-base64 (scores.p in, effective out). */
const Encoding = { encoding: z.enum(WireEncodingValues).optional() };

export const EmptyParamsSchema = z.union([z.strictObject({}), z.array(z.never()).max(0), z.undefined()]);

export const RegisterParamsSchema = z.strictObject({
  rubric: z.unknown().optional(),
  reward_model: z.unknown().optional(),
  options: z.unknown().optional(),
});

export const RegisterItemSchema = z.strictObject({ rubric: z.unknown().optional(), reward_model: z.unknown().optional() });

/** Items stay unknown here: a bad rubric is data in the result, not a failed request. */
export const RegisterBatchParamsSchema = z.strictObject({ items: z.array(z.unknown()), options: z.unknown().optional() });

export const ScoreItemSchema = z.strictObject({
  ...RubricRefFields,
  scores: ScoresSchema,
  ...Aggregation,
  /** Adds `explain` to the result: every aggregator's scores, the graph, what each edge cut. */
  explain: z.boolean().optional(),
});
export type ScoreItem = z.infer<typeof ScoreItemSchema>;

export const ScoreParamsSchema = ScoreItemSchema.extend(Encoding);

/**
 * Other aggregators whose rewards a result also carries (`also`), computed from the same reading of
 * the judge's outputs: what a trainer logs beside its reward, without a second request.
 */
export const AlsoAggregatorsSchema = z.array(AggregatorNameSchema).max(5);

/** Items stay unknown here: a bad item is data in the result, not a failed request. */
export const ScoreBatchParamsSchema = z.strictObject({ items: z.array(z.unknown()), alsoAggregators: AlsoAggregatorsSchema.optional(), ...Aggregation, ...Encoding });


/** A column's rubric in `rubrics`: a registered id, or the rubric itself (registered by the request). */
export const ColumnRubricSchema = z.strictObject(RubricRefFields);

/** What diagnostics.fcp (and rubric.scoreColumns' `fcp`) computes: aggregators, support threshold, relations. */
const FcpSettings = {
  aggregators: z.array(AggregatorNameSchema.exclude(['auto'])).min(1).optional(),
  threshold: z.number().min(0).max(1).optional(),
  relations: z.array(RelationSchema).min(1).optional(),
};

export const FcpSettingsSchema = z.strictObject(FcpSettings);

export const ScoreColumnsParamsSchema = z.strictObject({
  /** One registered rubric id per response. */
  rubricIds: z.array(z.string().regex(RUBRIC_ID, 'must be "sha256:" followed by 64 lowercase hex digits')).optional(),
  /**
   * Instead of `rubricIds`: the request's distinct rubrics (entries stay unknown here; each is
   * checked at `rubrics[k]`), each a `{rubricId}` or an inline `{rubric}` / `{reward_model}` that the
   * request registers, and `rubricIndex`, one index into `rubrics` per response. A step's new
   * rubrics then cost no separate rubric.registerBatch round trip.
   */
  rubrics: z.array(z.unknown()).optional(),
  rubricIndex: z.array(z.number().int().nonnegative()).optional(),
  p: z.string(),
  /** Judge decisions for hard gating, concatenated like p (optional). */
  d: z.array(z.boolean()).optional(),
  alsoAggregators: AlsoAggregatorsSchema.optional(),
  /** Adds `fcp`: the diagnostics.fcp report of the same scores (the responses scored without error). */
  fcp: FcpSettingsSchema.optional(),
  ...Aggregation,
});

const HostSchema = z.enum(SUPPORTED_HOSTS as [SupportedHost, ...SupportedHost[]]);

export const HostRequestsParamsSchema = z.strictObject({ host: HostSchema, row: z.unknown(), response: z.string() });


export const HostScoreItemSchema = z.strictObject({
  host: HostSchema.optional(),
  /** The host's row; absent when `rowIndex` names one of the batch's `rows`. */
  row: z.unknown().optional(),
  /** Instead of `row`: the index of the batch's `rows` entry this response answers (rows shared by a group travel once). */
  rowIndex: z.number().int().nonnegative().optional(),
  /** The response judged. Not read when scoring (the judge's outputs carry the verdicts), so optional. */
  response: z.string().optional(),
  judgeOutputs: z.array(z.string()),
  /** What an unread criterion counts as (adapters/judge-output/failure-policy.ts); pessimistic by default. */
  onJudgeFailure: z.enum(['pessimistic', 'official', 'error']).optional(),
  ...Aggregation,
});
export type HostScoreItem = z.infer<typeof HostScoreItemSchema>;

export const HostScoreParamsSchema = HostScoreItemSchema.omit({ rowIndex: true }).extend({ host: HostSchema, row: z.unknown(), alsoAggregators: AlsoAggregatorsSchema.optional() });

export const HostScoreBatchParamsSchema = z.strictObject({
  items: z.array(z.unknown()),
  host: HostSchema.optional(),
  /** Rows the items name by `rowIndex`: each is parsed once for the whole batch. */
  rows: z.array(z.unknown()).optional(),
  alsoAggregators: AlsoAggregatorsSchema.optional(),
  /** Result fields the caller does not read (a trainer needs rewards and counts, not every criterion's reading). */
  omit: z.array(z.enum(['judgments', 'extras'])).optional(),
  ...Aggregation,
});

export const FcpItemSchema = z.strictObject({ ...RubricRefFields, scores: ScoresSchema });

export const FcpParamsSchema = z.strictObject({
  items: z.array(z.unknown()),
  ...FcpSettings,
  options: z.unknown().optional(),
});

