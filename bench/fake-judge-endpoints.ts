/**
 * Runs fake OpenAI-compatible judge endpoints (real node:http servers) in their own process, so the
 * client under test does not share their event loop. argv[2]: a JSON list, one entry per endpoint:
 * a fault-server behaviour, or "refused" for a port nothing listens on. Prints {"urls": [...]};
 * on the stdin line "stats" prints {"stats": [{requests, answered, connections} | null, ...]};
 * exits when stdin closes.
 */
import { createInterface } from 'node:readline';
import { deadPortUrl, startFaultServer, type FaultBehaviour, type FaultServer } from '../judge/transport/testing/fault-server.js';

const specs = JSON.parse(process.argv[2] ?? '[]') as (Partial<FaultBehaviour> | 'refused')[];
const servers: (FaultServer | undefined)[] = [];
const urls: string[] = [];
for (const spec of specs) {
  if (spec === 'refused') {
    servers.push(undefined);
    urls.push(await deadPortUrl());
  } else {
    // Idle connections stay open for the whole run: the judge bench's flat baseline (aiohttp) sits
    // idle while the other configurations run their steps, longer than node's 5 s keep-alive, and
    // aiohttp then sends on a pooled connection the server has just closed (ServerDisconnectedError).
    const server = await startFaultServer(spec, { recordBodies: false, keepAliveTimeoutMs: 3_600_000 });
    servers.push(server);
    urls.push(server.url);
  }
}
process.stdout.write(`${JSON.stringify({ urls })}\n`);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() !== 'stats') return;
  const stats = servers.map((s) =>
    s === undefined ? null : { requests: s.stats.requests.length, answered: s.stats.answered, connections: s.stats.connections, metricsRequests: s.stats.metricsRequests },
  );
  process.stdout.write(`${JSON.stringify({ stats })}\n`);
});
lines.on('close', () => {
  void Promise.all(servers.map((s) => s?.close())).then(() => process.exit(0));
});
