import type { CriterionJudgment } from '../../adapters/host-adapter.js';

/** One criterion as `gear score` and `gear judge` write it: the judgment as read, and its effective score. */
export function criterionRecord(judgment: CriterionJudgment, effective: number | undefined): Record<string, unknown> {
  return {
    id: judgment.id,
    p: judgment.p,
    met: judgment.met,
    status: judgment.status,
    ...(judgment.detail !== undefined ? { detail: judgment.detail } : {}),
    effective,
  };
}
