import { withGraph, type GraphRow, type OfficialGraph } from '../model/graph-row.js';
import type { NodeType } from '../model/vocabulary.js';
import type { AnnotationContext } from './annotation-context.js';
import { annotateEdges } from './annotate-edges.js';
import { annotateRoles } from './annotate-roles.js';
import { candidatePairs } from './candidate-pairs.js';
import { annotatePairwise } from '../pairwise/annotate-row-pairwise.js';
import { emptyTally, type RequestTally } from './request-tally.js';
import { validateEdges } from './validate-edges.js';

/**
 * Per-row annotation stats. The first eight keys are the official builder's
 * (`gear_annotation_stats`); the rest count what it does not: re-asks, cut-off and unreadable
 * replies, split batches, undecided pairs, every dropped decision by reason, requests and tokens.
 * All values are numbers or strings, the same keys on every row (one parquet schema).
 */
export interface AnnotationStats {
  annotation_strategy: string;
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
  /** official: kept labels the sign contradicts; pairwise: always 0 (the sign decides penalties). */
  node_sign_contradictions: number;
  /** official: role replies with one label for a both-signs chunk; pairwise: 1 when every pair answer said yes. */
  node_degenerate_replies: number;
  /** Criteria whose role the sign rule gave by design (pairwise: every penalty). */
  node_roles_by_sign: number;
  /** pairwise: yes/no questions asked (reversed ones included) and those without a readable answer. */
  pair_questions: number;
  pair_unreadable: number;
  pair_reversed: number;
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
  /** Of prompt_tokens, those the server reused from its prompt cache (or replayed from the answer cache). */
  prompt_tokens_cached: number;
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
  return ctx.settings.strategy === 'official' ? annotateOfficial(ctx, row) : annotateWithPairs(ctx, row);
}

/** The counters every strategy shares, and zeros for the ones it does not use. */
function baseStats(ctx: AnnotationContext, row: GraphRow, tally: RequestTally, edges: number): AnnotationStats {
  return {
    annotation_strategy: ctx.settings.strategy,
    num_node_rubrics: row.rubrics.length,
    num_node_judged: 0,
    num_node_fallback: 0,
    node_parse_status: row.rubrics.length === 0 ? 'not_applicable' : 'full',
    annotation_profile: ctx.profile.name,
    num_edge_candidates: 0,
    num_edge_failed_candidates: 0,
    num_graph_edges: edges,
    node_requests: 0,
    node_reasks: 0,
    node_truncated_replies: 0,
    node_unreadable_replies: 0,
    node_duplicate_labels: 0,
    node_invalid_labels: 0,
    node_sign_contradictions: 0,
    node_degenerate_replies: 0,
    node_roles_by_sign: 0,
    pair_questions: 0,
    pair_unreadable: 0,
    pair_reversed: 0,
    edge_requests: 0,
    edge_split_batches: 0,
    edge_reasks: 0,
    edge_truncated_replies: 0,
    edge_unreadable_replies: 0,
    num_edge_undecided_candidates: 0,
    num_edge_decisions: 0,
    num_edge_no_edge: 0,
    edges_dropped_malformed: 0,
    edges_dropped_not_candidate: 0,
    edges_dropped_unknown_label: 0,
    edges_dropped_label_not_allowed: 0,
    edges_dropped_lower_priority: 0,
    edges_dropped_cycle: 0,
    llm_requests: tally.requests,
    llm_cached_requests: tally.cached,
    llm_failed_requests: tally.failed,
    prompt_tokens: tally.promptTokens,
    prompt_tokens_cached: tally.cachedPromptTokens,
    completion_tokens: tally.completionTokens,
  };
}

function finish(row: GraphRow, nodeTypes: ReadonlyMap<string, NodeType>, edges: readonly { parent: string; child: string; type: string }[], stats: AnnotationStats): AnnotatedRow {
  const graph: OfficialGraph = {
    nodes: row.rubrics.map((r) => ({ id: r.id, node_type: nodeTypes.get(r.id) ?? 'foundation' })),
    edges: edges.map((e) => ({ parent: e.parent, child: e.child, type: e.type })) as OfficialGraph['edges'],
  };
  return { index: row.index, row: withGraph(row, nodeTypes, graph, { ...stats }), graph, stats };
}

/**
 * The pairwise strategy (default): the sign decides penalties, the model answers one yes/no
 * question per candidate pair, and the roles of positive criteria follow from the graph.
 */
async function annotateWithPairs(ctx: AnnotationContext, row: GraphRow): Promise<AnnotatedRow> {
  const tally = emptyTally();
  const result = await annotatePairwise(ctx, row, tally);
  const valid = validateEdges(row.rubrics, result.nodeTypes, candidatePairs(row.rubrics, result.nodeTypes), result.edges);
  const positives = row.rubrics.filter((r) => r.points > 0).length;
  const questions = result.verdicts.length;
  const clean = result.unreadable === 0 && !result.degenerate;
  const status = row.rubrics.length === 0 ? 'not_applicable' : questions > 0 && result.unreadable === questions ? 'failed' : clean ? 'full' : 'partial';
  return finish(row, result.nodeTypes, valid.edges, {
    ...baseStats(ctx, row, tally, valid.edges.length),
    num_node_judged: positives - result.fallback,
    num_node_fallback: result.fallback,
    node_parse_status: status,
    num_edge_candidates: questions,
    num_edge_failed_candidates: result.unreadable,
    node_degenerate_replies: result.degenerate ? 1 : 0,
    node_roles_by_sign: row.rubrics.length - positives,
    pair_questions: result.requests,
    pair_unreadable: result.unreadable,
    pair_reversed: result.reverseQuestions,
    edge_requests: result.requests,
    num_edge_decisions: questions,
    num_edge_no_edge: questions - result.edges.length - result.cycleDrops,
    edges_dropped_cycle: result.cycleDrops + valid.drops.cycle,
  });
}

/** The official builder's pipeline, as the paper's graphs were built: roles, candidates, edge batches, validation. */
async function annotateOfficial(ctx: AnnotationContext, row: GraphRow): Promise<AnnotatedRow> {
  const tally = emptyTally();
  const roles = await annotateRoles(ctx, row, tally);
  const candidates = candidatePairs(row.rubrics, roles.nodeTypes);
  const edges = await annotateEdges(ctx, row, candidates, tally);
  const valid = validateEdges(row.rubrics, roles.nodeTypes, candidates, edges.decisions);
  return finish(row, roles.nodeTypes, valid.edges, {
    ...baseStats(ctx, row, tally, valid.edges.length),
    num_node_judged: roles.judged,
    num_node_fallback: roles.fallback,
    node_parse_status: roles.parseStatus,
    num_edge_candidates: candidates.length,
    num_edge_failed_candidates: edges.failedPairs,
    node_requests: roles.requests,
    node_reasks: roles.reasks,
    node_truncated_replies: roles.truncated,
    node_unreadable_replies: roles.unreadable,
    node_duplicate_labels: roles.duplicateLabels,
    node_invalid_labels: roles.invalidLabels,
    node_sign_contradictions: roles.signContradictions,
    node_degenerate_replies: roles.degenerateReplies,
    node_roles_by_sign: roles.fallback,
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
  });
}
