import type { ChatAnswer, ChatCall } from '../transport/chat-call.js';
import { CanonicalJsonText, judgeCacheKey } from '../cache/cache-key.js';
import { messagesJson } from '../transport/openai-exchange.js';
import type { CachedAnswer } from '../cache/cached-answer.js';
import type { JudgeCache } from '../cache/judge-cache.js';

/** Anything that answers a chat call: the routed transport, or a test double of an endpoint. */
export interface ChatCompleter {
  complete(call: ChatCall): Promise<ChatAnswer>;
}

export interface JudgeAnswer extends CachedAnswer {
  readonly cached: boolean;
  readonly endpoint: string | null;
  readonly retries: number;
  readonly hedged: boolean;
  readonly latencyMs: number;
}

/**
 * The judge's LLM calls behind a content-hash cache: the same (model, messages, decoding, schema,
 * logprobs) is asked once. Identical calls in flight at the same time share one request (the 8
 * rollouts of a GRPO group can repeat a response), and every fresh answer is stored at once, so an
 * interrupted run resumes where it stopped.
 */
export class JudgeClient {
  private readonly inFlight = new Map<string, Promise<JudgeAnswer>>();

  constructor(
    private readonly completer: ChatCompleter,
    /** Identifies the model behind the endpoints in cache keys (answers of another model never hit). */
    readonly modelKey: string,
    private readonly cache?: JudgeCache,
  ) {}

  async ask(asked: Omit<ChatCall, 'signal' | 'messagesJson'>): Promise<JudgeAnswer> {
    // The prompt's JSON, written once: the key hashes it and the transport sends it.
    const call = { ...asked, messagesJson: messagesJson(asked.messages) };
    const key = judgeCacheKey({
      v: 1,
      model: this.modelKey,
      messages: new CanonicalJsonText(call.messagesJson),
      decoding: call.decoding,
      responseFormat: call.responseFormat,
      logprobs: call.logprobs,
    });
    const hit = this.cache?.get(key);
    if (hit !== undefined) return { ...hit, cached: true, endpoint: null, retries: 0, hedged: false, latencyMs: 0 };
    const pending = this.inFlight.get(key);
    if (pending !== undefined) return pending.then((answer) => ({ ...answer, cached: true }));
    const request = this.fetchAndStore(key, call);
    this.inFlight.set(key, request);
    try {
      return await request;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async fetchAndStore(key: string, call: Omit<ChatCall, 'signal'>): Promise<JudgeAnswer> {
    const answer = await this.completer.complete(call);
    const kept: CachedAnswer = {
      content: answer.content,
      finishReason: answer.finishReason,
      promptTokens: answer.promptTokens,
      completionTokens: answer.completionTokens,
      cachedPromptTokens: answer.cachedPromptTokens,
      ...(answer.logprobs === undefined ? {} : { logprobs: answer.logprobs.map((t) => ({ token: t.token, logprob: t.logprob, top: t.top.map((a) => ({ token: a.token, logprob: a.logprob })) })) }),
    };
    this.cache?.set(key, kept);
    return { ...kept, cached: false, endpoint: answer.endpoint, retries: answer.retries, hedged: answer.hedged, latencyMs: answer.latencyMs };
  }
}
