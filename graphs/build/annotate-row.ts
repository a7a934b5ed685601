import { withGraph, type GraphRow, type OfficialGraph } from '../model/graph-row.js';
import type { AnnotationContext } from './annotation-context.js';
import { annotateEdges } from './annotate-edges.js';
import { annotateRoles } from './annotate-roles.js';
import { candidatePairs } from './candidate-pairs.js';
import { emptyTally } from './request-tally.js';
import { validateEdges } from './validate-edges.js';

/**
 * Per-row annotation stats. The first eight keys are the official builder's
 * (`gear_annotation_stats`); the rest count what it does not: re-asks, cut-off and unreadable
 * replies, split batches, undecided pairs, every dropped decision by reason, requests and tokens.
 * All values are numbers or strings, the same keys on every row (one parquet schema).
 */
export interface AnnotationStats {
  num_node_rubrics: number;
  num_node_judged: number;
  num_node_fallback: number;
  node_parse_status: string;
  annotation_profile: string;
  num_edge_candidates: number;
  num_edge_failed_candidates: number;
  num_graph_edges: number;
  node_requests: number;
  node_reasks: number;
  node_truncated_replies: number;
  node_unreadable_replies: number;
  node_duplicate_labels: number;
  node_invalid_labels: number;
  edge_requests: number;
  edge_split_batches: number;
  edge_reasks: number;
  edge_truncated_replies: number;
  edge_unreadable_replies: number;
  num_edge_undecided_candidates: number;
  num_edge_decisions: number;
  num_edge_no_edge: number;
  edges_dropped_malformed: number;
  edges_dropped_not_candidate: number;
  edges_dropped_unknown_label: number;
  edges_dropped_label_not_allowed: number;
  edges_dropped_lower_priority: number;
  edges_dropped_cycle: number;
  llm_requests: number;
  llm_cached_requests: number;
  llm_failed_requests: number;
  prompt_tokens: number;
  completion_tokens: number;
}

export interface AnnotatedRow {
  readonly index: number;
  readonly row: Record<string, unknown>;
  readonly graph: OfficialGraph;
  readonly stats: AnnotationStats;
}

/**
 * The whole pipeline for one row: roles, candidates, edges, validation and DAG projection, then
 * the row with its graph. A row without criteria gets an empty graph and no request.
 *
 * @throws JudgeTransportError when an endpoint is unavailable; the row is then not done.
 */
export async function annotateRow(ctx: AnnotationContext, row: GraphRow): Promise<AnnotatedRow> {
  const tally = emptyTally();
  const roles = await annotateRoles(ctx, row, tally);
  const candidates = candidatePairs(row.rubrics, roles.nodeTypes);
  const edges = await annotateEdges(ctx, row, candidates, tally);
  const valid = validateEdges(row.rubrics, roles.nodeTypes, candidates, edges.decisions);
  const graph: OfficialGraph = {
    nodes: row.rubrics.map((r) => ({ id: r.id, node_type: roles.nodeTypes.get(r.id) ?? 'foundation' })),
    edges: valid.edges.map((e) => ({ parent: e.parent, child: e.child, type: e.type })),
  };
  const stats: AnnotationStats = {
    num_node_rubrics: row.rubrics.length,
    num_node_judged: roles.judged,
    num_node_fallback: roles.fallback,
    node_parse_status: roles.parseStatus,
    annotation_profile: ctx.profile.name,
    num_edge_candidates: candidates.length,
    num_edge_failed_candidates: edges.failedPairs,
    num_graph_edges: graph.edges.length,
    node_requests: roles.requests,
    node_reasks: roles.reasks,
    node_truncated_replies: roles.truncated,
    node_unreadable_replies: roles.unreadable,
    node_duplicate_labels: roles.duplicateLabels,
    node_invalid_labels: roles.invalidLabels,
    edge_requests: edges.requests,
    edge_split_batches: edges.splits,
    edge_reasks: edges.reasks,
    edge_truncated_replies: edges.truncated,
    edge_unreadable_replies: edges.unreadable,
    num_edge_undecided_candidates: edges.undecidedPairs,
    num_edge_decisions: edges.decisions.length,
    num_edge_no_edge: valid.noEdge,
    edges_dropped_malformed: valid.drops.malformed,
    edges_dropped_not_candidate: valid.drops.not_candidate,
    edges_dropped_unknown_label: valid.drops.unknown_label,
    edges_dropped_label_not_allowed: valid.drops.label_not_allowed,
    edges_dropped_lower_priority: valid.drops.lower_priority,
    edges_dropped_cycle: valid.drops.cycle,
    llm_requests: tally.requests,
    llm_cached_requests: tally.cached,
    llm_failed_requests: tally.failed,
    prompt_tokens: tally.promptTokens,
    completion_tokens: tally.completionTokens,
  };
  return { index: row.index, row: withGraph(row, roles.nodeTypes, graph, { ...stats }), graph, stats };
}
