import { z } from 'zod';
import { GearError, describeValue } from '../errors.js';
import type { CompiledRubric } from '../compile/compiled-rubric.js';
import { computeReward } from '../reward/reward.js';
import { aggregateFlat } from './flat.js';
import { aggregateHard } from './hard-gating.js';
import { aggregateGear } from './gear-mean-field.js';
import { aggregateGearExact } from './gear-exact.js';
import { chooseAutoMethod } from './auto.js';

export const AggregatorNameSchema = z.enum(['flat', 'hard', 'gear', 'gear-exact', 'auto']);
export type AggregatorName = z.infer<typeof AggregatorNameSchema>;
/** What actually ran (`auto` resolves to one of these). */
export type AggregationMethod = Exclude<AggregatorName, 'auto'>;

/** Scores already checked against the rubric (see checkScores); p and d in criteria order. */
export interface ScoreVector {
  readonly p: ArrayLike<number>;
  readonly d?: ArrayLike<boolean> | undefined;
}

export interface Aggregation {
  readonly method: AggregationMethod;
  readonly reward: number;
  /** Effective (post-dependency) score per criterion, in criteria order. */
  readonly q: Float64Array;
}

export function resolveMethod(compiled: CompiledRubric, name: AggregatorName): AggregationMethod {
  return name === 'auto' ? chooseAutoMethod(compiled) : name;
}

/**
 * Effective scores q (written into `out`) for one response under the named aggregator.
 * The hot path: no allocation when `out` is given.
 */
export function effectiveScores(
  compiled: CompiledRubric,
  method: AggregationMethod,
  scores: ScoreVector,
  out: Float64Array = new Float64Array(compiled.size),
): Float64Array {
  switch (method) {
    case 'flat':
      return aggregateFlat(compiled, scores.p, out);
    case 'hard':
      return aggregateHard(compiled, scores.p, scores.d, out);
    case 'gear':
      return aggregateGear(compiled, scores.p, out);
    case 'gear-exact':
      return aggregateGearExact(compiled, scores.p, out);
  }
}

/** The reward and effective scores of one response. */
export function aggregate(
  compiled: CompiledRubric,
  name: AggregatorName,
  scores: ScoreVector,
  out?: Float64Array,
): Aggregation {
  const method = resolveMethod(compiled, name);
  const q = effectiveScores(compiled, method, scores, out);
  return { method, reward: computeReward(compiled, q), q };
}

/**
 * Checks untrusted scores against a compiled rubric: lengths match, every p in [0, 1], every d boolean.
 * @throws GearError `invalid_input` with the path of the first bad value (`p[3]`).
 */
export function checkScores(compiled: CompiledRubric, scores: { p: unknown; d?: unknown }): ScoreVector {
  const { p, d } = scores;
  if (!Array.isArray(p) && !(p instanceof Float64Array)) {
    throw new GearError('invalid_input', ['p'], 'must be an array of probabilities');
  }
  if (p.length !== compiled.size) {
    throw new GearError('invalid_input', ['p'], `has ${p.length} scores but the rubric has ${compiled.size} criteria`);
  }
  for (let i = 0; i < p.length; i++) {
    const v: unknown = p[i];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) {
      throw new GearError('invalid_input', ['p', i], `must be a number in [0, 1], got ${describeValue(v)}`);
    }
  }
  if (d === undefined || d === null) return { p: p as ArrayLike<number> };
  if (!Array.isArray(d)) throw new GearError('invalid_input', ['d'], 'must be an array of booleans');
  if (d.length !== compiled.size) {
    throw new GearError('invalid_input', ['d'], `has ${d.length} decisions but the rubric has ${compiled.size} criteria`);
  }
  for (let i = 0; i < d.length; i++) {
    if (typeof d[i] !== 'boolean') throw new GearError('invalid_input', ['d', i], `must be a boolean, got ${describeValue(d[i])}`);
  }
  return { p: p as ArrayLike<number>, d: d as boolean[] };
}
