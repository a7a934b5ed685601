/**
 * The bodies the fake OpenAI-compatible server sends: chat completions, errors, model lists, vLLM
 * metrics and the garbage variants. Shapes follow OpenAI's API reference and vLLM's /metrics.
 */
import type { ChatCompletionTokenLogprob } from 'openai/resources/chat/completions';
import type { FakeChatRequest, GarbageKind } from './fake-openai-server.js';

export interface AnswerParts {
  content: string;
  logprobs?: ChatCompletionTokenLogprob[];
  finishReason?: 'stop' | 'length';
  usage?: { promptTokens: number; completionTokens: number };
}

/** Whitespace-separated words: a deterministic stand-in for a tokenizer. */
function words(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

function promptWords(request: FakeChatRequest): number {
  let total = 0;
  for (const message of request.messages) {
    const content = message.content;
    total += typeof content === 'string' ? words(content) : content == null ? 0 : words(JSON.stringify(content));
  }
  return total;
}

let nextId = 1;

export function completionBody(request: FakeChatRequest, answer: AnswerParts, model: string): string {
  const promptTokens = answer.usage?.promptTokens ?? promptWords(request);
  const completionTokens = answer.usage?.completionTokens ?? words(answer.content);
  return JSON.stringify({
    id: `chatcmpl-fake-${nextId++}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.content, refusal: null },
        finish_reason: answer.finishReason ?? 'stop',
        logprobs: answer.logprobs === undefined ? null : { content: answer.logprobs, refusal: null },
      },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  });
}

/** OpenAI's error envelope. */
export function errorBody(message: string, type: string): string {
  return JSON.stringify({ error: { message, type, param: null, code: null } });
}

export function modelsBody(model: string): string {
  return JSON.stringify({
    object: 'list',
    data: [{ id: model, object: 'model', created: 0, owned_by: 'gear-fake-openai' }],
  });
}

export function garbageBody(kind: GarbageKind, model: string): { body: string; contentType: string } {
  switch (kind) {
    case 'not-json':
      return { body: '<html><body><h1>502 Bad Gateway</h1></body></html>', contentType: 'text/html' };
    case 'truncated-json': {
      const whole = completionBody({ messages: [] }, { content: DEFAULT_PROSE }, model);
      return { body: whole.slice(0, Math.floor(whole.length / 2)), contentType: 'application/json' };
    }
    case 'wrong-shape':
      return { body: JSON.stringify({ object: 'chat.completion', model, choices: 'none', usage: null }), contentType: 'application/json' };
    case 'unreadable-content':
      return { body: completionBody({ messages: [] }, { content: DEFAULT_PROSE }, model), contentType: 'application/json' };
  }
}

const DEFAULT_PROSE = 'I think the response is mostly fine, although it could be better in places.';

/** vLLM's scheduler gauges, as its /metrics endpoint prints them. */
export function vllmMetrics(model: string, running: number, waiting: number): string {
  const labels = `{engine="0",model_name="${model.replace(/["\\]/g, '\\$&')}"}`;
  return [
    '# HELP vllm:num_requests_running Number of requests in model execution batches.',
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running${labels} ${running.toFixed(1)}`,
    '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
    '# TYPE vllm:num_requests_waiting gauge',
    `vllm:num_requests_waiting${labels} ${waiting.toFixed(1)}`,
    '',
  ].join('\n');
}
