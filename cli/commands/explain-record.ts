import {
  compareAggregators,
  compileRubric,
  effectiveRole,
  explainAggregation,
  isExactFeasible,
  type AggregationMethod,
  type AggregationOptionsInput,
  type CompiledRubric,
  type Rubric,
  type ScoreVector,
} from '../../core/index.js';

const EXPLAINED: readonly AggregationMethod[] = ['flat', 'hard', 'gear', 'gear-exact'];

/** The output key of an aggregator (`gear-exact` is written `gear_exact`, as in the rewards). */
const keyOf = (method: AggregationMethod): string => (method === 'gear-exact' ? 'gear_exact' : method);

/**
 * The `explain` block `--explain` adds to an output line: the rubric graph as compiled (criteria
 * with text, role and weight; the kept edges as each child's parents), every aggregator's reward
 * and effective scores on the same judge scores, and core's explanation of GEAR (mean-field):
 * how much of p each parent edge took away. `gear report` draws a response from this alone.
 * gear-exact is left out when the graph is too wide for exact inference.
 */
export function explainRecord(compiled: CompiledRubric, scores: ScoreVector): Record<string, unknown> {
  const methods = isExactFeasible(compiled) ? EXPLAINED : EXPLAINED.filter((m) => m !== 'gear-exact');
  const { rewards, q } = compareAggregators(compiled, scores, methods);
  const explanation = explainAggregation(compiled, 'gear', scores);
  const criteria = explanation.criteria.map((c, i) => {
    const criterion = compiled.rubric.criteria[i];
    const p = scores.p[i] as number;
    return {
      id: c.id,
      text: criterion?.text ?? '',
      role: criterion === undefined ? 'foundation' : effectiveRole(criterion),
      weight: c.weight,
      p,
      met: scores.d === undefined ? p >= 0.5 : scores.d[i] === true,
      q: Object.fromEntries(methods.map((m) => [keyOf(m), q[m]?.[i]])),
      suppressed: c.suppressed,
      reward_term: c.rewardTerm,
      flat_reward_term: c.flatRewardTerm,
      parents: c.parents.map((e) => ({
        parent: e.parent,
        relation: e.relation,
        retention: e.retention,
        parent_q: e.parentQ,
        factor: e.factor,
        suppressed: e.suppressed,
      })),
    };
  });
  return {
    method: explanation.method,
    denominator: compiled.denominator,
    rewards: Object.fromEntries(methods.map((m) => [keyOf(m), rewards[m]])),
    criteria,
  };
}

/**
 * The `explain` block for a host row scored by an adapter (`gear score`, `gear judge`): the host's
 * rubric compiled with the options its scalarizer uses, and the p and decisions the adapter
 * scored (the failure policy applied).
 */
export function explainHostRecord(
  format: { parseRow(row: unknown): unknown; toRubric(row: never): Rubric; readonly scalarOptions: AggregationOptionsInput },
  row: unknown,
  judgments: readonly { readonly p: number; readonly met: boolean }[],
  options: AggregationOptionsInput,
): Record<string, unknown> {
  const rubric = format.toRubric(format.parseRow(row) as never);
  const compiled = compileRubric(rubric, { ...options, ...format.scalarOptions });
  return explainRecord(compiled, { p: judgments.map((j) => j.p), d: judgments.map((j) => j.met) });
}
