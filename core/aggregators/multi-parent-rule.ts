import type { MultiParentRule } from '../model/options.js';
import { v8Pow } from '../numeric/v8-pow.js';

/**
 * Combines the per-parent factors f_j = q_j + (1 - q_j) * lambda_j of one child.
 * `factors[0..count)` is sorted ascending in place first, so the float result does not depend
 * on parent order. product is GEAR's rule; the others are ablations.
 */
export function combineFactors(rule: MultiParentRule, factors: Float64Array, count: number): number {
  for (let i = 1; i < count; i++) {
    const v = factors[i] as number;
    let j = i - 1;
    while (j >= 0 && (factors[j] as number) > v) {
      factors[j + 1] = factors[j] as number;
      j--;
    }
    factors[j + 1] = v;
  }
  switch (rule) {
    case 'product': {
      let g = 1;
      for (let i = 0; i < count; i++) g *= factors[i] as number;
      return g;
    }
    case 'geometric-mean': {
      let g = 1;
      for (let i = 0; i < count; i++) g *= factors[i] as number;
      return count === 1 ? g : v8Pow(g, 1 / count); // the same float on every Node
    }
    case 'arithmetic-mean': {
      let s = 0;
      for (let i = 0; i < count; i++) s += factors[i] as number;
      return count === 1 ? s : s / count;
    }
    case 'max':
      return factors[count - 1] as number;
  }
}
