import type { CompiledRubric } from '../compile/compiled-rubric.js';
import { isExactFeasible, needsElimination } from './gear-exact.js';

/**
 * `auto` picks exact inference when the compiled plan is cheap (options.autoExactMaxCost table
 * cells per response), and GEAR's mean-field update otherwise. Mean-field is already exact where
 * exact inference needs no elimination (a forest, or a multitree under the product rule:
 * needsElimination), so such graphs always take the linear path.
 */
export function chooseAutoMethod(compiled: CompiledRubric): 'gear' | 'gear-exact' {
  if (!needsElimination(compiled)) return 'gear';
  return isExactFeasible(compiled) && compiled.plan.cost <= compiled.options.autoExactMaxCost ? 'gear-exact' : 'gear';
}
