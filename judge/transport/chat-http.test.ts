import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AttemptAbortedError, AttemptTimeoutError, ConnectionFailedError, HttpStatusError, MalformedReplyError, classifyFailure } from './attempt-failure.js';
import { ChatHttpClient, MAX_REPLY_BYTES } from './chat-http.js';
import { deadPortUrl } from './testing/fault-server.js';
import { rejectionOf } from './testing/rejection.js';

/** Test endpoints written for these fault paths: each test gives the handler. */
const servers: Server[] = [];
const clients: ChatHttpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function endpoint(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function client(base: string, apiKey = 'EMPTY'): ChatHttpClient {
  const c = new ChatHttpClient(base, apiKey);
  clients.push(c);
  return c;
}

const post = (c: ChatHttpClient, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<unknown> =>
  c.postJson(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'é ✓' }] }), { timeoutMs: options.timeoutMs ?? 10_000, signal: options.signal ?? new AbortController().signal });

describe('ChatHttpClient', () => {
  it("posts the body as JSON to the base URL's /chat/completions with the key, and parses the reply", async () => {
    const seen: { method: string | undefined; url: string | undefined; auth: string | undefined; type: string | undefined; body: unknown }[] = [];
    const base = await endpoint((req, res, body) => {
      seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], body: JSON.parse(body) });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content: 'ü' } }] }));
    });
    const reply = await post(client(`${base}/openai/v1`, 'sk-test'));
    expect(reply).toEqual({ choices: [{ message: { content: 'ü' } }] });
    expect(seen).toEqual([
      { method: 'POST', url: '/openai/v1/chat/completions', auth: 'Bearer sk-test', type: 'application/json', body: { model: 'm', messages: [{ role: 'user', content: 'é ✓' }] } },
    ]);
  });

  it('reads a reply that arrives in many chunks, split inside a character', async () => {
    const text = JSON.stringify({ choices: [{ message: { content: 'ß'.repeat(50_000) } }] });
    const bytes = Buffer.from(text, 'utf8');
    const base = await endpoint((_req, res) => {
      res.writeHead(200);
      // Odd-sized writes cut the two-byte 'ß' in half at every boundary.
      for (let i = 0; i < bytes.length; i += 4097) res.write(bytes.subarray(i, i + 4097));
      res.end();
    });
    expect(await post(client(base))).toEqual(JSON.parse(text));
  });

  it('gives a non-2xx status with the error message and a readable Retry-After', async () => {
    const base = await endpoint((_req, res) => {
      res.writeHead(429, { 'retry-after': '3', 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'slow down' } }));
    });
    const error = await rejectionOf(post(client(base)), Error);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.message).toBe('429 slow down');
    expect(classifyFailure(error, 0)).toEqual({ kind: 'rate-limited', status: 429, retryAfterMs: 3000, message: '429 slow down' });
  });

  it('calls a 2xx body that is not JSON a malformed reply', async () => {
    const base = await endpoint((_req, res) => res.writeHead(200).end('<html>proxy error</html>'));
    const error = await rejectionOf(post(client(base)), Error);
    expect(error).toBeInstanceOf(MalformedReplyError);
    expect(classifyFailure(error, 0).kind).toBe('bad-response');
  });

  it(`stops reading a reply over ${MAX_REPLY_BYTES} bytes, declared or streamed`, async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let streamed = 0;
    const declared = await endpoint((_req, res) => res.writeHead(200, { 'content-length': String(MAX_REPLY_BYTES + 1) }).end());
    const chunked = await endpoint((_req, res) => {
      res.writeHead(200);
      const pump = (): void => {
        // Without the cap this would go on until the test's timeout.
        while (!res.destroyed && streamed < 64 * MAX_REPLY_BYTES) {
          streamed += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    const a = await rejectionOf(post(client(declared)), Error);
    expect(a).toBeInstanceOf(MalformedReplyError);
    expect(a.message).toBe(`reply of ${MAX_REPLY_BYTES + 1} bytes, over ${MAX_REPLY_BYTES}`);
    const b = await rejectionOf(post(client(chunked)), Error);
    expect(b).toBeInstanceOf(MalformedReplyError);
    expect(b.message).toBe(`reply over ${MAX_REPLY_BYTES} bytes`);
    expect(streamed).toBeLessThan(4 * MAX_REPLY_BYTES);
  });

  it('times out a reply whose headers came but whose body stalls', async () => {
    const base = await endpoint((_req, res) => {
      res.writeHead(200);
      res.write('{"choices": [');
    });
    const error = await rejectionOf(post(client(base), { timeoutMs: 300 }), Error);
    expect(error).toBeInstanceOf(AttemptTimeoutError);
    expect(classifyFailure(error, 0).kind).toBe('timeout');
  });

  it("stops on the caller's signal, before and during the request", async () => {
    const base = await endpoint(() => {});
    const before = new AbortController();
    before.abort();
    expect(await rejectionOf(post(client(base), { signal: before.signal }), Error)).toBeInstanceOf(AttemptAbortedError);
    const during = new AbortController();
    setTimeout(() => during.abort(), 100);
    const error = await rejectionOf(post(client(base), { signal: during.signal }), Error);
    expect(error).toBeInstanceOf(AttemptAbortedError);
    expect(classifyFailure(error, 0).kind).toBe('aborted');
  });

  it('calls a refused connection and a connection dropped mid-reply connection failures', async () => {
    const refused = await rejectionOf(post(client(await deadPortUrl())), Error);
    expect(refused).toBeInstanceOf(ConnectionFailedError);
    expect(refused.message).toContain('ECONNREFUSED');
    const dropping = await endpoint((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('{"choices"');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const dropped = await rejectionOf(post(client(dropping)), Error);
    expect(dropped).toBeInstanceOf(ConnectionFailedError);
    expect(classifyFailure(dropped, 0).kind).toBe('connection');
  });
});
