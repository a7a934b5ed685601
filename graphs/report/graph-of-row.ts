import { tagsToRecord } from '../model/graph-row.js';
import { isNodeType, signNodeType, type NodeType } from '../model/vocabulary.js';

/** What the stats, check and compare reports read from any row with a graph (ours or the official builder's). */
export interface RowGraph {
  readonly ids: readonly string[];
  readonly criteria: readonly string[];
  readonly points: readonly number[];
  /** graph.nodes' type, else tags.node_type, else the sign (the official runtime's order). */
  readonly nodeTypes: ReadonlyMap<string, NodeType>;
  /** graph.edges as written (not validated). */
  readonly edges: readonly unknown[];
  readonly stats: Record<string, unknown> | undefined;
  readonly sourceId: string | undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The reward_model of a row: top-level (VERL), else extra_info's (what the official reward fn reads), else the row itself. */
export function rewardModelOf(row: Record<string, unknown>): Record<string, unknown> | undefined {
  if (isRecord(row['reward_model'])) return row['reward_model'];
  const extra = row['extra_info'];
  if (isRecord(extra) && isRecord(extra['reward_model'])) return extra['reward_model'];
  if (Array.isArray(row['rubrics'])) return row;
  return undefined;
}

export function rowGraph(row: Record<string, unknown>): RowGraph | undefined {
  const model = rewardModelOf(row);
  if (model === undefined || !Array.isArray(model['rubrics'])) return undefined;
  const rubrics = model['rubrics'].map((r) => (isRecord(r) ? r : {}));
  const ids = rubrics.map((r, i) => (typeof r['id'] === 'string' && r['id'] !== '' ? r['id'] : `r${i + 1}`));
  const points = rubrics.map((r) => Number(r['points']));
  const graph = isRecord(model['graph']) ? model['graph'] : {};
  const declared = new Map<string, unknown>();
  for (const node of Array.isArray(graph['nodes']) ? graph['nodes'] : []) {
    if (isRecord(node) && typeof node['id'] === 'string') declared.set(node['id'], node['node_type']);
  }
  const nodeTypes = new Map<string, NodeType>();
  ids.forEach((id, i) => {
    const fromNode = declared.get(id);
    const fromTags = tagsToRecord(rubrics[i]?.['tags'])['node_type'];
    const type = isNodeType(fromNode) ? fromNode : isNodeType(fromTags) ? fromTags : signNodeType(points[i] ?? 0);
    nodeTypes.set(id, type);
  });
  const extra = isRecord(row['extra_info']) ? row['extra_info'] : {};
  const stats = isRecord(row['gear_annotation_stats']) ? row['gear_annotation_stats'] : isRecord(extra['gear_annotation_stats']) ? extra['gear_annotation_stats'] : undefined;
  const meta = isRecord(extra['source_meta']) ? extra['source_meta'] : {};
  const id = extra['prompt_id'] ?? row['prompt_id'] ?? meta['index'] ?? row['key'];
  return {
    ids,
    criteria: rubrics.map((r) => String(r['criterion'] ?? '')),
    points,
    nodeTypes,
    edges: Array.isArray(graph['edges']) ? graph['edges'] : [],
    stats,
    sourceId: typeof id === 'string' || typeof id === 'number' ? String(id) : undefined,
  };
}
