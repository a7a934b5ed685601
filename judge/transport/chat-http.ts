import { Pool } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import {
  AttemptAbortedError,
  AttemptTimeoutError,
  ConnectionFailedError,
  HttpStatusError,
  MalformedReplyError,
  type HeaderLookup,
} from './attempt-failure.js';

/**
 * A reply larger than this is not a judge's chat completion (a verdict with top-20 logprobs for
 * 1,024 tokens is under 2 MiB); reading stops there, so a broken server cannot fill memory.
 */
export const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/**
 * One endpoint's POST {base}/chat/completions on an undici connection pool (keep-alive).
 *
 * Why undici's `request` and not the `openai` SDK on `fetch`: measured against an endpoint that
 * answers at once (`npm run bench -- judge-client`), an attempt through the SDK cost ~0.4 ms of
 * CPU and through this ~0.1 ms; with a fast judge that CPU was what a verl step waited for. The
 * SDK added nothing we used beyond HTTP: the body, the reply's reading (zod), retries, routing and
 * timeouts are ours.
 *
 * Errors are typed for classifyFailure: AttemptTimeoutError (this attempt's own timeout),
 * AttemptAbortedError (the caller's signal), HttpStatusError (non-2xx), MalformedReplyError (a
 * 2xx body that is not JSON, or too large), ConnectionFailedError (anything on the way).
 */
export class ChatHttpClient {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;

  constructor(baseUrl: string, apiKey: string) {
    const url = new URL(`${baseUrl}/chat/completions`);
    // undici's own headers/body timeouts (300 s) are off: each attempt carries its own timeout,
    // which may be longer for a slow judge.
    this.pool = new Pool(url.origin, { headersTimeout: 0, bodyTimeout: 0 });
    this.path = url.pathname;
    this.headers = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${apiKey}` };
  }

  /** POSTs `body` (JSON text) and returns the parsed 2xx reply. */
  async postJson(body: string, options: { timeoutMs: number; signal: AbortSignal }): Promise<unknown> {
    if (options.signal.aborted) throw new AttemptAbortedError('aborted before sending');
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, options.timeoutMs);
    const onAbort = (): void => controller.abort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const reply = await this.pool.request({ path: this.path, method: 'POST', headers: this.headers, body, signal: controller.signal });
      const text = await readCapped(reply.body, reply.headers);
      if (reply.statusCode < 200 || reply.statusCode >= 300) throw new HttpStatusError(reply.statusCode, headerLookup(reply.headers), errorMessage(reply.statusCode, text));
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new MalformedReplyError('not a chat completion (non-JSON body)');
      }
    } catch (error) {
      if (timedOut) throw new AttemptTimeoutError(`no complete reply within ${options.timeoutMs} ms`);
      if (options.signal.aborted) throw new AttemptAbortedError('aborted');
      if (error instanceof HttpStatusError || error instanceof MalformedReplyError) throw error;
      throw new ConnectionFailedError(describe(error));
    } finally {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    }
  }

  /** Drops the pool's connections; requests still out fail (their calls have ended by then). */
  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

type ReplyBody = AsyncIterable<Buffer> & { destroy(): unknown; on(event: 'error', listener: () => void): unknown };

async function readCapped(body: ReplyBody, headers: IncomingHttpHeaders): Promise<string> {
  const declared = Number(headers['content-length']);
  if (declared > MAX_REPLY_BYTES) {
    discard(body);
    throw new MalformedReplyError(`reply of ${declared} bytes, over ${MAX_REPLY_BYTES}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_REPLY_BYTES) {
      discard(body);
      throw new MalformedReplyError(`reply over ${MAX_REPLY_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
}

/** Drops the rest of a reply (and its connection). undici then emits an abort error nobody else awaits. */
function discard(body: ReplyBody): void {
  body.on('error', () => {});
  body.destroy();
}

function headerLookup(headers: IncomingHttpHeaders): HeaderLookup {
  return {
    get: (name) => {
      const value = headers[name];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** As the OpenAI SDKs word it: the status, then the body's error.message (or the body). */
function errorMessage(status: number, text: string): string {
  let detail = text.trim().slice(0, 500);
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown };
    const message = parsed.error?.message ?? parsed.message;
    if (typeof message === 'string') detail = message;
  } catch {
    // Not JSON: the text as given.
  }
  return detail === '' ? `${status} status code (no body)` : `${status} ${detail}`;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${typeof code === 'string' ? `${code} ` : ''}${error.message}${cause}`;
}
