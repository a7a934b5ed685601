import fc from 'fast-check';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGear, type GearProcess } from '../../../bench/soak/gear-process.js';

/**
 * Issue 10, item 8, against a real `gear serve`: a notification is never answered, whatever its
 * method or params; an id is echoed exactly as its client wrote it (compared as raw JSON text), or,
 * when float64 cannot hold it (1e400, integers beyond 2^53), refused with -32600 and id null.
 */

/** A WebSocket that keeps every reply's raw text. */
async function rawClient(url: string): Promise<{ ws: WebSocket; replies: string[]; next: () => Promise<string> }> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const replies: string[] = [];
  const waiting: ((text: string) => void)[] = [];
  ws.on('message', (data: WebSocket.RawData) => {
    const text = data.toString();
    replies.push(text);
    waiting.shift()?.(text);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, replies, next: () => new Promise((resolve) => waiting.push(resolve)) };
}

/** The id token of a reply as written on the wire. */
function rawIdOf(reply: string): string {
  const match = /^\{"jsonrpc":"2\.0","id":("(?:[^"\\]|\\.)*"|[^,}]+)/.exec(reply);
  if (match?.[1] === undefined) throw new Error(`no id in ${reply.slice(0, 200)}`);
  return match[1];
}

const methodArb = fc.oneof(
  fc.constantFrom('server.info', 'server.health', 'rubric.register', 'rubric.score', 'rubric.scoreBatch', 'host.score', 'diagnostics.fcp'),
  fc.string({ maxLength: 30 }),
);
const paramsArb = fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 4 }), fc.constant({ rubric: 5, scores: { p: [{ toString: 1 }] } }));

describe('JSON-RPC 2.0 conformance under fuzzing', () => {
  let server: GearProcess;

  beforeAll(async () => {
    server = await startGear();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('never answers a notification: unknown methods, bad params, known methods alike', async () => {
    const client = await rawClient(server.url);
    let fences = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(methodArb, paramsArb), { minLength: 1, maxLength: 12 }), fc.boolean(), async (notifications, asBatch) => {
        const frames = notifications.map(([method, params]) => ({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }));
        if (asBatch) client.ws.send(JSON.stringify(frames));
        else for (const frame of frames) client.ws.send(JSON.stringify(frame));
        // A request after them: its answer comes once the notifications before it are done.
        fences += 1;
        const fence = client.next();
        client.ws.send(JSON.stringify({ jsonrpc: '2.0', id: `fence-${fences}`, method: 'server.health' }));
        expect(rawIdOf(await fence)).toBe(`"fence-${fences}"`);
        expect(client.replies.length).toBe(fences);
      }),
      { numRuns: 150 },
    );
    // Heavier notifications may finish after their fence: wait for one more round trip, then count.
    const last = client.next();
    client.ws.send('{"jsonrpc":"2.0","id":"last","method":"server.info"}');
    await last;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(client.replies.length).toBe(fences + 1);
    client.ws.close();
  });

  it('echoes every id exactly as written, or refuses it with -32600 and id null', async () => {
    const client = await rawClient(server.url);
    const idArb: fc.Arbitrary<{ token: string; exact: boolean }> = fc.oneof(
      fc.string({ maxLength: 40 }).map((s) => ({ token: JSON.stringify(s), exact: true })),
      fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).map((n) => ({ token: String(n), exact: true })),
      fc.bigInt({ min: 2n ** 53n, max: 2n ** 80n }).map((n) => ({ token: String(n), exact: false })),
      fc.bigInt({ min: -(2n ** 80n), max: -(2n ** 53n) }).map((n) => ({ token: String(n), exact: false })),
      fc.constantFrom({ token: '1e400', exact: false }, { token: '-1e400', exact: false }, { token: 'null', exact: true }),
    );
    await fc.assert(
      fc.asyncProperty(idArb, async ({ token, exact }) => {
        const reply = client.next();
        client.ws.send(`{"jsonrpc":"2.0","id":${token},"method":"server.info"}`);
        const text = await reply;
        if (exact) {
          expect(rawIdOf(text)).toBe(token);
          expect(text).toContain('"result":');
        } else {
          expect(rawIdOf(text)).toBe('null');
          expect((JSON.parse(text) as { error: { code: number } }).error.code).toBe(-32600);
        }
      }),
      { numRuns: 300 },
    );
    client.ws.close();
  });
});
