import { GearError, RELATION_BY_CODE, compileOfficialRewardModel, compileRubric, effectiveRole, type CompiledRubric } from '../../core/index.js';
import type { GraphStatistics } from './report-model.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The rubric of a graph-annotated row: official (top-level or extra_info reward_model) or canonical. */
function compileRow(row: Record<string, unknown>): CompiledRubric | undefined {
  if (isRecord(row['rubric'])) return compileRubric(row['rubric']);
  const extra = row['extra_info'];
  const model = isRecord(row['reward_model']) ? row['reward_model'] : isRecord(extra) && isRecord(extra['reward_model']) ? extra['reward_model'] : undefined;
  return model === undefined ? undefined : compileOfficialRewardModel(model);
}

/** A summary's numbers by dotted path (nested objects flattened; arrays and text left out). */
function numbersOf(value: unknown, prefix = '', out: Record<string, number> = {}): Record<string, number> {
  if (typeof value === 'number' && Number.isFinite(value)) out[prefix] = value;
  else if (isRecord(value)) for (const [k, v] of Object.entries(value)) numbersOf(v, prefix === '' ? k : `${prefix}.${k}`, out);
  return out;
}

/** Is this row a build summary (the official annotation_summary or gear graph build's) rather than a rubric row? */
export function isGraphSummary(row: Record<string, unknown>): boolean {
  return !('reward_model' in row) && !('rubric' in row) && !('extra_info' in row) && ('num_rows' in row || 'graph_nonempty_ratio' in row);
}

/**
 * Statistics of graph-annotated rows (the paper's construction table: criteria, given and kept
 * edges per rubric, update size, non-empty rate; node types, relations, edges dropped by reason),
 * computed with core's compile step, and the numbers of a build summary when there is one.
 */
export function graphStatistics(rows: readonly Record<string, unknown>[], summary: Record<string, unknown> | undefined): GraphStatistics {
  let rubrics = 0;
  let criteria = 0;
  let edgesIn = 0;
  let edgesKept = 0;
  let nonEmpty = 0;
  const nodeTypes: Record<string, number> = {};
  const relations: Record<string, number> = {};
  const dropped: Record<string, number> = {};
  const errors: string[] = [];
  rows.forEach((row, index) => {
    let compiled: CompiledRubric | undefined;
    try {
      compiled = compileRow(row);
    } catch (error) {
      if (!(error instanceof GearError)) throw error;
      errors.push(`row ${index + 1}: ${error.message}`);
      return;
    }
    if (compiled === undefined) {
      errors.push(`row ${index + 1}: no reward_model or rubric`);
      return;
    }
    rubrics += 1;
    criteria += compiled.size;
    edgesIn += compiled.report.edgesIn;
    edgesKept += compiled.report.edgesKept;
    if (compiled.report.edgesKept > 0) nonEmpty += 1;
    for (const c of compiled.rubric.criteria) {
      const role = effectiveRole(c);
      nodeTypes[role] = (nodeTypes[role] ?? 0) + 1;
    }
    for (const code of compiled.edgeRelation) {
      const r = RELATION_BY_CODE[code] as string;
      relations[r] = (relations[r] ?? 0) + 1;
    }
    for (const d of compiled.report.droppedEdges) dropped[d.reason] = (dropped[d.reason] ?? 0) + 1;
  });
  const per = (x: number): number | null => (rubrics === 0 ? null : x / rubrics);
  return {
    rows: rows.length,
    rubrics,
    rows_failed: errors.length,
    criteria_per_rubric: per(criteria),
    edges_given_per_rubric: per(edgesIn),
    edges_kept_per_rubric: per(edgesKept),
    update_size: per(criteria + edgesKept),
    non_empty_rate: per(nonEmpty),
    node_types: nodeTypes,
    relations,
    dropped_edges: dropped,
    errors: errors.slice(0, 20),
    summary: summary === undefined ? null : numbersOf(summary),
  };
}
