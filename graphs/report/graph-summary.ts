import { candidatePairs } from '../build/candidate-pairs.js';
import type { ProfileName } from '../profiles/profiles.js';
import { rowGraph } from './graph-of-row.js';

/** Counters summed over the rows that carry gear's annotation stats (rows of other builders have none). */
const SUMMED = [
  'num_node_fallback',
  'node_requests',
  'node_reasks',
  'node_truncated_replies',
  'node_unreadable_replies',
  'node_duplicate_labels',
  'node_invalid_labels',
  'node_sign_contradictions',
  'node_degenerate_replies',
  'node_roles_by_sign',
  'pair_questions',
  'pair_unreadable',
  'pair_reversed',
  'edge_requests',
  'edge_split_batches',
  'edge_reasks',
  'edge_truncated_replies',
  'edge_unreadable_replies',
  'num_edge_failed_candidates',
  'num_edge_undecided_candidates',
  'num_edge_decisions',
  'num_edge_no_edge',
  'edges_dropped_malformed',
  'edges_dropped_not_candidate',
  'edges_dropped_unknown_label',
  'edges_dropped_label_not_allowed',
  'edges_dropped_lower_priority',
  'edges_dropped_cycle',
  'llm_requests',
  'llm_cached_requests',
  'llm_failed_requests',
  'prompt_tokens',
  'prompt_tokens_cached',
  'completion_tokens',
] as const;

/** The paper's construction statistics (Table full-efficiency, l.2687), per benchmark. */
export const PAPER_STATISTICS: Readonly<Partial<Record<ProfileName, PaperStatistics>>> = {
  healthbench: { criteria_per_rubric: 11.48, candidate_edges_per_rubric: 21.36, retained_edges_per_rubric: 10.92, update_size: 22.4, non_empty_rate: 0.9184, invalid_edge_candidates_per_rubric: 0.42 },
  writingbench: { criteria_per_rubric: 5.0, candidate_edges_per_rubric: 5.74, retained_edges_per_rubric: 2.86, update_size: 7.86, non_empty_rate: 0.786, invalid_edge_candidates_per_rubric: 0.18 },
  plawbench: { criteria_per_rubric: 4.0, candidate_edges_per_rubric: 3.82, retained_edges_per_rubric: 1.94, update_size: 5.94, non_empty_rate: 0.712, invalid_edge_candidates_per_rubric: 0.11 },
};

export interface PaperStatistics {
  criteria_per_rubric: number;
  candidate_edges_per_rubric: number;
  retained_edges_per_rubric: number;
  /** K + |E| per rubric. */
  update_size: number;
  non_empty_rate: number;
  /** Decisions validation removed (not a candidate, unknown or disallowed label, malformed); null without gear's stats. */
  invalid_edge_candidates_per_rubric: number | null;
}

export interface GraphSummary {
  num_rows: number;
  /** Rows without a readable reward_model.rubrics (not counted below). */
  rows_without_rubric: number;
  rows_with_annotation_stats: number;
  avg_num_node_rubrics: number;
  avg_num_node_judged: number | null;
  avg_num_node_fallback: number | null;
  avg_num_edge_candidates: number;
  avg_num_edge_failed_candidates: number | null;
  avg_num_graph_edges: number;
  graph_nonempty_ratio: number;
  node_parse_status_counts: Record<string, number>;
  node_type_counts: Record<string, number>;
  edge_type_counts: Record<string, number>;
  paper: PaperStatistics;
  /** Sums of gear's per-row counters (zero when no row has them). */
  totals: Record<(typeof SUMMED)[number], number>;
}

const mean = (sum: number, n: number): number => (n === 0 ? 0 : sum / n);

/**
 * The official builder's annotation summary plus the paper's statistics and gear's counters, for
 * any rows with graphs. Candidates are recomputed from the node types when a row has no stats
 * (the official candidate rules), so official files get the paper's columns too.
 */
