import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileRubric } from '../compile/compile-rubric.js';
import { aggregateGearExact } from '../aggregators/gear-exact.js';
import { aggregateGear } from '../aggregators/gear-mean-field.js';
import { forwardEliminate } from './forward-elimination.js';
import { enumerateMarginals } from './enumerate.js';
import { expectClose, retentionArb, rubricWithScoresArb } from '../testing/arbitraries.js';

describe('gear-exact (forward variable elimination)', () => {
  it('equals 2^K brute-force enumeration on random DAGs of up to 12 criteria, to 1e-12', () => {
    fc.assert(
      fc.property(
        rubricWithScoresArb({ maxCriteria: 12, maxParents: 4, dependentRate: 0.85 }),
        retentionArb,
        retentionArb,
        retentionArb,
        ({ rubric, p }, weak, strong, activation) => {
          const compiled = compileRubric(rubric, { retention: { weak, strong, activation } });
          const exact = aggregateGearExact(compiled, p, new Float64Array(compiled.size));
          const enumerated = enumerateMarginals(compiled, p);
          expectClose(exact, enumerated, 1e-12);
          // The elimination itself, forests included (where gear-exact takes the mean-field update).
          expectClose(forwardEliminate(compiled, p, new Float64Array(compiled.size)), enumerated, 1e-12);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('takes the mean-field update, exact there, on a graph where no criterion has two parents: the same floats as gear', () => {
    fc.assert(
      fc.property(rubricWithScoresArb({ maxCriteria: 16, maxParents: 1, dependentRate: 0.85 }), retentionArb, ({ rubric, p }, weak) => {
        const compiled = compileRubric(rubric, { retention: { weak, strong: weak / 2, activation: 0 } });
        expect(compiled.maxIndegree).toBeLessThan(2);
        const exact = aggregateGearExact(compiled, p, new Float64Array(compiled.size));
        expect(Array.from(exact)).toEqual(Array.from(aggregateGear(compiled, p, new Float64Array(compiled.size))));
        expectClose(exact, enumerateMarginals(compiled, p), 1e-12);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a graph wider than exactMaxWidth instead of allocating 2^width', () => {
    // Eight roots that all feed one child: the child's parents must sit in one table of 2^8 cells.
    const criteria = [...Array(9).keys()].map((k) => ({ id: `c${k}`, text: `c${k}`, weight: 1 }));
    const edges = [...Array(8).keys()].map((k) => ({ parent: `c${k}`, child: 'c8', relation: 'weak' as const }));
    const compiled = compileRubric({ criteria, edges }, { exactMaxWidth: 4 });
    expect(compiled.plan.maxWidth).toBe(8);
    expect(() => aggregateGearExact(compiled, new Array(9).fill(0.5), new Float64Array(9))).toThrowError(
      expect.objectContaining({ code: 'usage' }),
    );
  });
});
