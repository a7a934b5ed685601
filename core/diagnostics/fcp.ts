import type { CompiledRubric } from '../compile/compiled-rubric.js';
import { RELATION_BY_CODE } from '../compile/compiled-rubric.js';
import type { Relation } from '../model/edge.js';
import { effectiveScores, type AggregationMethod, type ScoreVector } from '../aggregators/aggregator.js';

export interface FcpCase {
  readonly compiled: CompiledRubric;
  readonly scores: ScoreVector;
}

export interface FcpOptions {
  readonly aggregators?: readonly AggregationMethod[];
  /** Local support threshold on p (paper: 0.5). */
  readonly threshold?: number;
  /** Which relations count (paper: all; the official script's default: weak and strong only). */
  readonly relations?: readonly Relation[];
}

export interface FcpScore {
  /** L_FCP: mean over leakage cases of |w_child| / denominator * s_child; null without cases. */
  readonly leakage: number | null;
  /** P: mean over preserved cases of s_child / p_child; null without cases. */
  readonly preservation: number | null;
}

export interface FcpReport {
  readonly responses: number;
  readonly consideredEdges: number;
  readonly leakageCases: number;
  readonly preservedCases: number;
  readonly byAggregator: Readonly<Partial<Record<AggregationMethod, FcpScore>>>;
}

export interface FcpAccumulator {
  add(item: FcpCase): void;
  report(): FcpReport;
}

/**
 * False-credit-propagation diagnostics (paper sec. 5.3) over (response, edge) cases of the
 * compiled (post-projection) graphs. Leakage: p_child >= t and p_parent < t; preserved: both >= t.
 * Incremental, so a stream of any length is diagnosed in constant memory.
 */
export function createFcpAccumulator(options: FcpOptions = {}): FcpAccumulator {
  const aggregators = options.aggregators ?? ['flat', 'hard', 'gear'];
  const threshold = options.threshold ?? 0.5;
  const relations = new Set<Relation>(options.relations ?? ['weak', 'strong', 'activation']);
  const leakSum = aggregators.map(() => 0);
  const keepSum = aggregators.map(() => 0);
  let responses = 0;
  let consideredEdges = 0;
  let leakageCases = 0;
  let preservedCases = 0;

  const add = ({ compiled, scores }: FcpCase): void => {
    // Every aggregator's scores first: a response one of them cannot score (gear-exact past its
    // width) throws here and is not counted.
    const q = aggregators.map((m) => effectiveScores(compiled, m, scores));
    responses += 1;
    const scale = compiled.denominator === 0 ? 0 : 1 / compiled.denominator;
    for (let child = 0; child < compiled.size; child++) {
      for (let e = compiled.parentStart[child] as number; e < (compiled.parentStart[child + 1] as number); e++) {
        if (!relations.has(RELATION_BY_CODE[compiled.edgeRelation[e] as number] as Relation)) continue;
        consideredEdges += 1;
        const pChild = scores.p[child] as number;
        const pParent = scores.p[compiled.parentIndex[e] as number] as number;
        if (pChild < threshold) continue;
        if (pParent < threshold) {
          leakageCases += 1;
          const w = Math.abs(compiled.weight[child] as number) * scale;
          q.forEach((qm, m) => (leakSum[m] = (leakSum[m] as number) + w * (qm[child] as number)));
        } else {
          preservedCases += 1;
          q.forEach((qm, m) => (keepSum[m] = (keepSum[m] as number) + (qm[child] as number) / pChild));
        }
      }
    }
  };

  const report = (): FcpReport => {
    const byAggregator: Partial<Record<AggregationMethod, FcpScore>> = {};
    aggregators.forEach((m, k) => {
      byAggregator[m] = {
        leakage: leakageCases === 0 ? null : (leakSum[k] as number) / leakageCases,
        preservation: preservedCases === 0 ? null : (keepSum[k] as number) / preservedCases,
      };
    });
    return { responses, consideredEdges, leakageCases, preservedCases, byAggregator };
  };

  return { add, report };
}

/** FCP diagnostics over a finite set of cases (see createFcpAccumulator). */
export function computeFcp(cases: Iterable<FcpCase>, options: FcpOptions = {}): FcpReport {
  const accumulator = createFcpAccumulator(options);
  for (const item of cases) accumulator.add(item);
  return accumulator.report();
}
