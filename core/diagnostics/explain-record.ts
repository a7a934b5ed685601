import type { CompiledRubric } from '../compile/compiled-rubric.js';
import { effectiveRole } from '../compile/role-rules.js';
import type { AggregationMethod, ScoreVector } from '../aggregators/aggregator.js';
import { compareAggregators } from '../aggregators/compare-aggregators.js';
import { isExactFeasible } from '../aggregators/gear-exact.js';
import { explainAggregation } from './explain-criterion.js';

const EXPLAINED: readonly AggregationMethod[] = ['flat', 'hard', 'gear', 'gear-exact'];

/** The output key of an aggregator (`gear-exact` is written `gear_exact`, as in the rewards). */
const keyOf = (method: AggregationMethod): RecordAggregator => (method === 'gear-exact' ? 'gear_exact' : method);

/** An aggregator as output records name it (`gear-exact` is written `gear_exact`). */
export type RecordAggregator = 'flat' | 'hard' | 'gear' | 'gear_exact';

export interface ExplainedEdge {
  readonly parent: string;
  readonly relation: string;
  readonly retention: number;
  readonly parent_q: number;
  readonly factor: number;
  readonly suppressed: number;
}

export interface ExplainedCriterion {
  readonly id: string;
  readonly text: string;
  readonly role: string;
  readonly weight: number;
  readonly p: number;
  readonly met: boolean;
  readonly q: Readonly<Partial<Record<RecordAggregator, number>>>;
  readonly suppressed: number;
  readonly reward_term: number;
  readonly flat_reward_term: number;
  readonly parents: readonly ExplainedEdge[];
}

/** The `explain` block of output records (gear aggregate/score/judge --explain, the service's `explain` option). */
export interface ExplainRecord {
  readonly method: string;
  readonly denominator: number;
  readonly rewards: Readonly<Partial<Record<RecordAggregator, number>>>;
  readonly criteria: readonly ExplainedCriterion[];
}

/**
 * The `explain` block of an output record: the rubric graph as compiled (criteria with text, role
 * and weight; the kept edges as each child's parents), every aggregator's reward and effective
 * scores on the same judge scores, and explainAggregation's account of GEAR (mean-field): how much
 * of p each parent edge took away. `gear report` draws a response from this alone. gear-exact is
 * left out when the graph is too wide for exact inference. Snake_case keys: it is a wire format.
 */
export function explainRecord(compiled: CompiledRubric, scores: ScoreVector): ExplainRecord {
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

