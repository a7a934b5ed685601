import { compileOfficialRewardModel, isGearError } from '../../core/index.js';
import { canonicalJson } from '../../judge/cache/cache-key.js';
import { tagsToRecord } from '../model/graph-row.js';
import { isNodeType } from '../model/vocabulary.js';
import { isRecord, rewardModelOf } from './graph-of-row.js';

export type ProblemKind =
  | 'no-rubric'
  | 'invalid-rubric'
  | 'edge-dropped'
  | 'edge-outside-role-rules'
  | 'node-unknown-id'
  | 'node-missing'
  | 'node-bad-type'
  | 'tags-disagree'
  | 'copies-differ';

export interface Problem {
  readonly kind: ProblemKind;
  readonly detail: string;
}

export interface RowCheck {
  /** 1-based row number in the file. */
  readonly row: number;
  readonly problems: readonly Problem[];
}

/**
 * What the official runtime and gear would silently do differently from what a row's graph says:
 * edges they drop (unknown ids, self-loops, duplicates, cycles, unknown types, each with its
 * reason from core's compiler), edges outside the paper's role rules, graph nodes that name no
 * criterion or miss one, node types outside the vocabulary, tags.node_type that disagrees with
 * graph.nodes, and an extra_info.reward_model (what the official reward function reads) that
 * differs from the top-level one.
 */
export function checkRow(row: Record<string, unknown>, number: number): RowCheck {
  const problems: Problem[] = [];
  const model = rewardModelOf(row);
  if (model === undefined) return { row: number, problems: [{ kind: 'no-rubric', detail: 'no reward_model.rubrics' }] };
  try {
    const compiled = compileOfficialRewardModel(model);
    for (const d of compiled.report.droppedEdges) problems.push({ kind: 'edge-dropped', detail: `graph.edges[${d.index}] ${d.parent} -> ${d.child} (${d.relation}): ${d.reason}` });
    for (const w of compiled.report.roleWarnings) {
      problems.push({ kind: 'edge-outside-role-rules', detail: `graph.edges[${w.index}] ${w.parent} (${w.parentRole}) -> ${w.child} (${w.childRole}) as ${w.relation}` });
    }
  } catch (error) {
    if (!isGearError(error)) throw error;
    return { row: number, problems: [{ kind: 'invalid-rubric', detail: error.message }] };
  }
  const rubrics = (model['rubrics'] as unknown[]).map((r) => (isRecord(r) ? r : {}));
  const ids = rubrics.map((r, i) => (typeof r['id'] === 'string' && r['id'] !== '' ? r['id'] : `r${i + 1}`));
  const graph = isRecord(model['graph']) ? model['graph'] : {};
  const nodes = Array.isArray(graph['nodes']) ? graph['nodes'] : [];
  const declared = new Map<string, unknown>();
  nodes.forEach((node, i) => {
    const id = isRecord(node) ? node['id'] : undefined;
    if (typeof id !== 'string' || !ids.includes(id)) {
      problems.push({ kind: 'node-unknown-id', detail: `graph.nodes[${i}] id ${JSON.stringify(id)} is no criterion` });
      return;
    }
    declared.set(id, (node as Record<string, unknown>)['node_type']);
    if (!isNodeType((node as Record<string, unknown>)['node_type'])) {
      problems.push({ kind: 'node-bad-type', detail: `graph.nodes[${i}] node_type ${JSON.stringify((node as Record<string, unknown>)['node_type'])}` });
    }
  });
  ids.forEach((id, i) => {
    if (nodes.length > 0 && !declared.has(id)) problems.push({ kind: 'node-missing', detail: `criterion ${id} has no graph node (its role falls back to tags or sign)` });
    const tag = tagsToRecord(rubrics[i]?.['tags'])['node_type'];
    if (tag !== undefined && declared.has(id) && tag !== declared.get(id)) {
      problems.push({ kind: 'tags-disagree', detail: `criterion ${id}: tags.node_type ${JSON.stringify(tag)} but graph node ${JSON.stringify(declared.get(id))}` });
    }
  });
  const extra = row['extra_info'];
  if (isRecord(row['reward_model']) && isRecord(extra) && isRecord(extra['reward_model'])) {
    if (canonicalJson(extra['reward_model']['graph'] ?? null) !== canonicalJson(row['reward_model']['graph'] ?? null)) {
      problems.push({ kind: 'copies-differ', detail: 'extra_info.reward_model.graph (what the official reward function reads) differs from reward_model.graph' });
    }
  }
  return { row: number, problems };
}
