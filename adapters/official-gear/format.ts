import { z } from 'zod';
import { GearError, parseWith, readOfficialRewardModel, type OfficialReading, type Rubric } from '../../core/index.js';
import type { ChatMessage, HostFormat } from '../host-adapter.js';
import { ConversationSchema } from '../conversation.js';
import { checkRequestCriteria, defineHostFormat, selectPositions } from '../judge-requests.js';
import { buildBatchJudgeRequest, type PiMode } from './judge-prompt.js';
import { parseBatchJudgeOutput } from './judge-parse.js';
import { officialFlatReward } from './native-reward.js';

/** The row as the official GEAR repo writes it into VERL's extra_info. */
export const OfficialGearRowSchema = z.looseObject({
  prompt: ConversationSchema,
  reward_model: z.unknown(),
});

export interface ParsedOfficialRow {
  readonly conversation: readonly ChatMessage[];
  readonly reading: OfficialReading;
  /** reward_model.rubrics as given (tags and all). */
  readonly rawRubrics: readonly unknown[];
}

/** An official GEAR extra_info row: the conversation and the reward_model read into a rubric. */
export function parseOfficialRow(input: unknown): ParsedOfficialRow {
  const row = parseWith(OfficialGearRowSchema, input);
  let reading: OfficialReading;
  try {
    reading = readOfficialRewardModel(row.reward_model);
  } catch (error) {
    throw error instanceof GearError ? error.under(['reward_model']) : error;
  }
  // Points reach prompts through Python's float repr: a string like "1e400" must not arrive as Infinity.
  reading.rubric.criteria.forEach((c, i) => {
    if (!Number.isFinite(c.weight)) throw new GearError('invalid_input', ['reward_model', 'rubrics', i, 'points'], 'must be a finite number');
  });
  return { conversation: row.prompt, reading, rawRubrics: (row.reward_model as { rubrics: unknown[] }).rubrics };
}

export interface OfficialGearRow {
  readonly conversation: readonly ChatMessage[];
  readonly reading: OfficialReading;
  /** Criteria the LLM judges; rule-verified ones (tags.verifier == "rule") are not judged by gear. */
  readonly judged: readonly number[];
}

/**
 * Whether the official code checks this item with a rule function instead of the LLM judge
 * (`tags.verifier == "rule"` and a truthy `tags.function`; list tags "key:value" read as
 * RubricItem.from_dict reads them).
 */
export function isRuleVerified(item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false;
  const tags = tagsOf((item as { tags?: unknown }).tags);
  return tags.get('verifier') === 'rule' && pyTruthy(tags.get('function'));
}

function tagsOf(tags: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (Array.isArray(tags)) {
    for (const tag of tags) {
      if (typeof tag !== 'string') continue;
      const at = tag.indexOf(':');
      if (at >= 0) out.set(tag.slice(0, at), tag.slice(at + 1));
      else out.set(tag, true);
    }
  } else if (typeof tags === 'object' && tags !== null) {
    for (const [key, value] of Object.entries(tags)) out.set(key, value);
  }
  return out;
}

/** Python's truthiness of a JSON value. */
function pyTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return Boolean(value);
}

export const RULE_VERIFIED_DETAIL = 'rule-verified criterion: gear does not run rule functions';

/**
 * The official GEAR HealthBench judge (gear_batch_reward_fn.py): every LLM-judged criterion of a
 * response in one request (the file never reads GEAR_MAX_RUBRICS_PER_JUDGE).
 */
export function createOfficialGearFormat(piMode: PiMode = 'judge_prob'): HostFormat<OfficialGearRow> {
  return defineHostFormat<OfficialGearRow>({
    host: 'gear',
    scalarOptions: { normalize: 'positive-sum', emptyDenominator: 'divide-by-one' },

    parseRow(input: unknown): OfficialGearRow {
      const { conversation, reading, rawRubrics } = parseOfficialRow(input);
      const judged = rawRubrics.map((item, i) => (isRuleVerified(item) ? -1 : i)).filter((i) => i >= 0);
      return { conversation, reading, judged };
    },

    toRubric: (row): Rubric => row.reading.rubric,

    planJudgeRequests(row, only) {
      const criteria = selectPositions(row.reading.rubric.criteria.length, row.judged, only);
      return criteria.length === 0 ? [] : [criteria];
    },

    buildJudgeRequest(row, response, criteria) {
      const all = row.reading.rubric.criteria;
      checkRequestCriteria(all.length, criteria);
      const items = criteria.map((i) => ({ criterion: all[i]?.text ?? '', points: all[i]?.weight ?? 0 }));
      return buildBatchJudgeRequest(row.conversation, response, items, criteria, piMode);
    },

    parseJudgeOutput(row, criteria, raw) {
      const all = row.reading.rubric.criteria;
      return parseBatchJudgeOutput(raw, criteria.map((index) => ({ index, id: all[index]?.id ?? String(index) })), piMode);
    },

    notJudged: (row, index) => ({ index, id: row.reading.rubric.criteria[index]?.id ?? String(index), p: 0, met: false, status: 'missing', detail: RULE_VERIFIED_DETAIL }),

    nativeReward: (row, judgments) => officialFlatReward(row.reading.rubric.criteria.map((c) => c.weight), judgments),

    extras: () => ({}),
  });
}
