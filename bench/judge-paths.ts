/**
 * `gear judge` (the CLI, default flags) and `judge.scoreBatch` (the service, 8 chunks of 112 as
 * verl sends them, default flags) on one GRPO step in the same run: 896 responses (112 HealthBench
 * prompts x 8 rollouts, official GEAR batch prompt, one request per response) against two fake
 * judge endpoints of SLOTS x LATENCY_MS (16 x 200 ms) in four scenarios (healthy, one 3x slower,
 * one refusing connections, one hanging), each against the ideal (requests / throughput of the
 * endpoints that work). Then faults that are not verdicts: one endpoint answering every other
 * request with 429 + Retry-After: 1, or with 500, on 12 RuscaRL-format HealthBench rows through
 * `gear judge`, each reward against the healthy run's. The official sampler's figures on the same
 * endpoints are bench/judge-routing.ts's (GEAR_OFFICIAL_REPO).
 *
 * Run: `npx tsc -b && node dist/bench/judge-paths.js [scenario ...]` (names: healthy, slower,
 * refused, hanging, 429, 500; all by default).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadHealthBenchRows } from '../judge/testing/healthbench-rows.js';
import { grpoStepRows } from './judge-routing.js';
import { withFakeEndpoints, type EndpointSpec } from './judge-endpoints-process.js';
import { serveMain, startGear } from './soak/gear-process.js';
import { WsPeer } from './soak/ws-peer.js';

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const LATENCY_MS = env('GEAR_BENCH_JUDGE_LATENCY_MS', 200);
const SLOTS = env('GEAR_BENCH_JUDGE_SLOTS', 16);
const CHUNKS = 8;
/** The official GEAR judge's batch answer, every criterion of the largest rubric (48) met. */
const GEAR_REPLY = JSON.stringify(Object.fromEntries(Array.from({ length: 64 }, (_, i) => [String(i + 1), { criteria_met: i % 3 !== 0, prob_met: i % 3 !== 0 ? 0.9 : 0.2 }])));
/** The HealthBench grader's answer (RuscaRL), one criterion per request. */
const RUSCARL_REPLY = '```json\n{"explanation": "bench", "criteria_met": true}\n```';

interface PathRun {
  readonly ms: number;
  readonly scored: number;
  readonly failedCriteria: number;
  readonly rewards: readonly number[];
}

/** `gear judge` with default flags on `lines`; timed from the spawn to the process's exit (Node's start included). */
async function runCli(host: string, urls: readonly string[], lines: readonly string[]): Promise<PathRun> {
  const dir = mkdtempSync(join(tmpdir(), 'gear-judge-paths-'));
  const input = join(dir, 'rows.jsonl');
  const output = join(dir, 'out.jsonl');
  writeFileSync(input, `${lines.join('\n')}\n`);
  const start = performance.now();
  const child = spawn(process.execPath, [serveMain(), 'judge', '--host', host, '--judge-url', urls.join(','), '--input', input, '--output', output], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-2000)));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const ms = performance.now() - start;
  if (code !== 0) process.stderr.write(`gear judge exited ${String(code)}: ${stderr}\n`);
  const records = readFileSync(output, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { reward?: number; failed_criteria?: number });
  return {
    ms,
    scored: records.filter((r) => typeof r.reward === 'number').length,
    failedCriteria: records.reduce((n, r) => n + (r.failed_criteria ?? 0), 0),
    rewards: records.map((r) => r.reward ?? NaN),
  };
}

/** `gear serve` with default flags, `judge.scoreBatch` in CHUNKS chunks sent at once; timed from the first send to the last reply. */
async function runService(host: string, urls: readonly string[], lines: readonly string[]): Promise<PathRun> {
  const server = await startGear(['--judge-url', urls.join(',')]);
  const peer = await WsPeer.open(server.url);
  try {
    const items = lines.map((l) => JSON.parse(l) as { row: unknown; response: string });
    const size = Math.ceil(items.length / CHUNKS);
    const start = performance.now();
    const replies = await Promise.all(
      Array.from({ length: CHUNKS }, (_, c) => peer.request('judge.scoreBatch', { host, items: items.slice(c * size, (c + 1) * size), omit: ['judgments', 'extras', 'outputs'] })),
    );
    const ms = performance.now() - start;
    const results = replies.flatMap((r) => (r.result as { results: { reward?: number; failedCriteria?: number }[] } | undefined)?.results ?? []);
    return {
      ms,
      scored: results.filter((r) => typeof r.reward === 'number').length,
      failedCriteria: results.reduce((n, r) => n + (r.failedCriteria ?? 0), 0),
      rewards: results.map((r) => r.reward ?? NaN),
    };
  } finally {
    await peer.close();
    await server.stop();
  }
}

