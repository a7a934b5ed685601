import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contradictsSign, isDegenerateRoleReply } from './role-rules.js';
import { NODE_TYPES, signNodeType } from './vocabulary.js';

const points = fc.integer({ min: -20, max: 20 }).map((n) => n / 2);
const type = fc.constantFrom(...NODE_TYPES);

describe('sign contradictions', () => {
  it('are a negative-point non-penalty or a positive-point penalty, and the sign rule never makes one', () => {
    fc.assert(
      fc.property(type, points, (t, p) => {
        expect(contradictsSign(t, p)).toBe((p < 0 && t !== 'penalty') || (p > 0 && t === 'penalty'));
        expect(contradictsSign(signNodeType(p), p)).toBe(false);
      }),
    );
  });
});

describe('degenerate role replies', () => {
  const labels = fc.array(fc.record({ type, points }), { minLength: 0, maxLength: 14 });

  it('are exactly the replies with one label for criteria of both signs, whatever their order', () => {
    fc.assert(
      fc.property(labels, fc.integer({ min: 0, max: 1000 }), (ls, seed) => {
        const bothSigns = ls.some((l) => l.points > 0) && ls.some((l) => l.points < 0);
        const oneLabel = new Set(ls.map((l) => l.type)).size === 1;
        expect(isDegenerateRoleReply(ls)).toBe(bothSigns && oneLabel);
        const shuffled = [...ls].sort((a, b) => ((a.points * 7919 + seed) % 13) - ((b.points * 7919 + seed) % 13));
        expect(isDegenerateRoleReply(shuffled)).toBe(isDegenerateRoleReply(ls));
      }),
    );
  });

  it("flags a small model's 'all bonus' reply on a rubric with penalties, and never one that follows the sign rule", () => {
    fc.assert(
      fc.property(fc.array(points, { minLength: 2, maxLength: 12 }), type, (ps, t) => {
        fc.pre(ps.some((p) => p > 0) && ps.some((p) => p < 0));
        expect(isDegenerateRoleReply(ps.map((p) => ({ type: t, points: p })))).toBe(true);
        expect(isDegenerateRoleReply(ps.map((p) => ({ type: signNodeType(p), points: p })))).toBe(false);
      }),
    );
  });
});
