import { isExactFeasible, needsElimination, resolveMethod, type AggregationMethod, type AggregatorName, type CompiledRubric } from '../../../core/index.js';
import { limitExceeded } from '../service-error.js';
import type { ServiceContext } from '../service-context.js';

/** Rubrics whose gate tables exist (exact inference builds them on first use; see compile-rubric.ts). */
const gatesBuilt = new WeakSet<CompiledRubric>();

/**
 * Table-cell operations of one exact evaluation: each elimination step touches 2^width cells,
 * reading one bit per parent of the visited criterion, and summing out a variable touches half the
 * table at most.
 */
export function exactEvaluationCost(compiled: CompiledRubric): number {
  const { plan, parentStart } = compiled;
  let cost = 0;
  for (let step = 0; step < compiled.size; step++) {
    const node = plan.order[step] as number;
    const degree = (parentStart[node + 1] as number) - (parentStart[node] as number);
    cost += 2 ** (plan.width[step] as number) * (1 + degree);
  }
  return cost + plan.removeBit.length * 2 ** Math.max(0, plan.maxWidth - 1);
}

/**
 * Operations of filling the gate tables (2^indegree entries per criterion, each read off its
 * parents' bits), done on first use; an entry costs about three table-cell operations.
 */
export function gateTableCost(compiled: CompiledRubric): number {
  let cost = 0;
  for (let i = 0; i < compiled.size; i++) {
    const degree = (compiled.parentStart[i + 1] as number) - (compiled.parentStart[i] as number);
    cost += 3 * 2 ** degree * (1 + degree);
  }
  return cost;
}

/** One exact evaluation, counting the gate tables when this rubric has not built them yet. */
export function exactCostOf(compiled: CompiledRubric): number {
  return exactEvaluationCost(compiled) + (gatesBuilt.has(compiled) ? 0 : gateTableCost(compiled));
}

/**
 * The method `aggregator` resolves to for this rubric, after checking that exact inference (asked
 * for, or chosen by auto) fits maxExactCost where it eliminates (on a forest or a multitree core
 * takes the linear mean-field update, exact there: needsElimination). Infeasible widths are left
 * to core, which refuses them itself (cheaply) naming options.exactMaxWidth.
 *
 * @throws ServiceError `limit_exceeded` (maxExactCost) before any table is built.
 */
export function methodWithinCost(context: ServiceContext, compiled: CompiledRubric, aggregator: AggregatorName): AggregationMethod {
  const method = resolveMethod(compiled, aggregator);
  if (method === 'gear-exact' && needsElimination(compiled) && isExactFeasible(compiled)) {
    const cost = exactCostOf(compiled);
    if (cost > context.limits.maxExactCost) {
      throw limitExceeded('maxExactCost', context.limits.maxExactCost, cost, 'exact inference on this rubric costs more than one response may; use "gear" or lower options.exactMaxWidth');
    }
    gatesBuilt.add(compiled);
  }
  return method;
}
