import { GearError, type OfficialReading } from '../../core/index.js';
import type { ChatMessage, HostFormat } from '../host-adapter.js';
import { checkRequestCriteria, chunkPositions, defineHostFormat, selectPositions } from '../judge-requests.js';
import { isRuleVerified, parseOfficialRow, RULE_VERIFIED_DETAIL } from '../official-gear/format.js';
import { officialFlatReward } from '../official-gear/native-reward.js';
import { buildScoredJudgeRequest, MAX_RUBRICS_PER_JUDGE, type ScoreType } from './judge-prompt.js';
import { parseScoredJudgeOutput, type ScoredJudgedItem, type ScoredMode } from './judge-parse.js';
import { plawbenchStandardReward } from './native-reward.js';
import { extractPointSubitems } from './subitems.js';

export interface ScoredRow {
  readonly conversation: readonly ChatMessage[];
  readonly reading: OfficialReading;
  readonly items: readonly ScoredJudgedItem[];
  /** Positions the LLM judges (rule-verified items are not). */
  readonly judged: readonly number[];
}

/** `_score_type_for`: tags.score_type when it names one, else by benchmark (writingbench: 1-10). */
function scoreTypeOf(item: unknown, host: 'writingbench' | 'plawbench', index: number): ScoreType {
  const tags = typeof item === 'object' && item !== null ? (item as { tags?: unknown }).tags : undefined;
  const declared = typeof tags === 'object' && tags !== null && !Array.isArray(tags) ? (tags as Record<string, unknown>)['score_type'] : undefined;
  // A client object or number here is a malformed row, not a score type to guess from.
  if (declared !== undefined && declared !== null && typeof declared !== 'string') {
    throw new GearError('invalid_input', ['reward_model', 'rubrics', index, 'tags', 'score_type'], 'must be a string (scale_1_10 or partial_points)');
  }
  const name = typeof declared === 'string' ? declared.trim().toLowerCase() : '';
  if (name === 'scale_1_10' || name === 'partial_points') return name;
  return host === 'writingbench' ? 'scale_1_10' : 'partial_points';
}

/** PLawBench's `pi_mode`: `prob` (default: a probability per subitem) or `binary` (a boolean per subitem). */
export type PlawBenchPiMode = 'prob' | 'binary';

export interface ScoredFormatOptions {
  /** score_met_threshold: met = p >= threshold (official default 0.7). */
  readonly threshold?: number;
  /** PLawBench only (WritingBench has only its 1-10 score; the host refuses binary there). */
  readonly piMode?: PlawBenchPiMode;
}

/**
 * WritingBench and PLawBench as the official GEAR code judges them (scored_gear_reward_fn.py with
 * the writingbench_/plawbench_gear_reward_fn.py defaults): official rows, LLM-judged items 4 per
 * request (GEAR_MAX_RUBRICS_PER_JUDGE).
 * - WritingBench: JUDGE_TEMPLATE_BATCH_SCORED, p = score / 10 (scale_1_10) or awarded / max
 *   (partial_points); native reward = the official flat reward (final_reward_mode aggregate).
 * - PLawBench: each criterion split into its "(+N分)" subitems; `prob` (default) asks a
 *   probability per subitem (JUDGE_TEMPLATE_BATCH_SUBITEM_PROB), `binary` a boolean
 *   (JUDGE_TEMPLATE_BATCH_BINARY_SUBITEM); p = sum(points x answer) / max; native reward = the
 *   host's default final_reward_mode `standard`: sum of positive points x p / sum of positive points.
 * met = p >= threshold (0.7).
 */
export function createScoredFormat(host: 'writingbench' | 'plawbench', options: ScoredFormatOptions = {}): HostFormat<ScoredRow> {
  const threshold = options.threshold ?? 0.7;
  const mode: ScoredMode = host === 'writingbench' ? 'normalized' : options.piMode === 'binary' ? 'subitem-binary' : 'subitem-prob';
  return defineHostFormat<ScoredRow>({
    host,
    scalarOptions:
      host === 'plawbench' ? { normalize: 'positive-sum', emptyDenominator: 'zero-reward' } : { normalize: 'positive-sum', emptyDenominator: 'divide-by-one' },

    parseRow(input: unknown): ScoredRow {
      const { conversation, reading, rawRubrics: raw } = parseOfficialRow(input);
      const items = reading.rubric.criteria.map((c, index): ScoredJudgedItem => {
        const scoreType = scoreTypeOf(raw[index], host, index);
        const maxScore = scoreType === 'scale_1_10' ? 10 : Math.max(c.weight, 0);
        if (!(maxScore > 0)) {
          throw new GearError('invalid_input', ['reward_model', 'rubrics', index, 'points'], 'a partial-points criterion needs positive points');
        }
        return { index, id: c.id, scoreType, maxScore, subitems: mode === 'normalized' ? [] : extractPointSubitems(c.text, maxScore) };
      });
      const judged = raw.map((item, i) => (isRuleVerified(item) ? -1 : i)).filter((i) => i >= 0);
      return { conversation, reading, items, judged };
    },

    toRubric: (row) => row.reading.rubric,

    planJudgeRequests: (row, only) => chunkPositions(selectPositions(row.items.length, row.judged, only), MAX_RUBRICS_PER_JUDGE),

    buildJudgeRequest(row, response, criteria) {
      const all = row.reading.rubric.criteria;
      checkRequestCriteria(all.length, criteria);
      const items = criteria.map((i) => {
        const item = row.items[i] as ScoredJudgedItem;
        return { criterion: all[i]?.text ?? '', points: all[i]?.weight ?? 0, scoreType: item.scoreType, maxScore: item.maxScore, subitems: item.subitems };
      });
      return buildScoredJudgeRequest(row.conversation, response, items, criteria, mode);
    },

    parseJudgeOutput: (row, criteria, raw) =>
      parseScoredJudgeOutput(
        raw,
        criteria.map((i) => row.items[i] as ScoredJudgedItem),
        mode,
        threshold,
      ),

    notJudged: (row, index) => ({ index, id: row.reading.rubric.criteria[index]?.id ?? String(index), p: 0, met: false, status: 'missing', detail: RULE_VERIFIED_DETAIL }),

    nativeReward: (row, judgments) => {
      const weights = row.reading.rubric.criteria.map((c) => c.weight);
      return host === 'plawbench' ? plawbenchStandardReward(weights, judgments) : officialFlatReward(weights, judgments);
    },

    extras: () => ({}),
  });
}
