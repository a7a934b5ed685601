import type { CriterionJudgment } from '../host-adapter.js';

/**
 * PLawBench's reward under the host's default final_reward_mode `standard`
 * (scored_gear_reward_fn.py `_standard_scored_score`): sum(points x p) / sum(points) over the
 * criteria with positive points only; 0 when none has positive points. The graph is not used.
 */
export function plawbenchStandardReward(points: readonly number[], judgments: readonly CriterionJudgment[]): number {
  let possible = 0;
  let achieved = 0;
  points.forEach((w, i) => {
    if (!(w > 0)) return;
    possible += w;
    achieved += w * (judgments[i]?.p ?? 0);
  });
  return possible > 0 ? achieved / possible : 0;
}
