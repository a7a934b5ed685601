import {
  explainRecord,
  GearError,
  compareAggregators,
  compileRubricRecord,
  detectRubricFormat,
  isExactFeasible,
  scoresOfRecord,
  chooseAutoMethod,
  type AggregationMethod,
  type AggregationOptions,
  type CompiledRubric,
  type ScoreVector,
} from '../../core/index.js';
import { LruCache } from '../io/compiled-cache.js';

export const COMPARED: readonly AggregationMethod[] = ['flat', 'hard', 'gear', 'gear-exact'];

export interface ScoredRecord {
  readonly compiled: CompiledRubric;
  readonly scores: ScoreVector;
  readonly output: Record<string, unknown>;
}

/**
 * One input record -> one output record: flat, hard, gear and gear_exact rewards, the per-criterion
 * effective scores, and what the compile step dropped (with `explain`, also the `explain` block of
 * explainRecord). Compiled rubrics are shared through `cache`.
 * @throws GearError naming the field when the record is malformed.
 */
export function scoreRecord(record: unknown, options: AggregationOptions, cache: LruCache<CompiledRubric>, explain = false): ScoredRecord {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new GearError('invalid_input', [], 'each line must be a JSON object');
  }
  const fields = record as Record<string, unknown>;
  // Checked on every line, not only when the rubric is compiled: a line with both "rubric" and
  // "reward_model" is an error whatever the lines before it were.
  const format = detectRubricFormat(fields);
  const rubricPart = format === 'canonical' ? fields['rubric'] : fields['reward_model'];
  const key = LruCache.keyOf(JSON.stringify([format === 'canonical' ? 'canonical' : 'official', rubricPart]));
  const compiled = cache.getOrCreate(key, () => compileRubricRecord(fields, options));
  const scores = scoresOfRecord(compiled, fields);
  if (!isExactFeasible(compiled)) {
    throw new GearError('usage', ['gear_exact'], `graph too wide for exact inference (2^${compiled.plan.maxWidth} cells)`);
  }
  const { rewards, q } = compareAggregators(compiled, scores, COMPARED);
  const output: Record<string, unknown> = {};
  if (fields['id'] !== undefined) output['id'] = fields['id'];
  output['flat'] = rewards.flat;
  output['hard'] = rewards.hard;
  output['gear'] = rewards.gear;
  output['gear_exact'] = rewards['gear-exact'];
  output['auto_method'] = chooseAutoMethod(compiled);
  output['criteria'] = compiled.ids.map((id, i) => ({
    id,
    p: scores.p[i],
    flat: q.flat?.[i],
    hard: q.hard?.[i],
    gear: q.gear?.[i],
    gear_exact: q['gear-exact']?.[i],
  }));
  output['graph'] = {
    edges_kept: compiled.report.edgesKept,
    dropped_edges: compiled.report.droppedEdges,
  };
  if (explain) output['explain'] = explainRecord(compiled, scores);
  return { compiled, scores, output };
}