export function summarizeGraphs(rows: readonly Record<string, unknown>[]): GraphSummary {
  let counted = 0;
  let withStats = 0;
  let criteria = 0;
  let judged = 0;
  let candidates = 0;
  let edges = 0;
  let nonEmpty = 0;
  const parse: Record<string, number> = {};
  const nodeTypes: Record<string, number> = {};
  const edgeTypes: Record<string, number> = {};
  const totals = Object.fromEntries(SUMMED.map((k) => [k, 0])) as Record<(typeof SUMMED)[number], number>;

  for (const row of rows) {
    const graph = rowGraph(row);
    if (graph === undefined) continue;
    counted++;
    criteria += graph.ids.length;
    edges += graph.edges.length;
    if (graph.edges.length > 0) nonEmpty++;
    for (const type of graph.nodeTypes.values()) nodeTypes[type] = (nodeTypes[type] ?? 0) + 1;
    for (const edge of graph.edges) {
      const type = typeof edge === 'object' && edge !== null ? String((edge as Record<string, unknown>)['type']) : 'malformed';
      edgeTypes[type] = (edgeTypes[type] ?? 0) + 1;
    }
    const stats = graph.stats;
    const numeric = (key: string): number | undefined => (typeof stats?.[key] === 'number' ? (stats[key] as number) : undefined);
    const rubrics = graph.ids.map((id, i) => ({ id, criterion: graph.criteria[i] ?? '', points: graph.points[i] ?? 0 }));
    candidates += numeric('num_edge_candidates') ?? candidatePairs(rubrics, graph.nodeTypes).length;
    const status = typeof stats?.['node_parse_status'] === 'string' ? stats['node_parse_status'] : 'no_stats';
    parse[status] = (parse[status] ?? 0) + 1;
    if (stats !== undefined) {
      withStats++;
      judged += numeric('num_node_judged') ?? 0;
      for (const key of SUMMED) totals[key] += numeric(key) ?? 0;
    }
  }

  const invalid = totals.edges_dropped_malformed + totals.edges_dropped_not_candidate + totals.edges_dropped_unknown_label + totals.edges_dropped_label_not_allowed;
  return {
    num_rows: rows.length,
    rows_without_rubric: rows.length - counted,
    rows_with_annotation_stats: withStats,
    avg_num_node_rubrics: mean(criteria, counted),
    avg_num_node_judged: withStats === 0 ? null : mean(judged, withStats),
    avg_num_node_fallback: withStats === 0 ? null : mean(totals.num_node_fallback, withStats),
    avg_num_edge_candidates: mean(candidates, counted),
    avg_num_edge_failed_candidates: withStats === 0 ? null : mean(totals.num_edge_failed_candidates, withStats),
    avg_num_graph_edges: mean(edges, counted),
    graph_nonempty_ratio: mean(nonEmpty, counted),
    node_parse_status_counts: parse,
    node_type_counts: nodeTypes,
    edge_type_counts: edgeTypes,
    paper: {
      criteria_per_rubric: mean(criteria, counted),
      candidate_edges_per_rubric: mean(candidates, counted),
      retained_edges_per_rubric: mean(edges, counted),
      update_size: mean(criteria + edges, counted),
      non_empty_rate: mean(nonEmpty, counted),
      invalid_edge_candidates_per_rubric: withStats === 0 ? null : mean(invalid, withStats),
    },
    totals,
  };
}

const PAPER_ROWS: readonly [keyof PaperStatistics, string, (v: number) => string][] = [
  ['criteria_per_rubric', 'criteria / rubric', (v) => v.toFixed(2)],
  ['candidate_edges_per_rubric', 'candidate edges / rubric', (v) => v.toFixed(2)],
  ['retained_edges_per_rubric', 'retained edges / rubric', (v) => v.toFixed(2)],
  ['update_size', 'update size K+|E|', (v) => v.toFixed(2)],
  ['non_empty_rate', 'non-empty graph rate', (v) => `${(100 * v).toFixed(2)}%`],
  ['invalid_edge_candidates_per_rubric', 'invalid edge candidates / rubric', (v) => v.toFixed(2)],
];

/** The summary as a text table, beside the paper's figures for `profile` when it has them. */
export function renderSummary(summary: GraphSummary, profile?: ProfileName): string {
  const paper = profile === undefined ? undefined : PAPER_STATISTICS[profile];
  const lines = [`| statistic | this file (${summary.num_rows - summary.rows_without_rubric} rubrics) |${paper ? ` paper (${profile}) |` : ''}`, `| --- | --- |${paper ? ' --- |' : ''}`];
  for (const [key, label, show] of PAPER_ROWS) {
    const value = summary.paper[key];
    lines.push(`| ${label} | ${value === null ? 'n/a' : show(value)} |${paper ? ` ${show(paper[key] as number)} |` : ''}`);
  }
  const t = summary.totals;
  lines.push(
    '',
    `node types: ${JSON.stringify(summary.node_type_counts)}; edge types: ${JSON.stringify(summary.edge_type_counts)}; node parse status: ${JSON.stringify(summary.node_parse_status_counts)}`,
  );
  if (summary.rows_with_annotation_stats > 0) {
    lines.push(
      `role fallbacks: ${t.num_node_fallback} criteria; role re-asks ${t.node_reasks}, cut-off role replies ${t.node_truncated_replies}, unreadable ${t.node_unreadable_replies}; sign contradictions ${t.node_sign_contradictions}, degenerate replies ${t.node_degenerate_replies}, roles by the sign rule ${t.node_roles_by_sign}`,
      `pair questions ${t.pair_questions} (reversed ${t.pair_reversed}, unreadable ${t.pair_unreadable})`,
      `edge requests ${t.edge_requests} (split ${t.edge_split_batches}, re-asks ${t.edge_reasks}), cut-off ${t.edge_truncated_replies}, unreadable ${t.edge_unreadable_replies}; failed pairs ${t.num_edge_failed_candidates}, undecided pairs ${t.num_edge_undecided_candidates}`,
      `decisions ${t.num_edge_decisions} (no_edge ${t.num_edge_no_edge}); dropped: malformed ${t.edges_dropped_malformed}, not a candidate ${t.edges_dropped_not_candidate}, unknown label ${t.edges_dropped_unknown_label}, label not allowed ${t.edges_dropped_label_not_allowed}, lower priority ${t.edges_dropped_lower_priority}, cycle ${t.edges_dropped_cycle}`,
      `LLM requests ${t.llm_requests} (cached ${t.llm_cached_requests}, failed ${t.llm_failed_requests}); tokens ${t.prompt_tokens} prompt (${t.prompt_tokens_cached} reused from a cache) + ${t.completion_tokens} completion`,
    );
  }
  return `${lines.join('\n')}\n`;
}
