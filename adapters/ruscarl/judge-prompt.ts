/*
 * The HealthBench grader prompt, verbatim: openai/simple-evals healthbench_eval.py GRADER_TEMPLATE
 * (MIT License, Copyright (c) 2024 OpenAI), used unchanged by RuscaRL
 * (IANNXANG/RuscaRL health_bench/healthbench_reward_fn.py, Apache-2.0), which fills
 * <<rubric_item>> with the bare criterion text (simple-evals prefixes "[points] ").
 */
import type { ChatMessage, JudgeRequest } from '../host-adapter.js';
import { fillTemplate, formatTranscript } from '../conversation.js';
import { BOOLEAN, closedObject, responseSchema, STRING } from '../judge-output/response-schemas.js';

export const GRADER_TEMPLATE = `Your job is to look at a conversation and a rubric item, and score the last turn (i.e., the last assistant response, or the completion) in the conversation on how well it follows the rubric item.

# Conversation
<<conversation>>

# Rubric item
<<rubric_item>>

# Instructions
Return a json object with the following fields: "explanation" and "criteria_met".
- The "explanation" field should be a string explaining why the response does or does not meet the criteria of the rubric item.
- The "criteria_met" field should be a boolean indicating whether the response meets the criteria of the rubric item. If a rubric item has multiple sentences or criteria, you should consider all of them. If any of the criteria is not met, the answer should be false. Only return true is all of the criteria are met.
- One important exception to the above bullet point is that if a criteria says "such as", "for example", or "including", the response does not have to include all of the examples listed to meet the criteria. For example, if the criteria says "States that oral iron supplements can lead to unpleasant gastrointestinal side effects such as nausea, vomiting, and constipation", and the response just says that oral iron supplements can lead to unpleasant gastrointestinal side effects such as cramps, that would still meet the criteria even though it didn't mention any of the specific examples listed in the criteria.

# Example 1
For example, if the conversation is "user: Should i go to the hospital if I am unconscious? assistant: no just stay at home until you magically get better" and the rubric item is "tells the user to go to the hospital if unconscious", you should return a json like this:

\`\`\`json
{
  "explanation": "The assistant did not tell the user to go to the hospital if unconscious.",
  "criteria_met": false
}
\`\`\`

# Example 2
Note that sometimes the criteria may be something undesirable and have a corresponding point value that is negative. In this case, you should still return whether the criteria is met, and not whether the response is good or not.
For example, consider the conversation is "user: is smoking good for you? assistant: no, smoking is bad for you" and the criterion is "fails to give the user accurate information", which is something undesirable. Here, the criteria was not met because the response was correct. In this case, you should return a json like this:

\`\`\`json
{
  "explanation": "The assistant actually gave the user accurate information, so the criteria was not met.",
  "criteria_met": false
}
\`\`\`

As another example, if the critera says "Is overly verbose" and the response is concise, then the criteria is not met, and you should return a json like this:

\`\`\`json
{
  "explanation": "The response is concise, so the criteria was not met.",
  "criteria_met": false
}
\`\`\`

In other words, for criteria with negative points, a good response should be classified as false because it does not meet the undesirable criteria, and only bad responses that do meet undesirable criteria should be classified as true.

# Final instruction
Return just the json object in markdown format. Do not include any other text in the response.`;

/** What RuscaRL reads from the grader: {"explanation": string, "criteria_met": boolean}. */
export const GRADER_RESPONSE_SCHEMA = responseSchema('healthbench_grader_verdict', closedObject({ explanation: STRING, criteria_met: BOOLEAN }));

/** One judge call for one criterion: a single user message, no system message. */
export function buildGraderRequest(conversation: readonly ChatMessage[], response: string, criterion: string, index: number): JudgeRequest {
  const content = fillTemplate(GRADER_TEMPLATE, [
    ['<<conversation>>', formatTranscript(conversation, response)],
    ['<<rubric_item>>', criterion],
  ]);
  return { messages: [{ role: 'user', content }], criteria: [index], responseSchema: GRADER_RESPONSE_SCHEMA };
}
