import { GearError } from '../../core/index.js';
import type { CriterionJudgment, JudgmentStatus } from '../host-adapter.js';

/**
 * What a criterion the judge did not answer readably counts as.
 * - `pessimistic` (default): against the response whatever its sign: a positive criterion is not
 *   met (p 0), a negative one is a penalty applied (p 1, met). A judge failure never earns credit.
 * - `official`: the official GEAR rule (`_default_missing_grading_result`: not met, p 0, for every
 *   criterion), which drops the penalty of an unread negative criterion. For parity runs only.
 * - `error`: the response is not scored (GearError naming the criteria).
 */
export type OnJudgeFailure = 'pessimistic' | 'official' | 'error';

export const ON_JUDGE_FAILURE_VALUES: readonly OnJudgeFailure[] = ['pessimistic', 'official', 'error'];

/** Statuses of a judgment the judge answered readably (the host's reading, possibly repaired). */
export const JUDGED_STATUSES: ReadonlySet<JudgmentStatus> = new Set<JudgmentStatus>(['ok', 'flipped', 'clamped', 'partial']);

export function isJudgmentRead(j: CriterionJudgment): boolean {
  return JUDGED_STATUSES.has(j.status);
}

/**
 * The judgments with every unread one replaced by the policy's value; status and detail are kept,
 * so the failure stays reported. `weights[i]` is the weight of the criterion at rubric position i
 * (its sign decides what "against the response" means; weight 0 gets p 0).
 * @throws GearError `invalid_input` at ['judgments', first unread position] under `error` when
 * anything is unread; the message lists every unread id.
 */
export function applyJudgeFailurePolicy(
  judgments: readonly CriterionJudgment[],
  weights: readonly number[],
  policy: OnJudgeFailure,
): CriterionJudgment[] {
  const unread = judgments.filter((j) => !isJudgmentRead(j));
  if (unread.length === 0) return judgments.slice();
  if (policy === 'error') {
    const first = unread[0] as CriterionJudgment;
    throw new GearError(
      'invalid_input',
      ['judgments', first.index],
      `the judge output was not read for ${unread.length} criteria: ${unread.map((j) => `${j.id} (${j.status})`).join(', ')}`,
    );
  }
  return judgments.map((j) => {
    if (isJudgmentRead(j)) return j;
    const penalty = policy === 'pessimistic' && (weights[j.index] ?? 0) < 0;
    return { ...j, p: penalty ? 1 : 0, met: penalty };
  });
}

/** How many judgments were not read. */
export function countUnread(judgments: readonly CriterionJudgment[]): number {
  let n = 0;
  for (const j of judgments) if (!isJudgmentRead(j)) n += 1;
  return n;
}
