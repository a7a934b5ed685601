import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialLimit, limitOverload, limitSuccess, slotsOf, type AdaptiveLimit } from './adaptive-limit.js';

type Op = { op: 'send' } | { op: 'success' } | { op: 'overload'; pick: number };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ op: 'send' as const }),
  fc.constant({ op: 'success' as const }),
  fc.record({ op: fc.constant('overload' as const), pick: fc.nat() }),
);

describe('AIMD concurrency limit', () => {
  it('stays within [1, max], halves at most once per round, and never rises on an overload', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 256 }), fc.array(opArb, { maxLength: 300 }), (max, ops) => {
        let s: AdaptiveLimit = initialLimit(max);
        let order = 0;
        const sent: number[] = [];
        for (const op of ops) {
          const before = s;
          if (op.op === 'send') sent.push(++order);
          else if (op.op === 'success') s = limitSuccess(s, max);
          else {
            const which = sent.length === 0 ? 0 : (sent[op.pick % sent.length] as number);
            s = limitOverload(s, which, order);
            // A decrease is a halving (floored at 1) and only for a request sent after the last one.
            if (s !== before) {
              expect(which).toBeGreaterThan(before.decreasedAt);
              expect(s.limit).toBe(Math.max(1, before.limit / 2));
            }
            expect(s.limit).toBeLessThanOrEqual(before.limit);
          }
          expect(s.limit).toBeGreaterThanOrEqual(1);
          expect(s.limit).toBeLessThanOrEqual(max);
          expect(slotsOf(s)).toBeGreaterThanOrEqual(1);
        }
      }),
    );
  });

  it('climbs back to max after enough successes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 128 }), fc.integer({ min: 1, max: 8 }), (max, halvings) => {
        let s = initialLimit(max);
        for (let k = 0; k < halvings; k++) s = limitOverload(s, k + 1, k + 1);
        // From limit L, reaching max takes at most sum over the way of the limit: under max^2 successes.
        let n = 0;
        while (s.limit < max && n <= max * max + 1) {
          s = limitSuccess(s, max);
          n++;
        }
        expect(s.limit).toBe(max);
        expect(slotsOf(s)).toBe(max);
      }),
    );
  });

  it('halves on the first overload: 32 -> 16 slots; an overload of a request sent before that decrease changes nothing', () => {
    const s = limitOverload(initialLimit(32), 5, 9);
    expect(slotsOf(s)).toBe(16);
    expect(limitOverload(s, 9, 12)).toBe(s);
    expect(slotsOf(limitOverload(s, 10, 12))).toBe(8);
  });
});
