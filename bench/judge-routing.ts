/**
 * The judge's routing in one GRPO step: 896 judge requests (112 HealthBench prompts x 8 rollouts,
 * one request per response with all its criteria, as the official batching does) against two fake
 * judge endpoints with fixed latency and slots, in four scenarios (healthy, one 3x slower, one
 * refusing connections, one hanging). Wall time against the ideal: requests / throughput of the
 * endpoints that work. The official GEAR judge client (VLLMSampler) runs on the same endpoints and
 * requests in the same run when GEAR_OFFICIAL_REPO points at a checkout of LvCan926/GEAR.
 *
 * Run alone: `npx tsc -b && node dist/bench/judge-routing.js`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOfficialGearFormat } from '../adapters/official-gear/format.js';
import { loadBundledRubrics } from '../conformance/fixtures-loader/bundled-rubrics.js';
import { fixturesDir } from '../conformance/fixtures-loader/fixtures-dir.js';
import { OFFICIAL_DECODING, type ChatMessage } from '../judge/transport/chat-call.js';
import { JudgeTransport } from '../judge/transport/judge-transport.js';
import type { TransportTotals } from '../judge/transport/transport-info.js';
import { benchJudgeClientOverhead } from './judge-client-overhead.js';
import { withFakeEndpoints, type EndpointSpec, type EndpointStats } from './judge-endpoints-process.js';

const PROMPTS = 112;
const ROLLOUTS = 8;
const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
/** Per request on a working endpoint, and requests it serves at once (vLLM's --max-num-seqs). */
const LATENCY_MS = env('GEAR_BENCH_JUDGE_LATENCY_MS', 200);
const SLOTS = env('GEAR_BENCH_JUDGE_SLOTS', 8);
/**
 * gear's maxConcurrent per endpoint: twice the server's slots, so the server always has the next
 * request queued (a freed slot never waits for a client round trip) while a slow endpoint holds
 * few requests when the step ends. The official client keeps 32 threads per URL.
 */
const MAX_CONCURRENT = env('GEAR_BENCH_JUDGE_MAX_CONCURRENT', 2 * SLOTS);
/** The official client gets this many times the ideal before its run is cut off. */
const OFFICIAL_CAP_X = env('GEAR_BENCH_OFFICIAL_CAP_X', 4);
/** A judge reply in the official format (the fake endpoint's answer to every request). */
const JUDGE_REPLY = JSON.stringify({ '1': { criteria_met: true, prob_met: 0.9 }, '2': { criteria_met: false, prob_met: 0.2 } });

const repo = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/** A response assembled from the rubric's own sentences; each rollout keeps a different two thirds. */
function syntheticResponse(criteria: readonly string[], rollout: number): string {
  return criteria
    .filter((_, i) => (i + rollout) % 3 !== 0)
    .map((c) => `On this point: ${c}`)
    .join('\n\n');
}

/**
 * The step's rows in the official GEAR format (112 HealthBench prompts x 8 rollouts), with their
 * responses. `distinct`: each response names its prompt and rollout, so no two are the same text
 * (through the judge client, equal prompts are one request: its cache and single flight).
 */
