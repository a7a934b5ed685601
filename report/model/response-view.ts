import type { Explain } from './input-line.js';
import type { Aggregator, ResponseView, ViewEdge } from './report-model.js';

/** How many edges of a response are marked as the ones that cut the most credit. */
const TOP_EDGES = 3;

/** A response's drawing from its explain block: nodes with p and q, edges with what they cut. */
export function responseView(
  line: number,
  id: string | null,
  rubric: string,
  rewards: Readonly<Partial<Record<Aggregator, number>>>,
  nativeReward: number | null,
  statuses: readonly string[],
  explain: Explain,
): ResponseView {
  const scale = explain.denominator === 0 ? 0 : 1 / explain.denominator;
  const edges: Omit<ViewEdge, 'top'>[] = explain.criteria.flatMap((child) =>
    child.parents.map((e) => ({
      parent: e.parent,
      child: child.id,
      relation: e.relation,
      retention: e.retention,
      factor: e.factor,
      suppressed: e.suppressed,
      credit_cut: child.weight * e.suppressed * scale,
    })),
  );
  // The edges that moved the reward most (a cut penalty moves it up: by absolute value), ties in input order.
  const ranked = edges
    .map((e, k) => ({ k, size: Math.abs(e.credit_cut) }))
    .filter((e) => e.size > 1e-12)
    .sort((a, b) => b.size - a.size || a.k - b.k)
    .slice(0, TOP_EDGES)
    .map((e) => e.k);
  const top = new Set(ranked);
  return {
    line,
    id,
    rubric,
    rewards,
    native_reward: nativeReward,
    denominator: explain.denominator,
    criteria: explain.criteria.map((c, i) => ({
      id: c.id,
      text: c.text,
      role: c.role,
      weight: c.weight,
      p: c.p,
      met: c.met,
      q: c.q,
      suppressed: c.suppressed,
      credit_cut: c.weight * c.suppressed * scale,
      status: statuses[i] ?? null,
    })),
    edges: edges.map((e, k) => ({ ...e, top: top.has(k) })),
  };
}
