import { createRequire } from 'node:module';
import type { Pool as UndiciPool, util as undiciUtil } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import {
  AttemptAbortedError,
  AttemptTimeoutError,
  ConnectionFailedError,
  HttpStatusError,
  MalformedReplyError,
  type HeaderLookup,
} from './attempt-failure.js';

// undici's two modules this file uses, not its index: the index loads the whole library (fetch,
// WebSocket, caches, mocks), 100 ms of `gear judge`'s start-up against 50 for these (undici 6 has
// no "exports" map, so the paths are public; the types are the index's).
const require = createRequire(import.meta.url);
const Pool = require('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
const util = require('undici/lib/core/util.js') as typeof undiciUtil;
type Pool = UndiciPool;

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

  /**
   * POSTs `body` (JSON text) and returns the parsed 2xx reply.
   *
   * On undici's `dispatch` with a handler of our own rather than `request`: the reply is a few
   * hundred bytes, and `request`'s body stream (a Readable read by an async iterator) and its own
   * AbortController cost more CPU than the rest of reading it. With a fast judge the reply's
   * reading is on the path from one answer to the next request of its slot.
   */
  postJson(body: string, options: { timeoutMs: number; signal: AbortSignal }): Promise<unknown> {
    if (options.signal.aborted) return Promise.reject(new AttemptAbortedError('aborted before sending'));
    return new Promise<unknown>((resolve, reject) => {
      let abortRequest: ((error: Error) => void) | undefined;
      /** Why we stopped the request ourselves, once we did. */
      let stopped: Error | undefined;
      let settled = false;
      let status = 0;
      let headers: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let size = 0;
      const stop = (reason: Error): void => {
        stopped ??= reason;
        abortRequest?.(reason);
      };
      const timer = setTimeout(() => stop(new AttemptTimeoutError(`no complete reply within ${options.timeoutMs} ms`)), options.timeoutMs);
      const onAbort = (): void => stop(new AttemptAbortedError('aborted'));
      options.signal.addEventListener('abort', onAbort, { once: true });
      const settle = (outcome: () => unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal.removeEventListener('abort', onAbort);
        try {
          resolve(outcome());
        } catch (error) {
          reject(error);
        }
      };
      this.pool.dispatch(
        { path: this.path, method: 'POST', headers: this.headers, body },
        {
          onConnect: (abort) => {
            abortRequest = abort;
            if (stopped !== undefined) abort(stopped);
          },
          onHeaders: (statusCode, rawHeaders) => {
            if (statusCode < 200) return true; // 1xx: the real status follows
            status = statusCode;
            headers = util.parseHeaders(rawHeaders) as IncomingHttpHeaders;
            const declared = Number(headers['content-length']);
            if (declared > MAX_REPLY_BYTES) stop(new MalformedReplyError(`reply of ${declared} bytes, over ${MAX_REPLY_BYTES}`));
            return true;
          },
          onData: (chunk) => {
            size += chunk.length;
            if (size > MAX_REPLY_BYTES) {
              stop(new MalformedReplyError(`reply over ${MAX_REPLY_BYTES} bytes`));
              return false;
            }
            chunks.push(chunk);
            return true;
          },
          onComplete: () =>
            settle(() => {
              const text = chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
              if (status < 200 || status >= 300) throw new HttpStatusError(status, headerLookup(headers), errorMessage(status, text));
              try {
                return JSON.parse(text) as unknown;
              } catch {
                throw new MalformedReplyError('not a chat completion (non-JSON body)');
              }
            }),
          onError: (error) =>
            settle(() => {
              throw stopped ?? new ConnectionFailedError(describe(error));
            }),
        },
      );
    });
  }

  /** Drops the pool's connections; requests still out fail (their calls have ended by then). */
  async close(): Promise<void> {
    await this.pool.destroy();
  }
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
