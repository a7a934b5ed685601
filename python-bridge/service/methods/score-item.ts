import { aggregate, computeReward, explainRecord, parseWith, type AggregatorName, type ExplainRecord } from '../../../core/index.js';
import { ScoreItemSchema, rubricRefOf } from '../params.js';
import { resolveOptions, type ResolvedOptions } from '../rubric-cache.js';
import type { ServiceContext } from '../service-context.js';
import { checkScoresAt, resolveCompiled } from './resolve-rubric.js';
import { methodWithinCost } from './exact-cost.js';
import { decodeFloat64Base64, encodeFloat64Base64, type WireEncoding } from '../float64-base64.js';

export interface Defaults {
  readonly aggregator: AggregatorName;
  readonly options: ResolvedOptions;
  readonly encoding: WireEncoding;
}

export interface ScoreResult {
  readonly reward: number;
  readonly method: string;
  /** Effective score per criterion, in rubric order (a base64 string under float64-base64). */
  readonly effective: number[] | string;
  /** The flat reward of the same scores, for logging what dependency-aware aggregation changed. */
  readonly flat: number;
  /** With `explain: true`: the explain block of `gear aggregate --explain`. */
  readonly explain?: ExplainRecord;
}

/** Scratch for effective scores: every result copies out of it, so one buffer serves all items. */
let q = new Float64Array(64);

/**
 * Scores one response; error paths start at `at` (e.g. `items[3]`).
 * @throws GearError for bad input; ServiceError for a limit (maxExactCost) or an unknown rubric id.
 */
export function scoreItem(context: ServiceContext, input: unknown, defaults: Defaults, at: readonly (string | number)[]): ScoreResult {
  const item = parseWith(ScoreItemSchema, input, at);
  const base64 = defaults.encoding === 'float64-base64';
  const options = item.options === undefined ? defaults.options : resolveOptions(item.options, [...at, 'options']);
  const compiled = resolveCompiled(context, rubricRefOf(item, at), options, at);
  const p = base64 ? decodeFloat64Base64(item.scores.p, [...at, 'scores', 'p']) : item.scores.p;
  const scores = checkScoresAt(compiled, { p, d: item.scores.d }, at);
  const method = methodWithinCost(context, compiled, item.aggregator ?? defaults.aggregator);
  if (q.length < compiled.size) q = new Float64Array(compiled.size * 2);
  const { reward } = aggregate(compiled, method, scores, q);
  const effective = q.subarray(0, compiled.size);
  // Flat's effective scores are p itself, so its reward needs no second pass.
  const flat = method === 'flat' ? reward : computeReward(compiled, scores.p);
  const result = { reward, method, effective: base64 ? encodeFloat64Base64(effective) : Array.from(effective), flat };
  return item.explain === true ? { ...result, explain: explainRecord(compiled, scores) } : result;
}

export function defaultsOf(params: { aggregator?: AggregatorName | undefined; options?: unknown; encoding?: WireEncoding | undefined }): Defaults {
  return { aggregator: params.aggregator ?? 'gear', options: resolveOptions(params.options), encoding: params.encoding ?? 'json' };
}
