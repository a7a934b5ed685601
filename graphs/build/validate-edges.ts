import { compileRubric, type Rubric } from '../../core/index.js';
import type { RubricItem } from '../model/graph-row.js';
import { EDGE_TYPE_PRIORITY, isEdgeLabel, type EdgeType, type NodeType } from '../model/vocabulary.js';
import type { CandidatePair } from './candidate-pairs.js';

export interface GraphEdge {
  readonly parent: string;
  readonly child: string;
  readonly type: EdgeType;
}

/** Why an annotator's decision did not become an edge. */
export interface EdgeDrops {
  /** Not an object with string parent and child. */
  malformed: number;
  /** (parent, child) is not a candidate pair (another batch's ids crossed, an unknown id, a self-pair). */
  not_candidate: number;
  /** A label outside no_edge / weak_prerequisite / strong_prerequisite / trigger. */
  unknown_label: number;
  /** A label the pair's roles do not allow (e.g. trigger from a foundation). */
  label_not_allowed: number;
  /** A further label for a pair that already has one of higher or equal priority (trigger > strong > weak). */
  lower_priority: number;
  /** Closes a cycle with edges of higher priority or earlier candidate order (core's DAG projection). */
  cycle: number;
}

export interface ValidatedGraph {
  /** Kept edges, in candidate order. */
  readonly edges: readonly GraphEdge[];
  readonly drops: EdgeDrops;
  /** Decisions that said no_edge for a candidate pair. */
  readonly noEdge: number;
}

export function emptyDrops(): EdgeDrops {
  return { malformed: 0, not_candidate: 0, unknown_label: 0, label_not_allowed: 0, lower_priority: 0, cycle: 0 };
}

const ROLE: Readonly<Record<NodeType, 'foundation' | 'bonus' | 'penalty' | 'activation'>> = {
  foundation: 'foundation',
  bonus: 'bonus',
  penalty: 'penalty',
  trigger: 'activation',
};
const RELATION: Readonly<Record<EdgeType, 'weak' | 'strong' | 'activation'>> = {
  weak_prerequisite: 'weak',
  strong_prerequisite: 'strong',
  trigger: 'activation',
};

/**
 * Stage 4 (official `_sanitize_edges`, with every drop counted): keep decisions for candidate
 * pairs with a label the pair allows; resolve several labels for one pair by priority (trigger >
 * strong > weak); then project to a DAG with core's projection (compileRubric), fed in priority
 * order (trigger, then strong, then weak; candidate order within a type), so that a cycle loses
 * its lowest-priority edge rather than whichever came later in the rubric (the official builder
 * breaks cycles by candidate order alone).
 */
export function validateEdges(rubrics: readonly RubricItem[], nodeTypes: ReadonlyMap<string, NodeType>, candidates: readonly CandidatePair[], decisions: readonly unknown[]): ValidatedGraph {
  const drops = emptyDrops();
  let noEdge = 0;
  const order = new Map<string, number>();
  candidates.forEach((c, i) => order.set(`${c.parent}\u0000${c.child}`, i));
  const best = new Map<number, EdgeType>();

  for (const item of decisions) {
    const record = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>) : undefined;
    const parent = record?.['parent'];
    const child = record?.['child'];
    if (typeof parent !== 'string' || typeof child !== 'string') {
      drops.malformed++;
      continue;
    }
    const position = order.get(`${parent}\u0000${child}`);
    if (position === undefined) {
      drops.not_candidate++;
      continue;
    }
    const label = record?.['type'];
    if (!isEdgeLabel(label)) {
      drops.unknown_label++;
      continue;
    }
    if (label === 'no_edge') {
      noEdge++;
      continue;
    }
    if (!(candidates[position] as CandidatePair).allowed_edge_types.includes(label)) {
      drops.label_not_allowed++;
      continue;
    }
    const current = best.get(position);
    if (current !== undefined) {
      drops.lower_priority++;
      if (EDGE_TYPE_PRIORITY[label] >= EDGE_TYPE_PRIORITY[current]) continue;
    }
    best.set(position, label);
  }

  const ranked = [...best.entries()].sort(([a, ta], [b, tb]) => EDGE_TYPE_PRIORITY[ta] - EDGE_TYPE_PRIORITY[tb] || a - b);
  const rubric: Rubric = {
    criteria: rubrics.map((r) => ({ id: r.id, text: r.criterion, weight: r.points, role: ROLE[nodeTypes.get(r.id) as NodeType] })),
    edges: ranked.map(([position, type]) => ({ parent: (candidates[position] as CandidatePair).parent, child: (candidates[position] as CandidatePair).child, relation: RELATION[type] })),
  };
  const dropped = new Set(compileRubric(rubric).report.droppedEdges.map((d) => d.index));
  drops.cycle = dropped.size;
  const edges = ranked
    .filter((_, i) => !dropped.has(i))
    .sort(([a], [b]) => a - b)
    .map(([position, type]) => ({ parent: (candidates[position] as CandidatePair).parent, child: (candidates[position] as CandidatePair).child, type }));
  return { edges, drops, noEdge };
}
