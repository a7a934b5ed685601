import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileRubric } from '../compile/compile-rubric.js';
import { aggregateGearExact, needsElimination } from '../aggregators/gear-exact.js';
import { aggregateGear } from '../aggregators/gear-mean-field.js';
import { forwardEliminate } from './forward-elimination.js';
import { enumerateMarginals } from './enumerate.js';
import { expectClose, retentionArb, rubricWithScoresArb } from '../testing/arbitraries.js';
import type { CompiledRubric } from '../compile/compiled-rubric.js';

/** Whether no two criteria are joined by two directed paths: paths from each criterion counted, capped at 2. */
function atMostOnePath(compiled: CompiledRubric): boolean {
  const { size, topoOrder, parentStart, parentIndex } = compiled;
  for (let source = 0; source < size; source++) {
    const paths = new Array<number>(size).fill(0);
    paths[source] = 1;
    for (let t = 0; t < size; t++) {
      const i = topoOrder[t] as number;
      if (i === source) continue;
      let n = 0;
      for (let e = parentStart[i] as number; e < (parentStart[i + 1] as number); e++) n += paths[parentIndex[e] as number] as number;
      if (n > 1) return false;
      paths[i] = n;
    }
  }
  return true;
}

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
          // The elimination itself, forests and multitrees included (where gear-exact takes the mean-field update).
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

  it('takes the mean-field update on a multitree under the product rule (two parents never share an ancestor): exact there, the same floats as gear', () => {
    let multiParentMultitrees = 0;
    let others = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          rubricWithScoresArb({ maxCriteria: 12, maxParents: 2, dependentRate: 0.5 }),
          rubricWithScoresArb({ maxCriteria: 12, maxParents: 3, dependentRate: 0.85 }),
        ),
        retentionArb,
        ({ rubric, p }, weak) => {
          const compiled = compileRubric(rubric, { retention: { weak, strong: weak / 2, activation: 0 } });
          // The check against its definition: at most one directed path between any two criteria.
          expect(compiled.multitree).toBe(atMostOnePath(compiled));
          const exact = aggregateGearExact(compiled, p, new Float64Array(compiled.size));
          const enumerated = enumerateMarginals(compiled, p);
          if (compiled.multitree && compiled.maxIndegree >= 2) {
            multiParentMultitrees += 1;
            expect(needsElimination(compiled)).toBe(false);
            // The claim itself: mean-field is the exact marginal here.
            expectClose(aggregateGear(compiled, p, new Float64Array(compiled.size)), enumerated, 1e-12);
            expect(Array.from(exact)).toEqual(Array.from(aggregateGear(compiled, p, new Float64Array(compiled.size))));
          } else if (!compiled.multitree) {
            others += 1;
            expect(needsElimination(compiled)).toBe(true);
          }
          expectClose(exact, enumerated, 1e-12);
        },
      ),
      { numRuns: 400 },
    );
    expect(multiParentMultitrees).toBeGreaterThan(40);
    expect(others).toBeGreaterThan(40);
  });

  it('takes elimination where a criterion has two parents under another multi-parent rule: the network is the product rule\'s', () => {
    // Two independent roots feeding one child: a multitree, where mean-field under geometric-mean is not the marginal.
    const criteria = ['a', 'b', 'c'].map((id) => ({ id, text: id, weight: 1 }));
    const edges = [{ parent: 'a', child: 'c', relation: 'weak' as const }, { parent: 'b', child: 'c', relation: 'strong' as const }];
    const p = [0.3, 0.6, 0.9];
    for (const multiParentRule of ['geometric-mean', 'arithmetic-mean', 'max'] as const) {
      const compiled = compileRubric({ criteria, edges }, { multiParentRule });
      expect(compiled.multitree).toBe(true);
      expect(needsElimination(compiled)).toBe(true);
      const exact = aggregateGearExact(compiled, p, new Float64Array(3));
      expectClose(exact, enumerateMarginals(compiled, p), 1e-12);
      expect(Math.abs((exact[2] as number) - (aggregateGear(compiled, p, new Float64Array(3))[2] as number))).toBeGreaterThan(1e-3);
    }
  });

  it('refuses a graph wider than exactMaxWidth instead of allocating 2^width', () => {
    // Eight criteria that all feed one child, seven of them children of the first: they share an
    // ancestor, so the child's parents must sit in one table of 2^8 cells.
    const criteria = [...Array(9).keys()].map((k) => ({ id: `c${k}`, text: `c${k}`, weight: 1 }));
    const edges = [
      ...[...Array(8).keys()].map((k) => ({ parent: `c${k}`, child: 'c8', relation: 'weak' as const })),
      ...[...Array(7).keys()].map((k) => ({ parent: 'c0', child: `c${k + 1}`, relation: 'weak' as const })),
    ];
    const compiled = compileRubric({ criteria, edges }, { exactMaxWidth: 4 });
    expect(compiled.plan.maxWidth).toBe(8);
    expect(() => aggregateGearExact(compiled, new Array(9).fill(0.5), new Float64Array(9))).toThrowError(
      expect.objectContaining({ code: 'usage' }),
    );
  });
});
