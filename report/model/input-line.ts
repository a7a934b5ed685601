import { z } from 'zod';
import { GearError, parseWith } from '../../core/index.js';
import { AGGREGATORS, RELATIONS, type Aggregator } from './report-model.js';

const Finite = z.number().refine(Number.isFinite, { message: 'must be a finite number' });
const Probability = z.number().min(0).max(1);
const AggregatorValues = z.partialRecord(z.enum(AGGREGATORS), Finite);

/** The `explain` block of `gear aggregate|score|judge --explain` (cli/commands/explain-record.ts). */
export const ExplainSchema = z.object({
  method: z.string(),
  denominator: Finite,
  rewards: AggregatorValues,
  criteria: z.array(
    z.object({
      id: z.string(),
      text: z.string(),
      role: z.string(),
      weight: Finite,
      p: Probability,
      met: z.boolean(),
      q: AggregatorValues,
      suppressed: Finite,
      reward_term: Finite,
      flat_reward_term: Finite,
      parents: z.array(
        z.object({
          parent: z.string(),
          relation: z.enum(RELATIONS),
          retention: Finite,
          parent_q: Finite,
          factor: Finite,
          suppressed: Finite,
        }),
      ),
    }),
  ),
});
export type Explain = z.infer<typeof ExplainSchema>;

const ErrorLineSchema = z.looseObject({
  line: z.number().int(),
  error: z.looseObject({ code: z.string(), path: z.array(z.union([z.string(), z.number()])), message: z.string() }),
});

const AggregateLineSchema = z.looseObject({
  line: z.number().int(),
  id: z.unknown().optional(),
  flat: Finite,
  hard: Finite,
  gear: Finite,
  gear_exact: Finite,
  explain: ExplainSchema.optional(),
});

const JudgeStatsSchema = z.looseObject({
  requests: z.number().int().min(0),
  cacheHits: z.number().int().min(0),
  retries: z.number().int().min(0),
  hedges: z.number().int().min(0),
  reasks: z.number().int().min(0),
  failedCriteria: z.number().int().min(0),
  failedRequests: z.number().int().min(0),
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  latencyMs: z.number().min(0),
});
export type JudgeStatsLine = z.infer<typeof JudgeStatsSchema>;

const ScoreLineSchema = z.looseObject({
  line: z.number().int(),
  id: z.unknown().optional(),
  host: z.string(),
  aggregator: z.string(),
  method: z.enum(['flat', 'hard', 'gear', 'gear-exact']),
  reward: Finite,
  native_reward: Finite,
  failed_criteria: z.number().int().min(0),
  criteria: z.array(z.looseObject({ id: z.string(), status: z.string() })),
  explain: ExplainSchema.optional(),
  judge: z.looseObject({ stats: JudgeStatsSchema }).optional(),
});

/** One input line, whichever command wrote it, in the terms the report uses. */
export type ScoredLine =
  | { readonly kind: 'error'; readonly line: number; readonly path: string; readonly message: string }
  | {
      readonly kind: 'aggregate' | 'score' | 'judge';
      readonly line: number;
      readonly id: string | null;
      readonly rewards: Readonly<Partial<Record<Aggregator, number>>>;
      readonly nativeReward: number | null;
      readonly failedCriteria: number | null;
      readonly statuses: readonly string[];
      readonly judge: JudgeStatsLine | null;
      readonly explain: Explain | null;
    };

const idText = (id: unknown): string | null => (id === undefined || id === null ? null : typeof id === 'string' ? id : JSON.stringify(id));

/**
 * Reads one JSON line of `gear aggregate`, `gear score` or `gear judge` output.
 * @throws GearError naming the line (`line 7`) and the field when it is none of them or malformed.
 */
export function readScoredLine(value: unknown, number: number): ScoredLine {
  const at = [`line ${number}`];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new GearError('invalid_input', at, 'must be a JSON object');
  const fields = value as Record<string, unknown>;
  if ('error' in fields) {
    const e = parseWith(ErrorLineSchema, fields, at);
    return { kind: 'error', line: e.line, path: e.error.path.join('.'), message: e.error.message };
  }
  if ('host' in fields || 'judge' in fields) {
    const s = parseWith(ScoreLineSchema, fields, at);
    // The chosen aggregator's reward; the explain block, when present, has all four.
    const key = (s.method === 'gear-exact' ? 'gear_exact' : s.method) as Aggregator;
    return {
      kind: s.judge !== undefined ? 'judge' : 'score',
      line: s.line,
      id: idText(s.id),
      rewards: s.explain !== undefined ? s.explain.rewards : { [key]: s.reward },
      nativeReward: s.native_reward,
      failedCriteria: s.failed_criteria,
      statuses: s.criteria.map((c) => c.status),
      judge: s.judge?.stats ?? null,
      explain: s.explain ?? null,
    };
  }
  if ('gear' in fields && 'flat' in fields) {
    const a = parseWith(AggregateLineSchema, fields, at);
    return {
      kind: 'aggregate',
      line: a.line,
      id: idText(a.id),
      rewards: { flat: a.flat, hard: a.hard, gear: a.gear, gear_exact: a.gear_exact },
      nativeReward: null,
      failedCriteria: null,
      statuses: [],
      judge: null,
      explain: a.explain ?? null,
    };
  }
  throw new GearError('invalid_input', at, 'not a line of gear aggregate, gear score or gear judge (no "flat"/"gear", "host" or "error" field)');
}
