import type { RubricItem } from '../model/graph-row.js';
import { allowedEdgeTypes, type EdgeType, type NodeType } from '../model/vocabulary.js';

/** A directed pair the edge annotator is asked about, with the official field names and order. */
export interface CandidatePair {
  readonly parent: string;
  readonly child: string;
  readonly parent_node_type: NodeType;
  readonly child_node_type: NodeType;
  readonly parent_criterion: string;
  readonly child_criterion: string;
  /** Sorted, as the official builder lists them. */
  readonly allowed_edge_types: readonly EdgeType[];
}

/**
 * The official `_candidate_pairs`: every ordered pair of distinct criteria, parent-major in rubric
 * order, whose role pair the candidate rules allow (foundation -> foundation | bonus | penalty:
 * weak or strong; trigger -> bonus | penalty: trigger; nothing else).
 */
export function candidatePairs(rubrics: readonly RubricItem[], nodeTypes: ReadonlyMap<string, NodeType>): CandidatePair[] {
  const pairs: CandidatePair[] = [];
  for (const parent of rubrics) {
    for (const child of rubrics) {
      if (parent.id === child.id) continue;
      const parentType = nodeTypes.get(parent.id) as NodeType;
      const childType = nodeTypes.get(child.id) as NodeType;
      const allowed = allowedEdgeTypes(parentType, childType);
      if (allowed.length === 0) continue;
      pairs.push({
        parent: parent.id,
        child: child.id,
        parent_node_type: parentType,
        child_node_type: childType,
        parent_criterion: parent.criterion,
        child_criterion: child.criterion,
        allowed_edge_types: [...allowed].sort(),
      });
    }
  }
  return pairs;
}
