import type { Explain } from './input-line.js';
import { AGGREGATORS, RELATIONS, type Aggregator, type FcpCell, type RelationName } from './report-model.js';

/**
 * False-credit-propagation sums over (response, edge) cases (paper sec. 5.3), read from `explain`
 * blocks: leakage cases have p_child >= t > p_parent, preserved cases both >= t. The same sums, in
 * the same order, as core's createFcpAccumulator, so the figures are core's to the last bit.
 */
export class FcpSums {
  responses = 0;
  consideredEdges = 0;
  leakageCases = 0;
  preservedCases = 0;
  private readonly leak = new Map<Aggregator, number>();
  private readonly keep = new Map<Aggregator, number>();
  private readonly present = new Set<Aggregator>();

  /** Adds one response's cases, those of `relation` only when given. */
  add(explain: Explain, threshold: number, relation?: RelationName): void {
    this.responses += 1;
    const aggregators = AGGREGATORS.filter((a) => explain.criteria.every((c) => c.q[a] !== undefined));
    for (const a of aggregators) this.present.add(a);
    const p = new Map(explain.criteria.map((c) => [c.id, c.p]));
    const scale = explain.denominator === 0 ? 0 : 1 / explain.denominator;
    for (const child of explain.criteria) {
      for (const edge of child.parents) {
        if (relation !== undefined && edge.relation !== relation) continue;
        this.consideredEdges += 1;
        if (child.p < threshold) continue;
        if ((p.get(edge.parent) ?? 0) < threshold) {
          this.leakageCases += 1;
          const w = Math.abs(child.weight) * scale;
          for (const a of aggregators) this.leak.set(a, (this.leak.get(a) ?? 0) + w * (child.q[a] as number));
        } else {
          this.preservedCases += 1;
          for (const a of aggregators) this.keep.set(a, (this.keep.get(a) ?? 0) + (child.q[a] as number) / child.p);
        }
      }
    }
  }

  cell(): FcpCell {
    const by: Partial<Record<Aggregator, { leakage: number | null; preservation: number | null }>> = {};
    for (const a of AGGREGATORS) {
      if (!this.present.has(a)) continue;
      by[a] = {
        leakage: this.leakageCases === 0 ? null : (this.leak.get(a) ?? 0) / this.leakageCases,
        preservation: this.preservedCases === 0 ? null : (this.keep.get(a) ?? 0) / this.preservedCases,
      };
    }
    return {
      responses: this.responses,
      considered_edges: this.consideredEdges,
      leakage_cases: this.leakageCases,
      preserved_cases: this.preservedCases,
      by_aggregator: by,
    };
  }
}

/** Overall and per relation type. */
export class FcpByRelation {
  readonly overall = new FcpSums();
  readonly byRelation = Object.fromEntries(RELATIONS.map((r) => [r, new FcpSums()])) as Record<RelationName, FcpSums>;

  add(explain: Explain, threshold: number): void {
    this.overall.add(explain, threshold);
    for (const r of RELATIONS) this.byRelation[r].add(explain, threshold, r);
  }
}
