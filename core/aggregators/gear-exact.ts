import { GearError } from '../errors.js';
import type { CompiledRubric } from '../compile/compiled-rubric.js';
import { forwardEliminate } from '../inference/forward-elimination.js';
import { aggregateGear } from './gear-mean-field.js';

/**
 * Whether exact inference on this rubric needs variable elimination. It does not where no criterion
 * has two parents (a forest), nor, under GEAR's product rule, where the graph is a multitree (no
 * criterion has two parents with a common ancestor: inference/multitree.ts). There the parents of
 * each criterion are independent, and GEAR's mean-field update
 * (q_i = p_i * prod_j (q_j + (1 - q_j) * lambda_ji)) is the exact marginal, at linear cost.
 * Another multi-parent rule (an ablation) is not the network's, so it takes elimination wherever
 * a criterion has two parents.
 */
export function needsElimination(compiled: CompiledRubric): boolean {
  return compiled.maxIndegree >= 2 && (compiled.options.multiParentRule !== 'product' || !compiled.multitree);
}

/** Whether gear-exact can score this rubric: without elimination always; with it within options.exactMaxWidth. */
export function isExactFeasible(compiled: CompiledRubric): boolean {
  return !needsElimination(compiled) || compiled.plan.maxWidth <= compiled.options.exactMaxWidth;
}

/**
 * Exact marginals of GEAR's conditional Bayesian network (paper eq. 10): by forward variable
 * elimination, whose cost grows with the graph's elimination width, not with 2^K; where that is
 * not needed (needsElimination) by the mean-field update, which is exact there (the same floats as `gear`).
 *
 * @throws GearError `usage` when the graph needs elimination wider than options.exactMaxWidth.
 */
export function aggregateGearExact(compiled: CompiledRubric, p: ArrayLike<number>, q: Float64Array): Float64Array {
  if (!needsElimination(compiled)) return aggregateGear(compiled, p, q);
  // isExactFeasible's second half: needsElimination is known here (this runs once per response).
  if (compiled.plan.maxWidth > compiled.options.exactMaxWidth) {
    throw new GearError(
      'usage',
      ['aggregator'],
      `exact inference needs a table of 2^${compiled.plan.maxWidth} cells for this graph, over the limit ` +
        `2^${compiled.options.exactMaxWidth} (options.exactMaxWidth); use "gear" or "auto"`,
    );
  }
  return forwardEliminate(compiled, p, q);
}
