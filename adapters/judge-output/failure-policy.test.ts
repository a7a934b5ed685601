import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GearError, type Rubric } from '../../core/index.js';
import { rubricArb, probabilityArb } from '../../core/testing/arbitraries.js';
import { CoreScalarizer } from '../scalarizer.js';
import type { CriterionJudgment, JudgmentStatus } from '../host-adapter.js';
import { applyJudgeFailurePolicy, countUnread, isJudgmentRead, JUDGED_STATUSES } from './failure-policy.js';

const UNREAD: readonly JudgmentStatus[] = ['missing', 'unparsable', 'invalid-value', 'duplicate'];
const READ: readonly JudgmentStatus[] = [...JUDGED_STATUSES];
const flat = new CoreScalarizer('flat');
const HOST_OPTIONS = { normalize: 'positive-sum', emptyDenominator: 'divide-by-one' } as const;

/** A rubric, a read judgment per criterion, which of them the judge failed on, and another reading of those. */
const caseArb = rubricArb({ maxCriteria: 12, maxParents: 2 }).chain((rubric) => {
  const n = rubric.criteria.length;
  return fc.record({
    rubric: fc.constant(rubric),
    read: fc.array(fc.tuple(probabilityArb, fc.constantFrom(...READ)), { minLength: n, maxLength: n }),
    failed: fc.array(fc.tuple(fc.boolean(), fc.constantFrom(...UNREAD)), { minLength: n, maxLength: n }),
    other: fc.array(probabilityArb, { minLength: n, maxLength: n }),
  });
});

function judgments(rubric: Rubric, read: readonly [number, JudgmentStatus][], failed: readonly [boolean, JudgmentStatus][]): CriterionJudgment[] {
  return rubric.criteria.map((c, index) => {
    const [p, status] = read[index] as [number, JudgmentStatus];
    const [fails, failure] = failed[index] as [boolean, JudgmentStatus];
    return fails ? { index, id: c.id, p: 0, met: false, status: failure, detail: 'judge said nothing' } : { index, id: c.id, p, met: p >= 0.5, status };
  });
}

const reward = (rubric: Rubric, js: readonly CriterionJudgment[]): number =>
  flat.scalarize(rubric, { p: js.map((j) => j.p), d: js.map((j) => j.met) }, HOST_OPTIONS).reward;

const weightsOf = (rubric: Rubric): number[] => rubric.criteria.map((c) => c.weight);

describe('judge failure policy', () => {
  it('pessimistic: the reward is never above the reward with the unread criteria read in any way', () => {
    fc.assert(
      fc.property(caseArb, ({ rubric, read, failed, other }) => {
        const js = judgments(rubric, read, failed);
        const pessimistic = reward(rubric, applyJudgeFailurePolicy(js, weightsOf(rubric), 'pessimistic'));
        const anyReading = js.map((j, i) => (isJudgmentRead(j) ? j : { ...j, p: other[i] as number, met: (other[i] as number) >= 0.5, status: 'ok' as const }));
        expect(pessimistic).toBeLessThanOrEqual(reward(rubric, anyReading) + 1e-12);
      }),
    );
  });

  it('pessimistic is never above official, and equals it when no unread criterion is negative', () => {
    fc.assert(
      fc.property(caseArb, ({ rubric, read, failed }) => {
        const js = judgments(rubric, read, failed);
        const w = weightsOf(rubric);
        const pessimistic = reward(rubric, applyJudgeFailurePolicy(js, w, 'pessimistic'));
        const official = reward(rubric, applyJudgeFailurePolicy(js, w, 'official'));
        expect(pessimistic).toBeLessThanOrEqual(official + 1e-12);
        if (js.every((j) => isJudgmentRead(j) || (w[j.index] as number) >= 0)) expect(pessimistic).toBe(official);
      }),
    );
  });

  it('sets an unread positive criterion to not met and an unread penalty to applied; keeps read ones, statuses and details', () => {
    fc.assert(
      fc.property(caseArb, ({ rubric, read, failed }) => {
        const js = judgments(rubric, read, failed);
        const w = weightsOf(rubric);
        const out = applyJudgeFailurePolicy(js, w, 'pessimistic');
        const official = applyJudgeFailurePolicy(js, w, 'official');
        out.forEach((j, i) => {
          const before = js[i] as CriterionJudgment;
          expect([j.status, j.detail, j.index, j.id]).toEqual([before.status, before.detail, before.index, before.id]);
          if (isJudgmentRead(before)) {
            expect(j).toEqual(before);
          } else {
            const penalty = (w[i] as number) < 0;
            expect([j.p, j.met]).toEqual(penalty ? [1, true] : [0, false]);
            expect([official[i]?.p, official[i]?.met]).toEqual([0, false]);
          }
        });
      }),
    );
  });

  it('error: throws iff something is unread, naming exactly the unread ids and pointing at the first', () => {
    fc.assert(
      fc.property(caseArb, ({ rubric, read, failed }) => {
        const js = judgments(rubric, read, failed);
        const unread = js.filter((j) => !isJudgmentRead(j));
        expect(countUnread(js)).toBe(unread.length);
        if (unread.length === 0) {
          expect(applyJudgeFailurePolicy(js, weightsOf(rubric), 'error')).toEqual(js);
          return;
        }
        let thrown: unknown;
        try {
          applyJudgeFailurePolicy(js, weightsOf(rubric), 'error');
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(GearError);
        const error = thrown as GearError;
        expect(error.code).toBe('invalid_input');
        expect(error.path).toEqual(['judgments', unread[0]?.index]);
        const named = [...error.detail.matchAll(/(\S+) \(([a-z-]+)\)/g)].map((m) => m[1]);
        expect(named).toEqual(unread.map((j) => j.id));
      }),
    );
  });
});
