/**
 * The figures of issue 10, measured against a real `gear serve` process: one JSON line per item.
 * Run it on an unchanged build (GEAR_SERVE_MAIN=/path/to/old/dist/cli/main.js) for "before" and on
 * this checkout for "after" (GEAR_FIGURES_AFTER=1 also passes the flags the old build lacks).
 *
 *   node dist/bench/soak/hostile-figures.js [item ...]
 *
 * Outside CI: it pushes the server to gigabytes on the old build.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { denseRubric, nestedText, realisticRubric, twoCriteria, wideRuscarlRow } from './hostile-inputs.js';
import { memoryOf, startGear, type GearProcess } from './gear-process.js';
import { RawSocketPeer, WsPeer, type Reply } from './ws-peer.js';

const after = process.env['GEAR_FIGURES_AFTER'] === '1';
type Figures = Record<string, unknown>;

function outcome(reply: Reply | undefined): unknown {
  if (reply === undefined) return 'no reply';
  if (reply.error !== undefined) return { code: reply.error.code, path: (reply.error.data as { path?: unknown } | undefined)?.path ?? null, limit: (reply.error.data as { limit?: unknown } | undefined)?.limit };
  const result = reply.result as Record<string, unknown>;
  if (typeof result === 'object' && result !== null && 'reward' in result) return { reward: result['reward'], method: result['method'] };
  return { resultKeys: Object.keys(result ?? {}), resultBytes: JSON.stringify(result).length };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([promise, sleep(ms).then(() => undefined)]);
}

async function alive(server: GearProcess): Promise<boolean> {
  try {
    const peer = await WsPeer.open(server.url);
    const reply = await withTimeout(peer.request('server.health'), 10_000);
    await peer.close();
    return (reply?.result as { status?: string } | undefined)?.status === 'ok';
  } catch {
    return false;
  }
}

async function item6(server: GearProcess): Promise<Figures> {
  const peer = await WsPeer.open(server.url);
  const objectInP = await peer.request('rubric.score', { rubric: twoCriteria, scores: { p: [{ toString: 1 }, 0.5] } });
  const objectInD = await peer.request('rubric.score', { rubric: twoCriteria, scores: { p: [1, 0.5], d: [true, { toString: 1 }] } });
  const plawRow = {
    prompt: [{ role: 'user', content: 'q' }],
    reward_model: { rubrics: [{ id: 'r1', criterion: 'c', points: 2, tags: { score_type: { toString: 1 } } }] },
  };
  const scoreType = await peer.request('host.score', { host: 'plawbench', row: plawRow, response: 'r', judgeOutputs: ['{}'] });
  // Written by hand: JSON.stringify itself cannot write 20,000 levels.
  const deepText = `{"jsonrpc":"2.0","id":"deep","method":"rubric.score","params":{"rubric":${JSON.stringify(twoCriteria)},"scores":{"p":[${nestedText(20_000)},0.5]}}}`;
  const deep = await withTimeout(peer.sendRaw(deepText, 'deep')!, 30_000);
  await peer.close();
  return { objectInP: outcome(objectInP), objectInD: outcome(objectInD), plawbenchScoreTypeObject: outcome(scoreType), deep20000InP: outcome(deep), serverAlive: await alive(server) };
}

async function item7(server: GearProcess): Promise<Figures> {
  const peer = await WsPeer.open(server.url);
  const rubric = { criteria: [{ id: 'a', text: 'A', weight: 5e-324 }, { id: 'b', text: 'B', weight: -1 }], edges: [] };
  const reply = await peer.request('rubric.score', { rubric, scores: { p: [1, 1] } });
  await peer.close();
  return { tinyAndNegativeWeights: outcome(reply) };
}

async function item8(server: GearProcess): Promise<Figures> {
  const peer = await WsPeer.open(server.url);
  const before = peer.replies;
  peer.sendRaw('{"jsonrpc":"2.0","method":"no.such.method"}');
  peer.sendRaw('{"jsonrpc":"2.0","method":"rubric.score","params":{"scores":"x"}}');
  await peer.request('server.health');
  await sleep(300);
  const notificationReplies = peer.replies - before - 1;
  const raws: Record<string, string> = {};
  for (const [name, token] of [['id1e400', '1e400'], ['id2^53+1', '9007199254740993'], ['id2^64', '18446744073709551616']] as const) {
    const n = peer.replies;
    peer.sendRaw(`{"jsonrpc":"2.0","id":${token},"method":"server.info"}`);
    while (peer.replies === n) await sleep(5);
    const text = peer.raw[peer.raw.length - 1] as string;
    raws[name] = `sent ${token}, got ${/"id":([^,}]*)/.exec(text)?.[1] ?? '?'}${/"code":(-?\d+)/.exec(text) ? ` (error ${/"code":(-?\d+)/.exec(text)![1]})` : ''}`;
  }
  await peer.close();
  return { repliesToTwoNotifications: notificationReplies, ...raws };
}

/** Sends `hostile`, then pings on another connection 50 ms later; which answer came first? */
async function pingDuring(server: GearProcess, method: string, params: unknown, timeoutMs: number): Promise<Figures> {
  const hostile = await WsPeer.open(server.url);
  const pinger = await WsPeer.open(server.url);
  const start = performance.now();
  let hostileDone = Infinity;
  const hostileReply = hostile.request(method, params).then((reply) => {
    hostileDone = performance.now() - start;
    return reply;
  });
  await sleep(50);
  const pingSent = performance.now();
  const ping = await withTimeout(pinger.request('server.health'), timeoutMs);
  const pingMs = performance.now() - pingSent;
  const reply = await withTimeout(hostileReply, timeoutMs);
  await hostile.close().catch(() => undefined);
  await pinger.close().catch(() => undefined);
  return {
    hostileMs: Math.round(hostileDone),
    hostileOutcome: outcome(reply),
    pingMs: Math.round(pingMs),
    pingAnswered: ping !== undefined,
    pingBeforeHostile: ping !== undefined && pingSent - start + pingMs < hostileDone,
  };
}

