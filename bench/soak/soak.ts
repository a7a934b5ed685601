/**
 * A mixed load against one `gear serve` process for `--minutes` (default 10), printing its RSS
 * every `--every` seconds (default 30): the memory curve of issue 10, item 13. Outside CI.
 *
 *   node dist/bench/soak/soak.js [--minutes 10] [--every 30] [--clients 6] [--rubrics N]
 *
 * `--rubrics N`: the never-seen rubrics cycle over N distinct ones (all clients together), so
 * the rubric cache settles at N rubrics (or at its byte bound); each sample also prints the
 * cache's own accounting (server.health: rubricsCached, rubricCacheBytes) beside the RSS.
 *
 * Each client loops over a mix: GRPO steps (rubric.scoreBatch, 896 responses, and
 * rubric.scoreColumns) on a working set of rubrics, a stream of never-seen rubrics (cache churn),
 * host rows (host.scoreBatch, host.requests), diagnostics.fcp, and hostile requests (deep
 * nesting, objects where numbers belong, notifications, unknown ids, ids beyond 2^53). Beside
 * them: a client that sends and never reads, reconnecting every minute, and oversized frames.
 */
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { conformanceTarget } from '../../conformance/targets.js';
import { memoryOf, startGear, cpuSecondsOf } from './gear-process.js';
import { RawSocketPeer, WsPeer } from './ws-peer.js';
import { realisticRubric } from './hostile-inputs.js';

const { values } = parseArgs({ options: { minutes: { type: 'string' }, every: { type: 'string' }, clients: { type: 'string' }, rubrics: { type: 'string' } } });
const distinctRubrics = values.rubrics === undefined ? undefined : Number(values.rubrics);
const minutes = Number(values.minutes ?? 10);
const every = Number(values.every ?? 30);
const clientCount = Number(values.clients ?? 6);

const tally = { requests: 0, results: 0, errors: new Map<number, number>(), internal: 0 };
function count(reply: { result?: unknown; error?: { code: number } }): void {
  tally.requests += 1;
  if (reply.error === undefined) tally.results += 1;
  else {
    tally.errors.set(reply.error.code, (tally.errors.get(reply.error.code) ?? 0) + 1);
    if (reply.error.code === -32603) tally.internal += 1;
  }
}

const hostCases = (['ruscarl', 'gear', 'writingbench'] as const).map((host) =>
  conformanceTarget(host).cases.slice(0, 30).map((c) => ({ host, row: c.row, response: c.response, judgeOutputs: c.judgeOutputs })),
);

async function client(url: string, k: number, until: number): Promise<void> {
  let peer = await WsPeer.open(url);
  let fresh = 1_000_000 * (k + 1);
  const working = Array.from({ length: 112 }, (_, i) => realisticRubric(i));
  let ids: string[] = [];
  const register = async (): Promise<void> => {
    ids = [];
    for (const rubric of working) {
      const reply = await peer.request('rubric.register', { rubric });
      count(reply);
      ids.push((reply.result as { rubricId: string }).rubricId);
    }
  };
  await register();
  for (let round = 0; Date.now() < until; round++) {
    const step = Array.from({ length: 896 }, (_, i) => ({ rubricId: ids[i % ids.length]!, scores: { p: Array.from({ length: 19 }, (_, c) => ((i + c + round) % 11) / 10) } }));
    const batch = await peer.request('rubric.scoreBatch', { items: step, aggregator: round % 3 === 0 ? 'auto' : 'gear' });
    count(batch);
    if (batch.error?.code === -32001) await register();
    for (let n = 0; n < 20; n++) {
      const seed = distinctRubrics === undefined ? fresh++ : 1_000_000 + (fresh++ * clientCount + k) % distinctRubrics;
      count(await peer.request('rubric.register', { rubric: realisticRubric(seed) }));
    }
    const hosts = hostCases[round % hostCases.length]!;
    count(await peer.request('host.scoreBatch', { items: hosts }));
    count(await peer.request('host.requests', { host: hosts[0]!.host, row: hosts[0]!.row, response: hosts[0]!.response }));
    count(await peer.request('diagnostics.fcp', { items: step.slice(0, 64), aggregators: ['flat', 'gear', 'gear-exact'] }));
    // Hostile, every round.
    count((await peer.sendRaw(`{"jsonrpc":"2.0","id":"deep","method":"rubric.score","params":{"rubricId":"${ids[0]}","scores":{"p":[${'['.repeat(5000)}${']'.repeat(5000)}]}}}`, 'deep'))!);
    count(await peer.request('rubric.score', { rubricId: ids[1], scores: { p: [{ toString: 1 }] } }));
    count(await peer.request('rubric.score', { rubricId: `sha256:${'0'.repeat(64)}`, scores: { p: [0.5] } }));
    peer.sendRaw('{"jsonrpc":"2.0","method":"no.such"}');
    count((await peer.sendRaw('{"jsonrpc":"2.0","id":9007199254740993,"method":"server.info"}', null))!);
    if (round % 50 === 49) {
      await peer.close();
      peer = await WsPeer.open(url);
    }
  }
  await peer.close();
}

