/*
 * RaR-Explicit judges each rubric item on its own (Gunjal et al., "Rubrics as Rewards", v1 sec. 2.1,
 * v2 sec. 2.2) but publishes neither code nor the per-item prompt. This prompt is gear's: it
 * follows the style of the paper's published RaR-Implicit prompt (v2 appendix A.6: an expert
 * evaluator, <prompt>/<response> tags, a fenced JSON answer) and asks for one boolean.
 */
import type { ChatMessage, JudgeRequest } from '../host-adapter.js';
import { fillTemplate } from '../conversation.js';
import { BOOLEAN, closedObject, responseSchema } from '../judge-output/response-schemas.js';

/** What gear reads from the RaR-Explicit judge: {"satisfied": boolean}. */
export const EXPLICIT_RESPONSE_SCHEMA = responseSchema('rar_explicit_verdict', closedObject({ satisfied: BOOLEAN }));

export const RAR_EXPLICIT_SYSTEM_PROMPT = `You are an expert evaluator. Given a user prompt, a generated response, and one rubric criterion, decide whether the response satisfies the criterion.
Judge only this criterion. If the criterion describes something the response should avoid, it is satisfied when the response avoids it.
Start your response with a valid JSON object that starts with "\`\`\`json" and ends with "\`\`\`". The JSON object should contain a single key "satisfied" and the value should be true or false.
Example response:
\`\`\`json
{
  "satisfied": true
}
\`\`\``;

export const RAR_EXPLICIT_USER_TEMPLATE = `Given the following prompt, response, and rubric criterion, decide whether the response satisfies the criterion.

<prompt>
{prompt}
</prompt>
<response>
{response}
</response>
<criterion>
{criterion}
</criterion>

Your JSON Evaluation:`;

/** The conversation before the response, as the prompt text (user turns only, as RaR's single-turn data has). */
function promptText(conversation: readonly ChatMessage[]): string {
  return conversation
    .filter((m) => m.role !== 'system')
    .map((m) => m.content)
    .join('\n\n');
}

export function buildExplicitRequest(conversation: readonly ChatMessage[], response: string, description: string, index: number): JudgeRequest {
  const user = fillTemplate(RAR_EXPLICIT_USER_TEMPLATE, [
    ['{prompt}', promptText(conversation)],
    ['{response}', response],
    ['{criterion}', description],
  ]);
  return {
    messages: [
      { role: 'system', content: RAR_EXPLICIT_SYSTEM_PROMPT },
      { role: 'user', content: user },
    ],
    criteria: [index],
    responseSchema: EXPLICIT_RESPONSE_SCHEMA,
  };
}