async function item9(server: GearProcess): Promise<Figures> {
  const dense = denseRubric(20);
  const exact = await pingDuring(server, 'rubric.score', { rubric: dense, scores: { p: dense.criteria.map(() => 0.5) }, aggregator: 'gear-exact' }, 120_000);
  const register = await pingDuring(server, 'rubric.register', { rubric: denseRubric(19) }, 120_000);
  const m0 = memoryOf(server.pid);
  const big = await pingDuring(server, 'host.requests', { host: 'ruscarl', row: wideRuscarlRow(1000), response: 'x'.repeat(200_000) }, 120_000);
  const m1 = memoryOf(server.pid);
  const huge = await pingDuring(server, 'host.requests', { host: 'ruscarl', row: wideRuscarlRow(2000), response: 'x'.repeat(300_000) }, 120_000);
  return {
    gearExactDense48: exact,
    registerDense48w19: register,
    hostRequests1000x200KB: { ...big, rssBeforeMiB: Math.round(m0.rssMiB), peakMiB: Math.round(m1.peakMiB) },
    hostRequests2000x300KB: huge,
    serverAlive: await alive(server),
  };
}

async function item10(server: GearProcess): Promise<Figures> {
  const setup = await WsPeer.open(server.url);
  const { rubricId } = (await setup.request('rubric.register', { rubric: realisticRubric(0) })).result as { rubricId: string };
  const items = Array.from({ length: 200 }, (_, i) => ({ rubricId, scores: { p: Array.from({ length: 19 }, (_, k) => ((i + k) % 10) / 10) } }));
  const frame = RawSocketPeer.frame(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'rubric.scoreBatch', params: { items } }));
  const reader = await RawSocketPeer.open(server.url);
  const startRss = memoryOf(server.pid).rssMiB;
  for (let i = 0; i < 10_000; i++) reader.write(frame);
  let processed = 0;
  let stable = 0;
  for (let t = 0; t < 600 && stable < 10; t++) {
    await sleep(200);
    const health = (await setup.request('server.health')).result as { byMethod: Record<string, number> };
    const batches = health.byMethod['rubric.scoreBatch'] ?? 0;
    stable = batches === processed ? stable + 1 : 0;
    processed = batches;
  }
  const unread = { requests: 10_000, processedWhileUnread: processed, rssStartMiB: Math.round(startRss), peakMiB: Math.round(memoryOf(server.pid).peakMiB) };
  reader.destroy();
  await setup.close();

  // Idle and half-frame connections.
  const idle = await RawSocketPeer.open(server.url);
  const idleClosed = idle.closedByServer().then(() => true);
  const halves: RawSocketPeer[] = [];
  let refusedAt: number | undefined;
  for (let i = 0; i < 1100 && refusedAt === undefined; i++) {
    const half = await RawSocketPeer.open(server.url).catch(() => undefined);
    if (half === undefined || half.status !== 101) {
      refusedAt = i;
      half?.destroy();
      break;
    }
    half.write(RawSocketPeer.header(1000));
    half.write(Buffer.from('{"jsonrpc":"2.0",'));
    halves.push(half);
  }
  let legit = 'connected';
  try {
    const peer = await WsPeer.open(server.url);
    await peer.close();
  } catch (error) {
    legit = String((error as Error).message);
  }
  const fromOtherAddress = await WsPeer.open(server.url, {}, '127.0.0.2').then(
    async (p) => {
      await p.close();
      return 'connected';
    },
    (error: Error) => error.message,
  );
  // Closed: the idle timeout (3 s) sends a close frame, and a peer that never answers it is dropped 5 s later.
  const idleWasClosed = await withTimeout(idleClosed, 12_000);
  const halvesClosed = (await Promise.all(halves.map((h) => withTimeout(h.closedByServer().then(() => true), 100)))).filter(Boolean).length;
  for (const h of halves) h.destroy();
  idle.destroy();
  return {
    unread,
    halfFrameConnectionsAccepted: halves.length,
    refusedAtConnection: refusedAt ?? null,
    legitClientAfterHalfFrames: legit,
    legitClientAgain: fromOtherAddress,
    idleSocketClosedWithin12s: idleWasClosed === true,
    halfFrameSocketsClosedWithin8s: halvesClosed,
  };
}

