import { z } from 'zod';
import type { ChatCall, ChatMessage, TokenLogprob } from './chat-call.js';
import { MalformedReplyError } from './attempt-failure.js';
import type { ChatHttpClient } from './chat-http.js';

/**
 * The messages as JSON text, each one's keys in sorted order (`content`, `role`), which is also
 * how the cache key's canonical JSON writes them: the judge client writes a prompt's JSON once, for
 * its key and for the body (escaping a ~4 KB prompt twice, for the key and again for the body, was
 * about a tenth of the service's CPU per request in a profile).
 */
export function messagesJson(messages: readonly ChatMessage[]): string {
  let out = '[';
  for (const m of messages) out += `${out.length > 1 ? ',' : ''}{"content":${JSON.stringify(m.content)},"role":${JSON.stringify(m.role)}}`;
  return `${out}]`;
}

/** The request body: OpenAI fields plus the vLLM/SGLang extensions. */
export function chatCompletionBody(model: string, call: ChatCall): Record<string, unknown> {
  return { ...decodingFields(call), model, messages: call.messages.map((m) => ({ role: m.role, content: m.content })) };
}

/** The body's fields besides the model and the messages: `extra` first, so the decoding's own win. */
function decodingFields(call: ChatCall): Record<string, unknown> {
  const { temperature, top_p, top_k, max_tokens, seed, chat_template_kwargs, extra } = call.decoding;
  const body: Record<string, unknown> = { ...extra, temperature, top_p, max_tokens };
  if (top_k !== undefined) body['top_k'] = top_k;
  if (seed !== undefined) body['seed'] = seed;
  if (chat_template_kwargs !== undefined) body['chat_template_kwargs'] = chat_template_kwargs;
  if (call.responseFormat !== undefined) {
    body['response_format'] = {
      type: 'json_schema',
      json_schema: { name: call.responseFormat.name, schema: call.responseFormat.schema, strict: true },
    };
  }
  if (call.logprobs !== undefined) {
    body['logprobs'] = true;
    body['top_logprobs'] = call.logprobs.top;
  }
  return body;
}

/**
 * A call's body as JSON text for any endpoint: written once per call, with only the model (which
 * differs per endpoint) written per attempt.
 */
export class ChatBodyText {
  private readonly rest: string;
  private readonly messages: string;

  constructor(call: ChatCall) {
    // Without the messages, which are written once (below), and an `extra` model or messages,
    // which the body's own replace.
    const rest = decodingFields(call);
    delete rest['model'];
    delete rest['messages'];
    const restJson = JSON.stringify(rest);
    this.rest = restJson === '{}' ? '' : `,${restJson.slice(1, -1)}`;
    this.messages = call.messagesJson ?? messagesJson(call.messages);
  }

  /** The body for an endpoint serving `model`. */
  for(model: string): string {
    return `{"model":${JSON.stringify(model)},"messages":${this.messages}${this.rest}}`;
  }
}

const TopLogprobSchema = z.object({ token: z.string(), logprob: z.number() });
const ReplySchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish() }),
        finish_reason: z.string().nullish(),
        logprobs: z
          .object({
            content: z.array(TopLogprobSchema.extend({ top_logprobs: z.array(TopLogprobSchema).nullish() })).nullish(),
          })
          .nullish(),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.number().optional(),
      completion_tokens: z.number().optional(),
      prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
});

export interface ExchangeReply {
  readonly content: string;
  readonly finishReason: string | null;
  readonly logprobs?: readonly TokenLogprob[];
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Prompt tokens the server took from its prompt cache (usage.prompt_tokens_details.cached_tokens; 0 when not reported). */
  readonly cachedPromptTokens: number;
}

/** Reads a chat completion reply; anything unusable (garbage, no choices, empty content) throws. */
export function readReply(raw: unknown): ExchangeReply {
  const parsed = ReplySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? '' : `${issue.path.join('.')}: ${issue.message}`;
    throw new MalformedReplyError(`not a chat completion (${typeof raw === 'string' ? 'non-JSON body' : where})`);
  }
  const choice = parsed.data.choices[0] as (typeof parsed.data.choices)[number];
  const content = choice.message.content ?? '';
  if (content.trim() === '') throw new MalformedReplyError('empty content');
  const tokens = choice.logprobs?.content;
  const reply: ExchangeReply = {
    content,
    finishReason: choice.finish_reason ?? null,
    promptTokens: parsed.data.usage?.prompt_tokens ?? 0,
    completionTokens: parsed.data.usage?.completion_tokens ?? 0,
    cachedPromptTokens: parsed.data.usage?.prompt_tokens_details?.cached_tokens ?? 0,
  };
  if (tokens === undefined || tokens === null) return reply;
  return {
    ...reply,
    logprobs: tokens.map((t) => ({ token: t.token, logprob: t.logprob, top: (t.top_logprobs ?? []).map((x) => ({ token: x.token, logprob: x.logprob })) })),
  };
}

/** One HTTP attempt: the body (JSON text) posted, the reply read (retries and routing are the transport's). */
export async function exchangeChat(
  http: ChatHttpClient,
  body: string,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<ExchangeReply> {
  return readReply(await http.postJson(body, options));
}
