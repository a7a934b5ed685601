/*
 * Scored judge prompt of the official GEAR implementation, reproduced verbatim so requests are
 * byte-identical: LvCan926/GEAR, reward_functions/scored_gear_reward_fn.py
 * (JUDGE_TEMPLATE_BATCH_SCORED, _format_rubric_items), Copyright the GEAR authors, Apache-2.0.
 */
import type { ChatMessage, JudgeRequest, JudgeResponseSchema } from '../host-adapter.js';
import { fillTemplate, formatTranscript, requiredKeys } from '../conversation.js';
import { pythonFloatRepr } from '../judge-output/python-repr.js';
import { closedObject, integerIn, keyedObject, numberIn, responseSchema } from '../judge-output/response-schemas.js';

export type ScoreType = 'scale_1_10' | 'partial_points';

export const JUDGE_TEMPLATE_BATCH_SCORED = `Your job is to evaluate the last assistant response in a conversation against multiple rubric items.

# Conversation
<<conversation>>

# Rubric Items
<<rubric_items>>

# Instructions
Return exactly one compact JSON object and nothing else.
Do not output markdown fences.
Do not output <think> or </think>.

Required rubric keys:
<<required_keys>>

The JSON object is invalid if any required key is missing.
The JSON object is invalid if it contains fewer than <<rubric_count>> rubric judgments.
Do not stop before returning all required keys.
Do not use rubric ids such as "r1".
Do not include explanations.
Do not include any text outside the JSON object.

For each rubric item:
- If score_type is "scale_1_10", assign a numeric "score" from 1 to 10 using the provided scoring rubric. Higher is better.
- If score_type is "partial_points", assign numeric "awarded_points" from 0 to max_points. Award partial credit according to the subitems in the rubric. Higher is better.

Example:
{
  "1": {"score": 8},
  "2": {"awarded_points": 15}
}`;

/** GEAR_MAX_RUBRICS_PER_JUDGE: one request judges at most this many rubric items. */
export const MAX_RUBRICS_PER_JUDGE = 4;

export interface ScoredItem {
  readonly criterion: string;
  readonly points: number;
  readonly scoreType: ScoreType;
  readonly maxScore: number;
}

export function buildScoredJudgeRequest(
  conversation: readonly ChatMessage[],
  response: string,
  items: readonly ScoredItem[],
  criteria: readonly number[],
): JudgeRequest {
  const rubricItems = items
    .map(
      (item, i) =>
        `${i + 1}. (score_type=${item.scoreType}, max_points=${pythonFloatRepr(item.maxScore)}, weight=${pythonFloatRepr(item.points)}) ${item.criterion}`,
    )
    .join('\n');
  const content = fillTemplate(JUDGE_TEMPLATE_BATCH_SCORED, [
    ['<<conversation>>', formatTranscript(conversation, response)],
    ['<<rubric_items>>', rubricItems],
    ['<<rubric_count>>', String(items.length)],
    ['<<required_keys>>', requiredKeys(items.length)],
  ]);
  return { messages: [{ role: 'user', content }], criteria, responseSchema: scoredResponseSchema(items) };
}

/** What the scored parser reads: key "k" holds {"score": integer 1..10} or {"awarded_points": 0..max_points}. */
export function scoredResponseSchema(items: readonly Pick<ScoredItem, 'scoreType' | 'maxScore'>[]): JudgeResponseSchema {
  return responseSchema(
    'gear_scored_verdicts',
    keyedObject(items.length, (k) => {
      const item = items[k] as Pick<ScoredItem, 'scoreType' | 'maxScore'>;
      return item.scoreType === 'scale_1_10' ? closedObject({ score: integerIn(1, 10) }) : closedObject({ awarded_points: numberIn(0, item.maxScore) });
    }),
  );
}