async function item11(server: GearProcess): Promise<Figures> {
  const setup = await WsPeer.open(server.url);
  const { rubricId } = (await setup.request('rubric.register', { rubric: realisticRubric(1) })).result as { rubricId: string };
  await setup.close();
  const items = Array.from({ length: 100 }, (_, i) => ({ rubricId, scores: { p: Array.from({ length: 19 }, (_, k) => ((i * 3 + k) % 10) / 10) } }));
  const clients = await Promise.all(Array.from({ length: 8 }, () => WsPeer.open(server.url)));
  const stats = clients.map(() => ({ sent: 0, results: 0, shuttingDown: 0, otherErrors: 0 }));
  let signalled = false;
  const afterSignal = { sent: 0, answered: 0 };
  const pump = (k: number): void => {
    const client = clients[k]!;
    const s = stats[k]!;
    if (client.ws.readyState !== client.ws.OPEN) return;
    s.sent += 1;
    const sentAfterSignal = signalled;
    if (sentAfterSignal) afterSignal.sent += 1;
    void client.request('rubric.scoreBatch', { items }).then((reply) => {
      if (sentAfterSignal) afterSignal.answered += 1;
      if (reply.result !== undefined) s.results += 1;
      else if (reply.error?.code === -32004) s.shuttingDown += 1;
      else s.otherErrors += 1;
      pump(k);
    });
  };
  clients.forEach((_, k) => {
    for (let i = 0; i < 200; i++) pump(k);
  });
  await sleep(2000);
  signalled = true;
  server.child.kill('SIGTERM');
  const code = await server.exited;
  await Promise.all(clients.map((c) => withTimeout(c.closed, 5000)));
  const total = stats.reduce((a, s) => ({ sent: a.sent + s.sent, results: a.results + s.results, shuttingDown: a.shuttingDown + s.shuttingDown, otherErrors: a.otherErrors + s.otherErrors }), { sent: 0, results: 0, shuttingDown: 0, otherErrors: 0 });
  const done = server.logs.find((l) => l['event'] === 'shutdown_done');
  return { exitCode: code, ...total, unanswered: total.sent - total.results - total.shuttingDown - total.otherErrors, sentAfterSignal: afterSignal.sent, answeredAfterSignal: afterSignal.answered, serverLog: done ?? null };
}

async function item12(token: string, url: string): Promise<Figures> {
  const status = async (header: string): Promise<string> => {
    const raw = await RawSocketPeer.open(url, { headers: { authorization: header } });
    raw.destroy();
    return String(raw.status);
  };
  return {
    exactBearer: await status(`Bearer ${token}`),
    lowercaseBearer: await status(`bearer ${token}`),
    upperCaseBEARER: await status(`BEARER ${token}`),
    wrongTokenOtherLength: await status('Bearer x'),
  };
}

