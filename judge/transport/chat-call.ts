/** One chat completion the judge asks for, and what comes back. Plain data: no transport in here. */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface Decoding {
  temperature: number;
  top_p: number;
  /** vLLM / SGLang / llama.cpp extension (not an OpenAI parameter). */
  top_k?: number;
  max_tokens: number;
  seed?: number;
  /** e.g. Qwen3's {enable_thinking: false}; vLLM and SGLang read it. */
  chat_template_kwargs?: Record<string, unknown>;
  /** Further body fields sent as given (e.g. llama.cpp's `cache_prompt: false`). */
  extra?: Record<string, unknown>;
}

/** The official GEAR judge decoding (VLLMSampler.__call__): greedy, Qwen3 thinking off. */
export const OFFICIAL_DECODING: Decoding = Object.freeze({
  temperature: 0,
  top_p: 0.8,
  top_k: 20,
  max_tokens: 1024,
  chat_template_kwargs: Object.freeze({ enable_thinking: false }),
}) as Decoding;

export interface ChatCall {
  messages: readonly ChatMessage[];
  decoding: Decoding;
  /** Sent as response_format {type: 'json_schema', json_schema: {name, schema, strict: true}}. */
  responseFormat?: { name: string; schema: Record<string, unknown> };
  /** Ask for token logprobs with this many alternatives per position. */
  logprobs?: { top: number };
  /**
   * `messages` as JSON text, exactly as `messagesJson` writes them, when the caller already wrote
   * it (the judge client does, for its cache key): sent as it is, so a prompt is escaped once.
   */
  messagesJson?: string;
  signal?: AbortSignal;
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  top: readonly { token: string; logprob: number }[];
}

export interface ChatAnswer {
  content: string;
  finishReason: string | null;
  logprobs?: readonly TokenLogprob[];
  promptTokens: number;
  completionTokens: number;
  /** Of promptTokens, those the server reused from its prompt cache (0 when it does not say). */
  cachedPromptTokens: number;
  /** The base URL of the endpoint that answered. */
  endpoint: string;
  /** HTTP attempts made for this call (hedges included). */
  attempts: number;
  /** Attempts started after a failed one. */
  retries: number;
  /** Whether a hedge (second copy) was sent. */
  hedged: boolean;
  /** From the call to the answer, queueing and retries included. */
  latencyMs: number;
}
