import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GearError } from '../../core/index.js';
import { parseServeConfig } from './serve-config.js';
import { ServiceContext } from './service-context.js';
import { RpcEndpoint } from './rpc-endpoint.js';
import { ServiceLimitsSchema } from './limits.js';
import { silentLogger } from './logger.js';
import type { RunningServer } from './server.js';
import { RpcTestClient } from './testing/rpc-test-client.js';
import { memoryLogger, startTestService } from './testing/running-service.js';

const rubric = {
  criteria: [
    { id: 'a', text: 'A', weight: 2 },
    { id: 'b', text: 'B', weight: 1 },
  ],
  edges: [{ parent: 'a', child: 'b', relation: 'strong' }],
};

describe('the wire: malformed frames get the right JSON-RPC error and the server keeps serving', () => {
  let server: RunningServer;
  let bad: RpcTestClient;
  let good: RpcTestClient;
  const log = memoryLogger();

  beforeAll(async () => {
    server = await startTestService({ limits: { maxPayloadBytes: 4096, maxBatchItems: 10, maxJsonRpcBatch: 3 } }, log.logger);
    bad = await RpcTestClient.open(server.url);
    good = await RpcTestClient.open(server.url);
  });
  afterAll(async () => {
    await bad.close();
    await good.close();
    await server.close();
  });

  const cases: [string, string, number | string | null, number][] = [
    ['text that is not JSON', '{"jsonrpc":"2.0","id":1,"method":', null, -32700],
    ['a NaN literal', '{"jsonrpc":"2.0","id":2,"method":"rubric.score","params":{"rubric":{},"scores":{"p":[NaN]}}}', null, -32700],
    ['a number instead of a request', '42', null, -32600],
    ['a request without jsonrpc 2.0', '{"id":3,"method":"server.info"}', 3, -32600],
    ['a method name that is not a string', '{"jsonrpc":"2.0","id":4,"method":7}', 4, -32600],
    ['an empty batch', '[]', null, -32600],
    ['an unknown method', '{"jsonrpc":"2.0","id":5,"method":"rubric.delete"}', 5, -32601],
    ['positional params', '{"jsonrpc":"2.0","id":6,"method":"rubric.score","params":[1,2]}', 6, -32602],
    ['a string where scores belong', '{"jsonrpc":"2.0","id":7,"method":"rubric.score","params":{"rubricId":"x","scores":"high"}}', 7, -32602],
    ['an overflowing number (1e400 parses as Infinity)', `{"jsonrpc":"2.0","id":8,"method":"rubric.score","params":{"rubric":${JSON.stringify(rubric)},"scores":{"p":[1e400,0]}}}`, 8, -32602],
    ['a JSON-RPC batch longer than allowed', JSON.stringify([1, 2, 3, 4].map((id) => ({ jsonrpc: '2.0', id, method: 'server.info' }))), null, -32002],
  ];

  for (const [what, frame, id, code] of cases) {
    it(`answers ${what} with ${code}`, async () => {
      const reply = (await bad.sendRaw(frame, id === null ? undefined : id)) as { id: unknown; error: { code: number } };
      expect(reply.error.code).toBe(code);
      expect(reply.id).toBe(id);
      expect(await good.call('server.health')).toMatchObject({ status: 'ok' });
    });
  }

  it('refuses a payload over the limit at its header: that socket closes with 1009, the others keep serving', async () => {
    const big = await RpcTestClient.open(server.url);
    const frame = JSON.stringify({ jsonrpc: '2.0', id: 'big-1', method: 'rubric.score', params: { padding: 'x'.repeat(10_000) } });
    void big.sendRaw(frame, 'big-1');
    expect((await big.closed).code).toBe(1009);
    expect(await good.call('server.health')).toMatchObject({ status: 'ok' });
    expect(log.lines.some((l) => l['event'] === 'frame_too_large' && l['maxPayloadBytes'] === 4096)).toBe(true);
  });

  it('answers a batch method over maxBatchItems with -32002', async () => {
    const items = Array.from({ length: 11 }, () => ({ rubric, scores: { p: [1, 1] } }));
    const response = await bad.request('rubric.scoreBatch', { items });
    expect(response.error).toMatchObject({ code: -32002, data: { limit: 'maxBatchItems', max: 10, actual: 11 } });
  });

  it('answers each request of a JSON-RPC batch, the bad ones with their own error', async () => {
    const frame = JSON.stringify([
      { jsonrpc: '2.0', id: 'x1', method: 'rubric.score', params: { rubric, scores: { p: [1, 0.5] } } },
      { jsonrpc: '2.0', id: 'x2', method: 'nope' },
      { jsonrpc: '2.0', method: 'server.info' },
    ]);
    const reply = (await bad.sendRaw(frame)) as { id: string; result?: { reward: number }; error?: { code: number } }[];
    // The notification (no id) gets no answer; rubric weights 2 and 1, p = (1, 0.5): reward (2 + 0.5) / 3.
    expect(reply.map((r) => r.id)).toEqual(['x1', 'x2']);
    expect(reply[0]!.result!.reward).toBe((2 * 1 + 1 * 0.5) / 3);
    expect(reply[1]!.error!.code).toBe(-32601);
  });

  it('logs nothing at error level for bad input: the errors were the client', () => {
    expect(log.lines.filter((l) => l['level'] === 'error')).toEqual([]);
    expect(log.lines.some((l) => l['event'] === 'connection_open')).toBe(true);
  });
});

