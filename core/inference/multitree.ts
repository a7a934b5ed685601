/**
 * Rubrics larger than this are not checked (treated as not multitrees: exact inference then takes
 * variable elimination, which is always right). The check keeps one ancestor bitset per criterion,
 * size^2 / 8 bytes: 2 MB at this size.
 */
export const MULTITREE_MAX_CRITERIA = 4096;

/**
 * Whether the DAG (parents of i: parentIndex[parentStart[i] .. parentStart[i + 1])) is a multitree:
 * at most one directed path between any two criteria. Equivalently, no criterion has two parents
 * with a common ancestor (counting each parent as its own ancestor, so neither is the other's).
 *
 * Why it matters: in GEAR's network (P(C_i = 1 | parents) = p_i * prod_j lambda_ji^(1 - C_j)) the
 * parents of a criterion are then functions of disjoint sets of independent events, so they are
 * independent, and E[prod_j lambda_ji^(1 - C_j)] = prod_j (q_j + (1 - q_j) * lambda_ji): the
 * mean-field update under the product rule is the exact marginal. Forests and polytrees are multitrees.
 */
export function isMultitree(size: number, topoOrder: Int32Array, parentStart: Int32Array, parentIndex: Int32Array): boolean {
  if (size > MULTITREE_MAX_CRITERIA) return false;
  const words = (size + 31) >>> 5;
  // ancestors[i * words ..): criterion i and all its ancestors, one bit each.
  const ancestors = new Uint32Array(size * words);
  const seen = new Uint32Array(words);
  for (let t = 0; t < size; t++) {
    const i = topoOrder[t] as number;
    const own = i * words;
    const a = parentStart[i] as number;
    const b = parentStart[i + 1] as number;
    seen.fill(0);
    for (let e = a; e < b; e++) {
      const from = (parentIndex[e] as number) * words;
      for (let w = 0; w < words; w++) {
        const bits = ancestors[from + w] as number;
        if ((bits & (seen[w] as number)) !== 0) return false; // two parents share an ancestor
        seen[w] = (seen[w] as number) | bits;
      }
    }
    for (let w = 0; w < words; w++) ancestors[own + w] = seen[w] as number;
    ancestors[own + (i >>> 5)] = (ancestors[own + (i >>> 5)] as number) | (1 << (i & 31));
  }
  return true;
}