async function item13(server: GearProcess, count: number): Promise<Figures> {
  const peers = await Promise.all(Array.from({ length: 4 }, () => WsPeer.open(server.url)));
  const start = memoryOf(server.pid);
  let next = 0;
  let failures = 0;
  await Promise.all(
    peers.map(async (peer) => {
      const inFlight = new Set<Promise<void>>();
      while (next < count) {
        const n = next++;
        const p = peer.request('rubric.register', { rubric: realisticRubric(n + 1000) }).then((r) => {
          if (r.error !== undefined) failures += 1;
          inFlight.delete(p);
        });
        inFlight.add(p);
        if (inFlight.size >= 64) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
    }),
  );
  const health = (await peers[0]!.request('server.health')).result as { rubricsCached: number };
  await Promise.all(peers.map((p) => p.close()));
  const end = memoryOf(server.pid);
  return { registrations: count, failures, rubricsCached: health.rubricsCached, rssStartMiB: Math.round(start.rssMiB), rssEndMiB: Math.round(end.rssMiB), peakMiB: Math.round(end.peakMiB) };
}

async function item14(server: GearProcess): Promise<Figures> {
  const peer = await WsPeer.open(server.url);
  const rubrics = JSON.stringify([{ id: 'r1', criterion: 'a', points: 1 }, { id: 'r2', criterion: 'b', points: 1 }]);
  const deepEdge = `{"rubrics":${rubrics},"graph":{"edges":[{"parent":${nestedText(20_000)},"child":"r2","type":"weak_prerequisite"}]}}`;
  const deep = await peer.sendRaw(`{"jsonrpc":"2.0","id":"deep","method":"rubric.register","params":{"reward_model":${deepEdge}}}`, 'deep')!;
  const hugePoints = await peer.request('rubric.score', { reward_model: { rubrics: [{ criterion: 'a', points: '1e400' }, { criterion: 'b', points: 1 }] }, scores: { p: [1, 0] } });
  await peer.close();
  const m0 = memoryOf(server.pid);
  const payload = Buffer.alloc(100 * 1024 * 1024, 0x20);
  Buffer.from('{"jsonrpc":"2.0","id":1,"method":"server.info","params":{"pad":"').copy(payload);
  payload.write('"}}', payload.length - 3);
  const senders = await Promise.all(Array.from({ length: 12 }, () => WsPeer.open(server.url)));
  const outcomes = await Promise.all(
    senders.map(async (s) => {
      const answered = s.sendRaw(payload, 1)!.then((r) => `error ${r.error?.code}`);
      return withTimeout(Promise.race([answered, s.closed.then((c) => `closed ${c.code}`)]), 120_000);
    }),
  );
  await sleep(500);
  const m1 = memoryOf(server.pid);
  for (const s of senders) s.ws.terminate();
  return {
    deepNestedEdgeParent: outcome(deep),
    pointsString1e400: outcome(hugePoints),
    twelveFramesOf100MiB: { outcomes: [...new Set(outcomes)], rssBeforeMiB: Math.round(m0.rssMiB), peakMiB: Math.round(m1.peakMiB) },
  };
}

async function run(item: string): Promise<Figures> {
  const token = 'a-token-of-sufficient-length';
  const extra = after ? ['--idle-timeout-ms', '3000', '--frame-timeout-ms', '3000'] : [];
  const server = await startGear(item === '12' ? ['--token', token] : item === '10' ? extra : []);
  try {
    switch (item) {
      case '6': return await item6(server);
      case '7': return await item7(server);
      case '8': return await item8(server);
      case '9': return await item9(server);
      case '10': return await item10(server);
      case '11': return await item11(server);
      case '12': return await item12(token, server.url);
      case '13': return await item13(server, Number(process.env['GEAR_FIGURES_REGISTRATIONS'] ?? 100_000));
      case '14': return await item14(server);
      default: throw new Error(`unknown item ${item}`);
    }
  } finally {
    await server.stop();
  }
}

const items = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['6', '7', '8', '9', '10', '11', '12', '13', '14'];
for (const item of items) {
  const started = performance.now();
  const figures = await run(item).catch((error: unknown) => ({ failed: String(error) }));
  process.stdout.write(`${JSON.stringify({ item, seconds: Math.round((performance.now() - started) / 100) / 10, ...figures })}\n`);
}
