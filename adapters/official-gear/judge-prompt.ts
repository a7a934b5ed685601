/*
 * Judge prompt templates of the official GEAR implementation, reproduced verbatim so requests are
 * byte-identical to the host's: LvCan926/GEAR, reward_functions/gear_batch_reward_fn.py
 * (JUDGE_TEMPLATE_BATCH_PROB, JUDGE_TEMPLATE_BATCH_BINARY), Copyright the GEAR authors,
 * Apache License 2.0.
 */
import type { ChatMessage, JudgeRequest, JudgeResponseSchema } from '../host-adapter.js';
import { fillTemplate, formatTranscript, requiredKeys } from '../conversation.js';
import { pythonFloatRepr } from '../judge-output/python-repr.js';
import { BOOLEAN, closedObject, keyedObject, numberIn, responseSchema } from '../judge-output/response-schemas.js';

export type PiMode = 'judge_prob' | 'binary';

export const JUDGE_TEMPLATE_BATCH_BINARY = `Your job is to evaluate the last assistant response in a conversation against multiple rubric items.

# Conversation
<<conversation>>

# Rubric Items
<<rubric_items>>

# Instructions
Return exactly one JSON object and nothing else.

Required rubric keys:
<<required_keys>>

The JSON object is invalid if any required key is missing.
The JSON object is invalid if it contains fewer than <<rubric_count>> rubric judgments.
Do not stop before returning all required keys.
Do not use rubric ids such as "r1".
Do not include explanations.
Do not include any text outside the JSON object.

For each rubric item, return an object with this exact schema:
{
  "criteria_met": true or false
}

Meaning:
- criteria_met=true means the assistant response satisfies this rubric item.
- criteria_met=false means the assistant response does not satisfy this rubric item.
- For negative-point rubrics, criteria_met=true means the undesirable criterion is present.
- For negative-point rubrics, if the undesirable criterion is not present, return criteria_met=false and prob_met close to 0.0.

Example:
{
  "1": {"criteria_met": true},
  "2": {"criteria_met": false}
}`;

export const JUDGE_TEMPLATE_BATCH_PROB = `Your job is to evaluate the last assistant response in a conversation against multiple rubric items.

# Conversation
<<conversation>>

# Rubric Items
<<rubric_items>>

# Instructions
Return exactly one JSON object and nothing else.

Required rubric keys:
<<required_keys>>

The JSON object is invalid if any required key is missing.
The JSON object is invalid if it contains fewer than <<rubric_count>> rubric judgments.
Do not stop before returning all required keys.
Do not use rubric ids such as "r1".
Do not use labels such as "PRESENT" or "NOT_PRESENT".
Do not include explanations.
Do not include any text outside the JSON object.

For each rubric item, return an object with this exact schema:
{
  "criteria_met": true or false,
  "prob_met": a number between 0 and 1
}

Meaning:
- criteria_met=true means the assistant response satisfies this rubric item.
- criteria_met=false means the assistant response does not satisfy this rubric item.
- prob_met means the probability that criteria_met is true.
- If criteria_met is true, prob_met should be >= 0.5.
- If criteria_met is false, prob_met should be <= 0.5.
- For negative-point rubrics, criteria_met=true means the undesirable criterion is present.
- For negative-point rubrics, if the undesirable criterion is not present, return criteria_met=false and prob_met close to 0.0.

Example:
{
  "1": {"criteria_met": true, "prob_met": 0.95},
  "2": {"criteria_met": false, "prob_met": 0.10}
}`;

export interface PromptItem {
  readonly criterion: string;
  readonly points: number;
}

/** `_build_batch_judge_prompt`: all judged items of one response in one user message. */
export function buildBatchJudgeRequest(
  conversation: readonly ChatMessage[],
  response: string,
  items: readonly PromptItem[],
  criteria: readonly number[],
  piMode: PiMode,
): JudgeRequest {
  const rubricItems = items.map((item, i) => `${i + 1}. (points=${pythonFloatRepr(item.points)}) ${item.criterion}`).join('\n');
  const template = piMode === 'judge_prob' ? JUDGE_TEMPLATE_BATCH_PROB : JUDGE_TEMPLATE_BATCH_BINARY;
  const content = fillTemplate(template, [
    ['<<conversation>>', formatTranscript(conversation, response)],
    ['<<rubric_items>>', rubricItems],
    ['<<rubric_count>>', String(items.length)],
    ['<<required_keys>>', requiredKeys(items.length)],
  ]);
  return { messages: [{ role: 'user', content }], criteria, responseSchema: batchResponseSchema(items.length, piMode) };
}

/** What the official parser reads: keys "1".."n", each {criteria_met, prob_met in [0, 1]} (binary: no prob_met). */
export function batchResponseSchema(count: number, piMode: PiMode): JudgeResponseSchema {
  const item = piMode === 'judge_prob' ? closedObject({ criteria_met: BOOLEAN, prob_met: numberIn(0, 1) }) : closedObject({ criteria_met: BOOLEAN });
  return responseSchema(piMode === 'judge_prob' ? 'gear_batch_prob_verdicts' : 'gear_batch_binary_verdicts', keyedObject(count, () => item));
}
