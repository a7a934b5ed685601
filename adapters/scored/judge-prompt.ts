/*
 * Scored judge prompts of the official GEAR implementation, reproduced verbatim so requests are
 * byte-identical: LvCan926/GEAR, reward_functions/scored_gear_reward_fn.py
 * (JUDGE_TEMPLATE_BATCH_SCORED, JUDGE_TEMPLATE_BATCH_SUBITEM_PROB,
 * JUDGE_TEMPLATE_BATCH_BINARY_SUBITEM, _format_rubric_items, _build_batch_scored_prompt),
 * Copyright the GEAR authors, Apache-2.0.
 */
import type { ChatMessage, JudgeRequest, JudgeResponseSchema } from '../host-adapter.js';
import { fillTemplate, formatTranscript, requiredKeys } from '../conversation.js';
import { pythonFloatRepr, pythonFormatG } from '../judge-output/python-repr.js';
import { pyCollapseWhitespace } from '../judge-output/python-text.js';
import { BOOLEAN, closedObject, integerIn, keyedObject, numberIn, responseSchema } from '../judge-output/response-schemas.js';
import type { ScoredMode } from './judge-parse.js';
import type { Subitem } from './subitems.js';

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

export const JUDGE_TEMPLATE_BATCH_SUBITEM_PROB = `Your job is to evaluate the last assistant response in a conversation against multiple rubric items.

# Conversation
<<conversation>>

# Rubric Items and Scoring Subitems
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
- Judge each listed subitem independently.
- Return "prob_met" for each subitem, a number from 0 to 1 indicating the probability that the candidate response satisfies that subitem.
- The reward code will multiply each subitem probability by its points and normalize by total points.

Example:
{
  "1": {"subitems": {"1": {"prob_met": 0.95}, "2": {"prob_met": 0.10}}},
  "2": {"subitems": {"1": {"prob_met": 0.80}}}
}`;

export const JUDGE_TEMPLATE_BATCH_BINARY_SUBITEM = `Your job is to evaluate the last assistant response in a conversation against multiple rubric items.

# Conversation
<<conversation>>

# Rubric Items and Scoring Subitems
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
- Judge each listed subitem independently.
- Return true if the candidate response satisfies that subitem, otherwise false.
- The reward code will add the points of satisfied subitems and assign 0 points to unsatisfied subitems.

Example:
{
  "1": {"subitems": {"1": true, "2": false}},
  "2": {"subitems": {"1": true}}
}`;

/** GEAR_MAX_RUBRICS_PER_JUDGE: one request judges at most this many rubric items. */
export const MAX_RUBRICS_PER_JUDGE = 4;

export interface ScoredItem {
  readonly criterion: string;
  readonly points: number;
  readonly scoreType: ScoreType;
  readonly maxScore: number;
  /** The "(+N分)" subitems (subitem modes). */
  readonly subitems: readonly Subitem[];
}

/** `_format_rubric_items`: one line per item, or in the subitem modes a header and its subitems. */
export function formatRubricItems(items: readonly ScoredItem[], mode: ScoredMode): string {
  const lines: string[] = [];
  items.forEach((item, i) => {
    const header = `${i + 1}. (score_type=${item.scoreType}, max_points=${pythonFloatRepr(item.maxScore)}, weight=${pythonFloatRepr(item.points)})`;
    if (mode === 'normalized') {
      lines.push(`${header} ${item.criterion}`);
      return;
    }
    lines.push(header, 'Subitems:');
    item.subitems.forEach((subitem, j) => lines.push(`  ${j + 1}. (+${pythonFormatG(subitem.points)}) ${pyCollapseWhitespace(subitem.text)}`));
  });
  return lines.join('\n');
}

const TEMPLATES: Readonly<Record<ScoredMode, string>> = {
  normalized: JUDGE_TEMPLATE_BATCH_SCORED,
  'subitem-prob': JUDGE_TEMPLATE_BATCH_SUBITEM_PROB,
  'subitem-binary': JUDGE_TEMPLATE_BATCH_BINARY_SUBITEM,
};

/** `_build_batch_scored_prompt`: the items of one request in one user message. */
export function buildScoredJudgeRequest(
  conversation: readonly ChatMessage[],
  response: string,
  items: readonly ScoredItem[],
  criteria: readonly number[],
  mode: ScoredMode,
): JudgeRequest {
  const content = fillTemplate(TEMPLATES[mode], [
    ['<<conversation>>', formatTranscript(conversation, response)],
    ['<<rubric_items>>', formatRubricItems(items, mode)],
    ['<<rubric_count>>', String(items.length)],
    ['<<required_keys>>', requiredKeys(items.length)],
  ]);
  return { messages: [{ role: 'user', content }], criteria, responseSchema: scoredResponseSchema(items, mode) };
}

/**
 * What the scored parser reads: key "k" holds {"score": integer 1..10} or {"awarded_points":
 * 0..max_points}; in the subitem modes {"subitems": {"j": {"prob_met": 0..1}}} or {"subitems": {"j": boolean}}.
 */
export function scoredResponseSchema(items: readonly Pick<ScoredItem, 'scoreType' | 'maxScore' | 'subitems'>[], mode: ScoredMode): JudgeResponseSchema {
  const itemSchema = (item: Pick<ScoredItem, 'scoreType' | 'maxScore' | 'subitems'>): Readonly<Record<string, unknown>> => {
    if (mode === 'subitem-prob') return closedObject({ subitems: keyedObject(item.subitems.length, () => closedObject({ prob_met: numberIn(0, 1) })) });
    if (mode === 'subitem-binary') return closedObject({ subitems: keyedObject(item.subitems.length, () => BOOLEAN) });
    return item.scoreType === 'scale_1_10' ? closedObject({ score: integerIn(1, 10) }) : closedObject({ awarded_points: numberIn(0, item.maxScore) });
  };
  const name = mode === 'normalized' ? 'gear_scored_verdicts' : mode === 'subitem-prob' ? 'gear_subitem_prob_verdicts' : 'gear_subitem_binary_verdicts';
  return responseSchema(name, keyedObject(items.length, (k) => itemSchema(items[k] as ScoredItem)));
}
