import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { GearError } from '../errors.js';
import { compileRubric } from '../compile/compile-rubric.js';
import { compileOfficialRewardModel, readOfficialRewardModel, toOfficialRewardModel } from '../formats/official-gear.js';
import { aggregate, checkScores, type AggregationMethod } from './aggregator.js';
import { rubricWithScoresArb } from '../testing/arbitraries.js';

const methods: AggregationMethod[] = ['flat', 'hard', 'gear', 'gear-exact'];

/** Client values that are not what a field expects: objects that break String(), arrays, strings, deep nesting. */
const hostileValueArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).filter((v) => typeof v !== 'number' && typeof v !== 'boolean'),
  fc.constantFrom<unknown>({ toString: 1 }, { valueOf: 1, toString: 'x' }, [{ toString: 1 }], Object.create(null), 1e400, -1e400),
  fc.integer({ min: 1000, max: 20_000 }).map((depth) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown),
);

describe('checkScores on client values where numbers or booleans belong', () => {
  const compiled = compileRubric({ criteria: [{ id: 'a', text: 'A', weight: 2 }, { id: 'b', text: 'B', weight: 1 }] });

  it('throws only GearError, naming p[i] or d[i], whatever the value (no String() on client objects)', () => {
    fc.assert(
      fc.property(hostileValueArb, fc.integer({ min: 0, max: 1 }), fc.boolean(), (value, at, inD) => {
        const p: unknown[] = [0.5, 0.5];
        const d: unknown[] = [true, false];
        (inD ? d : p)[at] = value;
        let thrown: unknown;
        try {
          checkScores(compiled, { p, d });
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(GearError);
        expect((thrown as GearError).path).toEqual([inD ? 'd' : 'p', at]);
      }),
      { numRuns: 200 },
    );
  });

  it('describes a 20,000-deep array in p without walking into it', () => {
    const deep = JSON.parse('['.repeat(20_000) + ']'.repeat(20_000)) as unknown;
    expect(() => checkScores(compiled, { p: [deep, 0.5] })).toThrowError(
      expect.objectContaining({ code: 'invalid_input', path: ['p', 0], detail: 'must be a number in [0, 1], got an array' }),
    );
  });
});

describe('extreme weights: every reward is finite, or the rubric is refused naming its weights', () => {
  const weightArb = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(5e-324, -5e-324, -1, 1, Number.MAX_VALUE, -Number.MAX_VALUE, 2.2250738585072014e-308),
  );

  it('holds for any finite weights, any scores and every aggregator and normalization', () => {
    fc.assert(
      fc.property(
        fc.array(weightArb, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('positive-sum', 'abs-sum') as fc.Arbitrary<'positive-sum' | 'abs-sum'>,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 6, maxLength: 6 }),
        (weights, normalize, scores) => {
          const criteria = weights.map((weight, i) => ({ id: `c${i}`, text: `${i}`, weight }));
          const edges = criteria.slice(1).map((c) => ({ parent: 'c0', child: c.id, relation: 'weak' as const }));
          let compiled;
          try {
            compiled = compileRubric({ criteria, edges }, { normalize });
          } catch (error) {
            expect(error).toBeInstanceOf(GearError);
            expect((error as GearError).path).toEqual(['criteria']);
            return;
          }
          const p = scores.slice(0, weights.length);
          for (const method of methods) expect(Number.isFinite(aggregate(compiled, method, { p }).reward)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses the issue example (weights 5e-324 and -1) naming the criteria', () => {
    const rubric = { criteria: [{ id: 'a', text: 'A', weight: 5e-324 }, { id: 'b', text: 'B', weight: -1 }] };
    expect(() => compileRubric(rubric)).toThrowError(expect.objectContaining({ code: 'invalid_input', path: ['criteria'] }));
  });
});

describe('the official format on hostile values', () => {
  it('refuses points written as a string float64 cannot hold, naming the field', () => {
    for (const points of ['1e400', '-1e400', '  2e308 ']) {
      const model = { rubrics: [{ criterion: 'x', points: 1 }, { criterion: 'y', points }] };
      expect(() => readOfficialRewardModel(model)).toThrowError(expect.objectContaining({ code: 'invalid_input', path: ['rubrics', 1, 'points'] }));
    }
    expect(readOfficialRewardModel({ rubrics: [{ criterion: 'x', points: '1e300' }] }).rubric.criteria[0]?.weight).toBe(1e300);
  });

  it('reports an edge whose fields are deeply nested values as malformed, without serializing them', () => {
    const deep = JSON.parse('['.repeat(20_000) + ']'.repeat(20_000)) as unknown;
    const model = {
      rubrics: [{ id: 'r1', criterion: 'a', points: 1 }, { id: 'r2', criterion: 'b', points: 1 }],
      graph: { edges: [{ parent: deep, child: { toString: 1 }, type: 'weak_prerequisite' }] },
    };
    expect(readOfficialRewardModel(model).droppedEdges).toEqual([
      { index: 0, parent: 'an array', child: 'an object', relation: 'weak_prerequisite', reason: 'malformed' },
    ]);
  });

  it('keeps exact inference identical through the official reader (lazy gate tables survive its report)', () => {
    fc.assert(
      fc.property(rubricWithScoresArb({ maxCriteria: 10, maxParents: 3 }), ({ rubric, p }) => {
        const canonical = compileRubric(rubric);
        const official = compileOfficialRewardModel(toOfficialRewardModel(rubric));
        expect(aggregate(official, 'gear-exact', { p })).toEqual(aggregate(canonical, 'gear-exact', { p }));
        expect(Object.isFrozen(official)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
