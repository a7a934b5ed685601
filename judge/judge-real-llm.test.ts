import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcTestClient } from '../python-bridge/service/testing/rpc-test-client.js';
import { loadOfficialHealthBenchRows } from './testing/healthbench-rows.js';
import { localLlmSkipped, startLocalLlm, type LocalLlm } from './testing/local-llm.js';

/*
 * The judge end to end on a real LLM (SmolLM2-135M behind llama.cpp's server, installed from PyPI
 * by scripts/local-llm): real HealthBench rows in the official GEAR format, one request per
 * response. The model is tiny, so these tests assert the pipeline, determinism and the cache,
 * never whether the verdicts are right.
 */
const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');
const rows = loadOfficialHealthBenchRows(1);
const input = rows.map((row, i) => JSON.stringify({ id: `hb-${i}`, row, response: 'See a doctor soon if it gets worse; rest, drink fluids, and take your medication as prescribed.' })).join('\n');
const DECODING = ['--structured-output', '--max-tokens', '200', '--max-reasks', '1'];

type Line = {
  id: string;
  reward: number;
  failed_criteria: number;
  criteria: { id: string; p: number; status: string; p_verbalized: number | null; p_logprob?: number }[];
  judge: { stats: { requests: number; cacheHits: number; latencyMs: number }; outputs: { cached: boolean; endpoint: string | null }[] };
};

let llm: LocalLlm;
let dir: string;
beforeAll(async () => {
  if (localLlmSkipped) return;
  llm = await startLocalLlm();
  dir = mkdtempSync(join(tmpdir(), 'gear-judge-llm-'));
  writeFileSync(join(dir, 'rows.jsonl'), `${input}\n`);
}, 900_000);
afterAll(async () => {
  if (localLlmSkipped) return;
  await llm.stop();
  rmSync(dir, { recursive: true, force: true });
});

function gearJudge(extra: string[]): Line[] {
  const run = spawnSync(process.execPath, [CLI, 'judge', '--host', 'gear', '--judge-url', llm.url, '--input', join(dir, 'rows.jsonl'), ...DECODING, ...extra], { encoding: 'utf8' });
  expect(run.stderr).toContain(`gear judge: ${rows.length} rows`);
  expect(run.status).toBe(0);
  return run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);
}

/**
 * A line without what legitimately differs between runs: timings (a request retried or hedged after a
 * slow answer on a loaded machine gets the same output) and where the answer came from.
 */
const comparable = (line: Line): unknown => ({
  ...line,
  judge: { ...line.judge, stats: { ...line.judge.stats, latencyMs: 0, cacheHits: 0, retries: 0, hedges: 0 }, outputs: line.judge.outputs.map((o) => ({ ...o, cached: false, endpoint: null })) },
});

/** The server's own count of prompt tokens it has processed (a fresh connection: llama.cpp drops idle ones). */
async function promptTokensServed(): Promise<number> {
  const text = await new Promise<string>((resolve, reject) => {
    get(`${llm.url.replace(/\/v1$/, '')}/metrics`, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
  const match = /^llamacpp:prompt_tokens_total\s+([0-9.e+]+)/m.exec(text);
  if (match === null) throw new Error(`no llamacpp:prompt_tokens_total in /metrics:\n${text.slice(0, 500)}`);
  return Number(match[1]);
}

describe.skipIf(localLlmSkipped)('judging real HealthBench rows with a real local LLM', () => {
  let first: Line[];

  it('gear judge scores every row, each criterion with a read status, and gives the same output twice', () => {
    first = gearJudge([]);
    expect(first.map((l) => l.id)).toEqual(rows.map((_, i) => `hb-${i}`));
    first.forEach((line, i) => {
      expect(Number.isFinite(line.reward)).toBe(true);
      expect(line.criteria.map((c) => c.id)).toEqual(rows[i]!.reward_model.rubrics.map((r) => r.id));
      expect(line.judge.stats.requests).toBeGreaterThanOrEqual(1);
      expect(line.judge.stats.cacheHits).toBe(0);
      expect(line.failed_criteria).toBe(line.criteria.filter((c) => !['ok', 'flipped', 'clamped', 'partial'].includes(c.status)).length);
    });
    // The second run fills a cache file: the next test replays it.
    expect(gearJudge(['--cache', join(dir, 'judge.sqlite')]).map(comparable)).toEqual(first.map(comparable));
  }, 600_000);

  it('answers a re-run from --cache with no LLM call and the same output', async () => {
    const served = await promptTokensServed();
    const replayed = gearJudge(['--cache', join(dir, 'judge.sqlite')]);
    expect(await promptTokensServed()).toBe(served);
    for (const line of replayed) expect(line.judge.stats.cacheHits).toBe(line.judge.stats.requests);
    expect(replayed.map(comparable)).toEqual(first.map(comparable));
  }, 600_000);

  it('takes p from the verdict token with --p-from logprobs, beside the verbalised p', () => {
    const lines = gearJudge(['--p-from', 'logprobs']);
    const read = lines.flatMap((l) => l.criteria).filter((c) => c.status === 'ok' || c.status === 'flipped');
    expect(read.length).toBeGreaterThan(0);
    for (const c of read) {
      expect(c.p_logprob).toBeGreaterThanOrEqual(0);
      expect(c.p_logprob).toBeLessThanOrEqual(1);
      expect(c.p).toBe(c.p_logprob);
      expect(typeof c.p_verbalized).toBe('number');
    }
  }, 600_000);

  it('judge.scoreBatch on gear serve gives the CLI rewards, and the server answers other calls meanwhile', async () => {
    const server = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--judge-url', llm.url, ...DECODING], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const listening = await new Promise<{ url: string }>((resolve, reject) => {
        createInterface({ input: server.stdout }).once('line', (line) => resolve(JSON.parse(line) as { url: string }));
        server.once('exit', (code) => reject(new Error(`gear serve exited with ${String(code)}`)));
      });
      const client = await RpcTestClient.open(listening.url);
      const order: string[] = [];
      const batch = client
        .call<{ results: { index: number; id: string; reward: number; failedCriteria: number }[] }>('judge.scoreBatch', {
          host: 'gear',
          items: rows.map((row, i) => ({ id: `hb-${i}`, row, response: JSON.parse(input.split('\n')[i]!).response as string })),
        })
        .then((r) => (order.push('batch'), r));
      const health = client.call<{ status: string }>('server.health').then((r) => (order.push('health'), r));
      const [batchResult, healthResult] = await Promise.all([batch, health]);
      expect(healthResult.status).toBe('ok');
      expect(order).toEqual(['health', 'batch']);
      expect(batchResult.results.map((r) => r.reward)).toEqual(first.map((l) => l.reward));
      const info = await client.call<{ configured: boolean; responses: number; totals: { requests: number } }>('judge.info');
      expect(info).toMatchObject({ configured: true, responses: rows.length });
      expect(info.totals.requests).toBe(first.reduce((s, l) => s + l.judge.stats.requests, 0));
      await client.close();
    } finally {
      server.kill('SIGTERM');
    }
  }, 600_000);
});