describe('the rubric cache', () => {
  it('evicts the least recently used rubric and then answers its id with -32001', async () => {
    const server = await startTestService({ limits: { maxRubrics: 2 } });
    const client = await RpcTestClient.open(server.url);
    const register = async (weight: number) =>
      (await client.call<{ rubricId: string }>('rubric.register', { rubric: { ...rubric, criteria: [{ id: 'a', text: 'A', weight }, rubric.criteria[1]] } })).rubricId;
    const [one, two] = [await register(1), await register(2)];
    await client.call('rubric.score', { rubricId: one, scores: { p: [1, 1] } });
    const three = await register(3);
    const health = await client.call<{ rubricsCached: number }>('server.health');
    expect(health.rubricsCached).toBe(2);
    expect((await client.request('rubric.score', { rubricId: two, scores: { p: [1, 1] } })).error).toMatchObject({ code: -32001, data: { rubricIds: [two] } });
    expect((await client.request('rubric.score', { rubricId: one, scores: { p: [1, 1] } })).result).toBeDefined();
    expect((await client.request('rubric.score', { rubricId: three, scores: { p: [1, 1] } })).result).toBeDefined();
    await client.close();
    await server.close();
  });
});

describe('authentication', () => {
  it('refuses to bind a non-loopback address without a token', () => {
    expect(() => parseServeConfig({ host: '0.0.0.0' })).toThrow(GearError);
    expect(() => parseServeConfig({ host: '0.0.0.0' })).toThrowError(expect.objectContaining({ code: 'usage', path: ['token'] }));
    expect(parseServeConfig({ host: '0.0.0.0', token: 'a-long-enough-secret' }).host).toBe('0.0.0.0');
  });

  it('answers a handshake without the right bearer token with HTTP 401', async () => {
    const token = 'correct-horse-battery-staple';
    const server = await startTestService({ token });
    await expect(RpcTestClient.open(server.url)).rejects.toThrow('HTTP 401');
    await expect(RpcTestClient.open(server.url, { authorization: 'Bearer wrong-token-of-some-length' })).rejects.toThrow('HTTP 401');
    await expect(RpcTestClient.open(server.url, { authorization: 'Bearer x' })).rejects.toThrow('HTTP 401');
    await expect(RpcTestClient.open(server.url, { authorization: `Basic ${token}` })).rejects.toThrow('HTTP 401');
    await expect(RpcTestClient.open(server.url, { authorization: `Bearer ${token}x` })).rejects.toThrow('HTTP 401');
    // The scheme is case-insensitive (RFC 7235).
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const client = await RpcTestClient.open(server.url, { authorization: `${scheme} ${token}` });
      expect(await client.call('server.health')).toMatchObject({ status: 'ok' });
      await client.close();
    }
    await server.close();
  });
});

describe('graceful shutdown', () => {
  it('answers requests already received, then closes sockets with 1001 and refuses new connections', async () => {
    const server = await startTestService();
    const client = await RpcTestClient.open(server.url);
    const items = Array.from({ length: 2000 }, (_, i) => ({ rubric, scores: { p: [1, (i % 10) / 10] } }));
    const inFlight = client.request('rubric.scoreBatch', { items });
    // Close once the server has the request (frames still in transit are the client's to resend).
    while (server.context.stats.requests === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    const closing = server.close();
    const response = await inFlight;
    expect((response.result as { results: unknown[] }).results).toHaveLength(2000);
    expect((await client.closed).code).toBe(1001);
    await closing;
    await expect(RpcTestClient.open(server.url)).rejects.toThrow();
  });
});

describe('while draining', () => {
  it('answers a request with -32004 and counts it nowhere', async () => {
    const context = new ServiceContext(ServiceLimitsSchema.parse({}), 'test', silentLogger);
    const endpoint = new RpcEndpoint(context);
    context.draining = true;
    const frame = '{"jsonrpc":"2.0","id":9,"method":"server.info"}';
    expect(await endpoint.receiveFrame(frame, frame.length)).toMatchObject({ id: 9, error: { code: -32004 } });
    expect(context.stats.requests).toBe(0);
  });
});

describe('gear serve, the command', () => {
  const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

  it('prints its listening line, serves, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [main, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stderr: string[] = [];
    child.stderr.on('data', (d: Buffer) => stderr.push(d.toString()));
    const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    const listening = JSON.parse(first) as { event: string; url: string; pid: number };
    expect(listening).toMatchObject({ event: 'listening', pid: child.pid });
    const client = await RpcTestClient.open(listening.url);
    expect(await client.call<{ name: string; protocol: number }>('server.info')).toMatchObject({ name: 'gear', protocol: 1 });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const events = stderr.join('').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { event: string }).event);
    expect(events).toEqual(expect.arrayContaining(['listening', 'connection_open', 'signal', 'shutdown_done']));
  });

  it('exits 2 naming --token when asked to bind a public address without one', async () => {
    const child = spawn(process.execPath, [main, 'serve', '--host', '0.0.0.0', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GEAR_TOKEN: '' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('token');
  });
});
