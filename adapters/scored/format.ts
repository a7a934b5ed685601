import { GearError, type OfficialReading } from '../../core/index.js';
import type { ChatMessage, HostFormat, HostName } from '../host-adapter.js';
import { checkRequestCriteria, chunkPositions, defineHostFormat, selectPositions, allPositions } from '../judge-requests.js';
import { parseOfficialRow } from '../official-gear/format.js';
import { officialFlatReward } from '../official-gear/native-reward.js';
import { buildScoredJudgeRequest, MAX_RUBRICS_PER_JUDGE, type ScoreType } from './judge-prompt.js';
import { parseScoredJudgeOutput, type ScoredJudgedItem } from './judge-parse.js';

export interface ScoredRow {
  readonly conversation: readonly ChatMessage[];
  readonly reading: OfficialReading;
  readonly items: readonly ScoredJudgedItem[];
}

/** The official GEAR code's score type: tags.score_type, else by benchmark (writingbench: 1-10). */
function scoreTypeOf(item: unknown, host: 'writingbench' | 'plawbench'): ScoreType {
  const tags = typeof item === 'object' && item !== null ? (item as { tags?: unknown }).tags : undefined;
  const declared = typeof tags === 'object' && tags !== null ? String((tags as Record<string, unknown>)['score_type'] ?? '').trim().toLowerCase() : '';
  if (declared === 'scale_1_10' || declared === 'partial_points') return declared;
  return host === 'writingbench' ? 'scale_1_10' : 'partial_points';
}

/**
 * WritingBench (each criterion scored 1-10, p = score / 10) and PLawBench (partial points,
 * p = awarded / max) as the official GEAR code judges them: rows in the official format, rubric
 * items judged 4 per request with JUDGE_TEMPLATE_BATCH_SCORED, met = p >= 0.7.
 */
export function createScoredFormat(host: 'writingbench' | 'plawbench', threshold = 0.7): HostFormat<ScoredRow> {
  return defineHostFormat<ScoredRow>({
    host: host satisfies HostName,
    scalarOptions: { normalize: 'positive-sum', emptyDenominator: 'divide-by-one' },

    parseRow(input: unknown): ScoredRow {
      const { conversation, reading, rawRubrics: raw } = parseOfficialRow(input);
      const items = reading.rubric.criteria.map((c, index) => {
        const scoreType = scoreTypeOf(raw[index], host);
        const maxScore = scoreType === 'scale_1_10' ? 10 : Math.max(c.weight, 0);
        if (!(maxScore > 0)) {
          throw new GearError('invalid_input', ['reward_model', 'rubrics', index, 'points'], 'a partial-points criterion needs positive points');
        }
        return { index, id: c.id, scoreType, maxScore };
      });
      return { conversation, reading, items };
    },

    toRubric: (row) => row.reading.rubric,

    planJudgeRequests: (row, only) => chunkPositions(selectPositions(row.items.length, allPositions(row.items.length), only), MAX_RUBRICS_PER_JUDGE),

    buildJudgeRequest(row, response, criteria) {
      const all = row.reading.rubric.criteria;
      checkRequestCriteria(all.length, criteria);
      const items = criteria.map((i) => {
        const item = row.items[i] as ScoredJudgedItem;
        return { criterion: all[i]?.text ?? '', points: all[i]?.weight ?? 0, scoreType: item.scoreType, maxScore: item.maxScore };
      });
      return buildScoredJudgeRequest(row.conversation, response, items, criteria);
    },

    parseJudgeOutput(row, criteria, raw) {
      const items = criteria.map((i) => row.items[i] as ScoredJudgedItem);
      if (raw === undefined) {
        return items.map((item) => ({ index: item.index, id: item.id, p: 0, met: false, status: 'missing' as const, detail: 'no judge output for this request' }));
      }
      return parseScoredJudgeOutput(raw, items, threshold);
    },

    nativeReward: (row, judgments) => officialFlatReward(row.reading.rubric.criteria.map((c) => c.weight), judgments),

    extras: () => ({}),
  });
}
