import { aggregate, computeReward, explainRecord, parseWith, type AggregatorName, type ExplainRecord } from '../../../core/index.js';
import { ScoreItemSchema, rubricRefOf } from '../params.js';
import { resolveOptions, type ResolvedOptions } from '../rubric-cache.js';
import type { ServiceContext } from '../service-context.js';
import { checkScoresAt, resolveCompiled } from './resolve-rubric.js';
import { methodWithinCost } from './exact-cost.js';
import { alsoReward } from './also-reward.js';
import { decodeFloat64Base64, encodeFloat64Base64, type WireEncoding } from '../float64-base64.js';

export interface Defaults {
  readonly aggregator: AggregatorName;
  readonly options: ResolvedOptions;
  readonly encoding: WireEncoding;
  /** Other aggregators whose rewards of the same scores each result carries in `also`. */
  readonly also: readonly AggregatorName[];
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
  /** With `alsoAggregators`: each one's reward of the same scores (null where it cannot score the rubric). */
  readonly also?: Readonly<Record<string, number | null>>;
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
  const result: ScoreResult = { reward, method, effective: base64 ? encodeFloat64Base64(effective) : Array.from(effective), flat };
  // The effective scores are copied out above, so the scratch serves the other aggregators now.
  const also = defaults.also.length === 0 ? {} : { also: Object.fromEntries(defaults.also.map((name) => [name, alsoReward(() => aggregate(compiled, methodWithinCost(context, compiled, name), scores, q).reward)])) };
  return item.explain === true ? { ...result, ...also, explain: explainRecord(compiled, scores) } : { ...result, ...also };
}

export function defaultsOf(params: {
  aggregator?: AggregatorName | undefined;
  options?: unknown;
  encoding?: WireEncoding | undefined;
  alsoAggregators?: readonly AggregatorName[] | undefined;
}): Defaults {
  return { aggregator: params.aggregator ?? 'gear', options: resolveOptions(params.options), encoding: params.encoding ?? 'json', also: params.alsoAggregators ?? [] };
}