/** Sends a minute of GRPO steps without reading, then drops the connection; again and again. */
async function neverReads(url: string, rubricId: string, until: number): Promise<void> {
  const items = Array.from({ length: 896 }, (_, i) => ({ rubricId, scores: { p: Array.from({ length: 19 }, (_, c) => ((i + c) % 10) / 10) } }));
  const frame = RawSocketPeer.frame(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'rubric.scoreBatch', params: { items } }));
  while (Date.now() < until) {
    const raw = await RawSocketPeer.open(url);
    for (let i = 0; i < 2000 && raw.write(frame); i++) await sleep(5);
    await sleep(Math.min(60_000, Math.max(0, until - Date.now())));
    raw.destroy();
    // An oversized frame too: refused at its header.
    const big = await RawSocketPeer.open(url);
    big.write(RawSocketPeer.header(64 * 1024 * 1024));
    big.write(Buffer.alloc(1024 * 1024, 0x20));
    await big.closedByServer();
  }
}

const server = await startGear();
const started = Date.now();
const until = started + minutes * 60_000;
const setup = await WsPeer.open(server.url);
const { rubricId } = (await setup.request('rubric.register', { rubric: realisticRubric(0) })).result as { rubricId: string };
await setup.close();

const curve: string[] = [];
const infoPeer = await WsPeer.open(server.url);
const sample = async (): Promise<void> => {
  const { rssMiB, peakMiB } = memoryOf(server.pid);
  const info = (await infoPeer.request('server.health', {})).result as { rubricsCached?: number; rubricCacheBytes?: number } | undefined;
  const line = `| ${((Date.now() - started) / 60_000).toFixed(1)} | ${rssMiB.toFixed(0)} | ${peakMiB.toFixed(0)} | ${info?.rubricsCached ?? '-'} | ${((info?.rubricCacheBytes ?? 0) / 2 ** 20).toFixed(1)} | ${tally.requests} | ${cpuSecondsOf(server.pid).toFixed(0)} |`;
  curve.push(line);
  process.stdout.write(`${line}\n`);
};
process.stdout.write(
  `soak: ${minutes} min, ${clientCount} clients + 1 that never reads${distinctRubrics === undefined ? '' : `, ${distinctRubrics} distinct churn rubrics`}, gear serve pid ${server.pid}\n` +
    `| minutes | RSS MiB | peak MiB | rubrics cached | cache MiB (accounted) | requests | server CPU s |\n| --- | --- | --- | --- | --- | --- | --- |\n`,
);
await sample();
const timer = setInterval(() => void sample(), every * 1000);
await Promise.all([...Array.from({ length: clientCount }, (_, k) => client(server.url, k, until)), neverReads(server.url, rubricId, until)]);
clearInterval(timer);
await sample();
await infoPeer.close();
const code = await server.stop();
const done = server.logs.find((l) => l['event'] === 'shutdown_done');
process.stdout.write(
  `${JSON.stringify({ requests: tally.requests, results: tally.results, errors: Object.fromEntries(tally.errors), internalErrors: tally.internal, exitCode: code, shutdown: done?.['frames'] ?? null })}\n`,
);
