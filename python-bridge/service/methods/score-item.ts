import { aggregate, checkScores, GearError, parseWith, type AggregatorName } from '../../../core/index.js';
import { ScoreItemSchema, rubricRefOf } from '../params.js';
import { resolveOptions, type ResolvedOptions } from '../rubric-cache.js';
import type { ServiceContext } from '../service-context.js';
import { resolveCompiled } from './resolve-rubric.js';

export interface Defaults {
  readonly aggregator: AggregatorName;
  readonly options: ResolvedOptions;
}

export interface ScoreResult {
  readonly reward: number;
  readonly method: string;
  /** Effective score per criterion, in rubric order. */
  readonly effective: number[];
  /** The flat reward of the same scores, for logging what dependency-aware aggregation changed. */
  readonly flat: number;
}

/** Scores one response; error paths start at `at` (e.g. `items[3]`). @throws GearError */
export function scoreItem(context: ServiceContext, input: unknown, defaults: Defaults, at: readonly (string | number)[]): ScoreResult {
  const item = parseWith(ScoreItemSchema, input, at);
  const options = item.options === undefined ? defaults.options : resolveOptions(item.options, [...at, 'options']);
  const compiled = resolveCompiled(context, rubricRefOf(item, at), options, at);
  let scores;
  try {
    scores = checkScores(compiled, item.scores);
  } catch (error) {
    throw error instanceof GearError ? error.under([...at, 'scores']) : error;
  }
  const { method, reward, q } = aggregate(compiled, item.aggregator ?? defaults.aggregator, scores);
  const flat = method === 'flat' ? reward : aggregate(compiled, 'flat', scores).reward;
  return { reward, method, effective: Array.from(q), flat };
}

export function defaultsOf(params: { aggregator?: AggregatorName | undefined; options?: unknown }): Defaults {
  return { aggregator: params.aggregator ?? 'gear', options: resolveOptions(params.options) };
}