export function grpoStepRows(distinct = false): { row: { prompt: unknown[]; reward_model: unknown }; response: string }[] {
  const bundled = loadBundledRubrics(['healthbench']);
  const prompts = new Map<string, unknown[]>();
  for (const file of ['oss_eval_first30.jsonl', 'consensus_context_seeking_first12.jsonl']) {
    readFileSync(join(fixturesDir(), 'healthbench', file), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .forEach((line, k) => prompts.set(`healthbench/${file}:${k + 1}`, (JSON.parse(line) as { prompt: unknown[] }).prompt));
  }
  const rows: { row: { prompt: unknown[]; reward_model: unknown }; response: string }[] = [];
  for (let p = 0; p < PROMPTS; p++) {
    const b = bundled[p % bundled.length] as (typeof bundled)[number];
    const row = { prompt: prompts.get(b.key) ?? [], reward_model: b.rewardModel };
    const criteria = b.rewardModel.rubrics.map((r) => r.criterion);
    for (let r = 0; r < ROLLOUTS; r++) rows.push({ row, response: `${syntheticResponse(criteria, r)}${distinct ? `\n\n(prompt ${p}, rollout ${r})` : ''}` });
  }
  return rows;
}

/** The step's judge requests, built by the official-gear adapter from the bundled HealthBench rows. */
export function grpoStepJudgeRequests(): ChatMessage[][] {
  const format = createOfficialGearFormat();
  const requests: ChatMessage[][] = [];
  for (const { row, response } of grpoStepRows()) {
    for (const req of format.buildJudgeRequests(format.parseRow(row), response)) requests.push(req.messages.map((m) => ({ ...m })));
  }
  return requests;
}

interface Scenario {
  readonly name: string;
  /** The faulty endpoint first: both clients break ties toward the first URL. */
  readonly endpoints: readonly EndpointSpec[];
  readonly idealMs: number;
}

function scenarios(n: number): Scenario[] {
  const ok = { latencyMs: LATENCY_MS, slots: SLOTS, content: JUDGE_REPLY };
  const perMs = SLOTS / LATENCY_MS;
  return [
    { name: 'healthy', endpoints: [ok, ok], idealMs: n / (2 * perMs) },
    { name: 'one 3x slower', endpoints: [{ ...ok, latencyMs: 3 * LATENCY_MS }, ok], idealMs: n / (perMs + perMs / 3) },
    { name: 'one dead (refused)', endpoints: ['refused', ok], idealMs: n / perMs },
    { name: 'one hanging', endpoints: [{ mode: 'hang' }, ok], idealMs: n / perMs },
  ];
}

export interface ClientRun {
  readonly ms: number;
  readonly answered: number;
  readonly failed: number;
  /** Not finished when cut off (official client only). */
  readonly capped: boolean;
  readonly served: readonly (EndpointStats | null)[];
}

export interface ScenarioResult {
  readonly name: string;
  readonly idealMs: number;
  readonly gear: ClientRun & { readonly totals: TransportTotals };
  readonly official?: ClientRun;
}

async function runGear(scenario: Scenario, requests: readonly ChatMessage[][]): Promise<ScenarioResult['gear']> {
  return withFakeEndpoints(scenario.endpoints, async (endpoints) => {
    // Defaults (300 s request timeout, breaker, hedging) except maxConcurrent, and the vLLM load
    // figures the official client also reads.
    const transport = new JudgeTransport({ endpoints: endpoints.urls.map((url) => ({ url, maxConcurrent: MAX_CONCURRENT, metrics: true })) });
    const start = performance.now();
    const results = await Promise.allSettled(requests.map((messages) => transport.complete({ messages, decoding: OFFICIAL_DECODING })));
    const ms = performance.now() - start;
    const totals = transport.info().totals;
    await transport.close();
    const failed = results.filter((r) => r.status === 'rejected').length;
    return { ms, answered: results.length - failed, failed, capped: false, served: await endpoints.stats(), totals };
  });
}

interface OfficialOutput {
  wall_s: number;
  done: number;
  failed: number;
  capped: boolean;
  workers: number;
}

function officialPython(): string | undefined {
  const made = spawnSync(repo('bench/python/official-venv.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (made.status !== 0) return undefined;
  return made.stdout.trim().split('\n').at(-1);
}

async function runOfficial(scenario: Scenario, python: string, officialRepo: string, requestsFile: string): Promise<ClientRun | undefined> {
  return withFakeEndpoints(scenario.endpoints, async (endpoints) => {
    const budgetS = (OFFICIAL_CAP_X * scenario.idealMs) / 1000;
    const run = spawnSync(
      python,
      [repo('bench/python/official_sampler.py'), '--repo', officialRepo, '--urls', endpoints.urls.join(','), '--requests', requestsFile, '--budget-s', String(budgetS)],
      {
        encoding: 'utf8',
        cwd: mkdtempSync(join(tmpdir(), 'gear-official-run-')),
        // The official scripts' values (healthbench_GEAR.sh): 32 workers per URL, 300 s timeout.
        env: { ...process.env, GEAR_MAX_CONCURRENT_WORKERS: process.env['GEAR_MAX_CONCURRENT_WORKERS'] ?? '32', VLLM_TIMEOUT: process.env['VLLM_TIMEOUT'] ?? '300' },
        timeout: (budgetS + 120) * 1000,
      },
    );
    if (run.status !== 0) {
      process.stderr.write(`official sampler failed (${String(run.status ?? run.signal)}):\n${run.stderr}\n`);
      return undefined;
    }
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1) as string) as OfficialOutput;
    return { ms: out.wall_s * 1000, answered: out.done, failed: out.failed, capped: out.capped, served: await endpoints.stats() };
  });
}

/** Runs the four scenarios; `log` gets the table as it fills. */
export async function benchJudgeRouting(log: (line?: string) => void): Promise<ScenarioResult[]> {
  const requests = grpoStepJudgeRequests();
  const officialRepo = process.env['GEAR_OFFICIAL_REPO'];
  const python = officialRepo === undefined ? undefined : officialPython();
  let requestsFile: string | undefined;
  if (python !== undefined) {
    requestsFile = join(mkdtempSync(join(tmpdir(), 'gear-bench-')), 'judge-requests.json');
    writeFileSync(requestsFile, JSON.stringify(requests));
  }
  const chars = requests.reduce((s, m) => s + (m[0]?.content.length ?? 0), 0) / requests.length;
  log(
    `judge routing: one GRPO step, ${requests.length} judge requests (${PROMPTS} HealthBench prompts x ${ROLLOUTS}, one request per response, ` +
      `${Math.round(chars)} chars each), 2 endpoints of ${SLOTS} slots x ${LATENCY_MS} ms; gear maxConcurrent ${MAX_CONCURRENT} per endpoint, ` +
      `official ${process.env['GEAR_MAX_CONCURRENT_WORKERS'] ?? '32'} workers per URL`,
  );
  if (officialRepo === undefined) log('official: set GEAR_OFFICIAL_REPO=/path/to/GEAR (a checkout of LvCan926/GEAR) to run VLLMSampler on the same endpoints');
  const head = `${'scenario'.padEnd(20)}${'ideal s'.padStart(8)}${'gear s'.padStart(8)}${'gear/ideal'.padStart(11)}${'official s'.padStart(11)}${'official/ideal'.padStart(15)}${'gear/official'.padStart(14)}  notes`;
  log(head);
  log('-'.repeat(head.length));
  // Untimed: compiles the client's hot paths, as any training step after the first finds them.
  await runGear({ name: 'warm-up', endpoints: [{ content: JUDGE_REPLY }, { content: JUDGE_REPLY }], idealMs: 0 }, requests.slice(0, 256));
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios(requests.length)) {
    const gear = await runGear(scenario, requests);
    const official = python !== undefined && officialRepo !== undefined && requestsFile !== undefined ? await runOfficial(scenario, python, officialRepo, requestsFile) : undefined;
    results.push({ name: scenario.name, idealMs: scenario.idealMs, gear, ...(official === undefined ? {} : { official }) });
    const gt = gear.totals;
    const notes = [
      `gear: ${gear.failed} failed, ${gt.retries} retries, ${gt.hedges} hedges (${gt.hedgeWins} won)`,
      official === undefined ? '' : `official: ${official.failed} failed${official.capped ? `, cut off at ${OFFICIAL_CAP_X}x ideal with ${official.answered}/${requests.length} answered` : ''}`,
    ].filter((s) => s !== '');
    const o = official === undefined ? undefined : official.ms;
    const mark = official?.capped === true ? '>' : '';
    log(
      `${scenario.name.padEnd(20)}${(scenario.idealMs / 1000).toFixed(1).padStart(8)}${(gear.ms / 1000).toFixed(1).padStart(8)}${(gear.ms / scenario.idealMs).toFixed(2).padStart(11)}` +
        `${o === undefined ? '-'.padStart(11) : `${mark}${(o / 1000).toFixed(1)}`.padStart(11)}` +
        `${o === undefined ? '-'.padStart(15) : `${mark}${(o / scenario.idealMs).toFixed(2)}`.padStart(15)}` +
        `${o === undefined ? '-'.padStart(14) : `${mark === '>' ? '<' : ''}${(gear.ms / o).toFixed(2)}`.padStart(14)}  ${notes.join('; ')}`,
    );
  }
  const worst = Math.max(...results.map((r) => r.gear.ms / r.idealMs));
  log(`target gear <= 1.1x ideal in all four: worst ${worst.toFixed(2)}x -> ${worst <= 1.1 ? 'met' : 'NOT met'}`);
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const log = (line = ''): void => console.log(line);
  await benchJudgeRouting(log);
  log();
  await benchJudgeClientOverhead(grpoStepJudgeRequests(), log);
}