interface Scenario {
  readonly name: string;
  readonly endpoints: readonly EndpointSpec[];
  readonly idealMs: number;
}

function stepScenarios(n: number): Scenario[] {
  const ok = { latencyMs: LATENCY_MS, slots: SLOTS, content: GEAR_REPLY };
  const perMs = SLOTS / LATENCY_MS;
  return [
    { name: 'healthy', endpoints: [ok, ok], idealMs: n / (2 * perMs) },
    { name: 'slower', endpoints: [{ ...ok, latencyMs: 3 * LATENCY_MS }, ok], idealMs: n / (perMs + perMs / 3) },
    { name: 'refused', endpoints: ['refused', ok], idealMs: n / perMs },
    { name: 'hanging', endpoints: [{ mode: 'hang' }, ok], idealMs: n / perMs },
  ];
}

const pad = (s: string | number, n: number): string => String(s).padStart(n);

export async function benchJudgePaths(log: (line?: string) => void, only: readonly string[] = []): Promise<void> {
  const want = (name: string): boolean => only.length === 0 || only.includes(name);
  const step = grpoStepRows(true).map(({ row, response }) => JSON.stringify({ row, response }));
  log(`judge paths: one GRPO step, ${step.length} responses (official GEAR batch prompt, one request each), 2 endpoints of ${SLOTS} slots x ${LATENCY_MS} ms; gear judge and gear serve with default flags; service: judge.scoreBatch in ${CHUNKS} chunks`);
  log(`${'scenario'.padEnd(10)}${pad('ideal s', 9)}${pad('CLI s', 8)}${pad('CLI/ideal', 11)}${pad('service s', 11)}${pad('svc/ideal', 11)}  notes`);
  for (const scenario of stepScenarios(step.length)) {
    if (!want(scenario.name)) continue;
    const cli = await withFakeEndpoints(scenario.endpoints, (e) => runCli('gear', e.urls, step));
    const service = await withFakeEndpoints(scenario.endpoints, (e) => runService('gear', e.urls, step));
    log(
      `${scenario.name.padEnd(10)}${pad((scenario.idealMs / 1000).toFixed(2), 9)}${pad((cli.ms / 1000).toFixed(2), 8)}${pad((cli.ms / scenario.idealMs).toFixed(2), 11)}` +
        `${pad((service.ms / 1000).toFixed(2), 11)}${pad((service.ms / scenario.idealMs).toFixed(2), 11)}  ` +
        `CLI ${cli.scored}/${step.length} scored, ${cli.failedCriteria} failed criteria; service ${service.scored}/${step.length}, ${service.failedCriteria} failed`,
    );
  }
  const faults: [string, EndpointSpec][] = [
    ['429', { latencyMs: LATENCY_MS, slots: SLOTS, content: RUSCARL_REPLY, alternate: { mode: 'status', status: 429, retryAfter: '1' } }],
    ['500', { latencyMs: LATENCY_MS, slots: SLOTS, content: RUSCARL_REPLY, alternate: { mode: 'status', status: 500 } }],
  ];
  if (!faults.some(([name]) => want(name))) return;
  const rows = loadHealthBenchRows(12).map((row, k) => JSON.stringify({ row, response: `Response ${k}: see a doctor; call 911 if it gets worse.` }));
  const healthy = await withFakeEndpoints([{ latencyMs: LATENCY_MS, slots: SLOTS, content: RUSCARL_REPLY }], (e) => runCli('ruscarl', e.urls, rows));
  log(`one endpoint, ${rows.length} RuscaRL rows through gear judge (one request per criterion): healthy ${(healthy.ms / 1000).toFixed(2)} s, ${healthy.failedCriteria} failed criteria`);
  for (const [name, spec] of faults) {
    if (!want(name)) continue;
    const run = await withFakeEndpoints([spec], (e) => runCli('ruscarl', e.urls, rows));
    const same = run.rewards.length === healthy.rewards.length && run.rewards.every((r, i) => r === healthy.rewards[i]);
    log(
      `  every other request ${name === '429' ? '429 + Retry-After: 1' : '500'}: ${(run.ms / 1000).toFixed(2)} s (${(run.ms / healthy.ms).toFixed(2)}x healthy), ` +
        `${run.failedCriteria} failed criteria, rewards ${same ? 'all equal to the healthy run' : `DIFFER: ${JSON.stringify(run.rewards)} vs ${JSON.stringify(healthy.rewards)}`}`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await benchJudgePaths((line = '') => console.log(line), process.argv.slice(2));
}
