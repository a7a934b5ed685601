import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileRubric } from './compile-rubric.js';

/** The gate tables as first written: for each pattern, the failing retentions sorted, multiplied out. */
function referenceGates(parentStart: Int32Array, edgeRetention: Float64Array, size: number): number[] {
  const gates: number[] = [];
  for (let i = 0; i < size; i++) {
    const a = parentStart[i] as number;
    const degree = (parentStart[i + 1] as number) - a;
    for (let c = 0; c < 1 << degree; c++) {
      const failing: number[] = [];
      for (let k = 0; k < degree; k++) if (((c >> k) & 1) === 0) failing.push(edgeRetention[a + k] as number);
      failing.sort((x, y) => x - y);
      let g = 1;
      for (const retention of failing) g *= retention;
      gates.push(g);
    }
  }
  return gates;
}

describe('gate tables (built on first use, one product per pattern)', () => {
  it('equal bit for bit the sorted products, with ties, zeros and ones among the retentions', () => {
    const retentionArb = fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 1, 0.2, 0.6, 0.6000000000000001, 5e-324));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 }), fc.array(retentionArb, { minLength: 10, maxLength: 10 }), (parents, retentions) => {
        const criteria = Array.from({ length: parents + 1 }, (_, i) => ({ id: `c${i}`, text: `${i}`, weight: 1 }));
        const edges = retentions.slice(0, parents).map((retention, k) => ({ parent: `c${k}`, child: `c${parents}`, relation: 'weak' as const, retention }));
        const compiled = compileRubric({ criteria, edges });
        expect(Array.from(compiled.gate)).toEqual(referenceGates(compiled.parentStart, compiled.edgeRetention, compiled.size));
      }),
      { numRuns: 300 },
    );
  });
});
