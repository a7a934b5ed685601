/**
 * The official GEAR graph vocabulary (LvCan926/GEAR rubric_prepare/rubric_graph.py and
 * verl/utils/reward_score/gear.py): what the builder asks for and writes, so that the official
 * code, `gear aggregate` and gear_bridge read the same rows.
 */
export const NODE_TYPES = ['foundation', 'bonus', 'penalty', 'trigger'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const EDGE_TYPES = ['weak_prerequisite', 'strong_prerequisite', 'trigger'] as const;
export type EdgeType = (typeof EDGE_TYPES)[number];

/** What the edge annotator may answer for a candidate pair. */
export const EDGE_LABELS = ['no_edge', ...EDGE_TYPES] as const;
export type EdgeLabel = (typeof EDGE_LABELS)[number];

/** Several labels for one pair: the lower number wins (official EDGE_TYPE_PRIORITY). */
export const EDGE_TYPE_PRIORITY: Readonly<Record<EdgeType, number>> = {
  trigger: 0,
  strong_prerequisite: 1,
  weak_prerequisite: 2,
};

/** The candidate rules (paper appendix A.3; official ALLOWED_TYPE_PAIR_TO_EDGE_TYPES). */
export function allowedEdgeTypes(parent: NodeType, child: NodeType): readonly EdgeType[] {
  if (parent === 'foundation' && (child === 'foundation' || child === 'bonus' || child === 'penalty')) {
    return ['strong_prerequisite', 'weak_prerequisite'];
  }
  if (parent === 'trigger' && (child === 'bonus' || child === 'penalty')) return ['trigger'];
  return [];
}

export function isNodeType(value: unknown): value is NodeType {
  return typeof value === 'string' && (NODE_TYPES as readonly string[]).includes(value);
}

export function isEdgeLabel(value: unknown): value is EdgeLabel {
  return typeof value === 'string' && (EDGE_LABELS as readonly string[]).includes(value);
}

/** The official fallback role of a criterion nobody labelled: by the sign of its points. */
export function signNodeType(points: number): NodeType {
  return points < 0 ? 'penalty' : 'foundation';
}
