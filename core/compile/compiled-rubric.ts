import type { Rubric } from '../model/rubric.js';
import type { AggregationOptions } from '../model/options.js';
import type { EliminationPlan } from '../inference/elimination-plan.js';
import type { CompileReport } from './compile-report.js';

/** Relation codes stored per edge in `edgeRelation`. */
export const RELATION_CODE = { weak: 0, strong: 1, activation: 2 } as const;
export const RELATION_BY_CODE = ['weak', 'strong', 'activation'] as const;

/**
 * A rubric compiled once for fast repeated evaluation. Criteria keep their input positions
 * (index i = rubric.criteria[i]); parents are stored CSR-style by child:
 * the parent edges of i are e in [parentStart[i], parentStart[i + 1]), with parent parentIndex[e].
 * Frozen; evaluators write into caller-owned buffers.
 */
export interface CompiledRubric {
  readonly size: number;
  readonly ids: readonly string[];
  readonly weight: Float64Array;
  readonly topoOrder: Int32Array;
  readonly parentStart: Int32Array;
  readonly parentIndex: Int32Array;
  /** Input position of each kept edge in rubric.edges. */
  readonly edgeSource: Int32Array;
  readonly edgeRelation: Uint8Array;
  /** Effective retention per edge: override or relation default (or shared), raised to gamma. */
  readonly edgeRetention: Float64Array;
  /** For exact inference: for each criterion, the retention product of each parent on/off pattern
   *  (built on first read: up to size * 2^exactMaxWidth products). */
  readonly gateStart: Int32Array;
  readonly gate: Float64Array;
  readonly maxIndegree: number;
  /** At most one directed path between any two criteria (forests and polytrees are): there GEAR's
   *  mean-field update under the product rule is exact (see inference/multitree.ts). Checked on first read. */
  readonly multitree: boolean;
  /** Reward denominator; 0 means "reward is 0" (emptyDenominator = zero-reward). */
  readonly denominator: number;
  readonly plan: EliminationPlan;
  readonly options: AggregationOptions;
  readonly rubric: Rubric;
  readonly report: CompileReport;
}
