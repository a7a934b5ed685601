import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadOfficialHealthBenchRows } from '../judge/testing/healthbench-rows.js';
import { startFakeOpenAi, type FakeChatRequest, type FakeOpenAiServer } from '../judge/testing/fake-openai-server.js';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
});

const servers: FakeOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** `gear judge` as a real process, its stdin the lines; asynchronous, so the endpoint in this process keeps answering. */
function gearJudge(args: string[], input: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'judge', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input);
  });
}

const [row] = loadOfficialHealthBenchRows(1);
const rubricSize = row!.reward_model.rubrics.length;
/** The official GEAR judge's batch answer: every criterion met with p 0.9. */
const allMet = JSON.stringify(Object.fromEntries(Array.from({ length: rubricSize }, (_, i) => [String(i + 1), { criteria_met: true, prob_met: 0.9 }])));
const rowOf = (request: FakeChatRequest): string => /ROW-\d+/.exec(JSON.stringify(request.messages))?.[0] ?? '?';

describe('gear judge (a real process) with a slow first row', () => {
  it('starts the later rows while the first is still being judged, and writes every line in input order', async () => {
    const events: string[] = [];
    const server = await startFakeOpenAi({
      answer: (request) => {
        events.push(`answer ${rowOf(request)}`);
        return allMet;
      },
      behave: (request) => {
        events.push(`arrive ${rowOf(request)}`);
        return rowOf(request) === 'ROW-0' ? { latencyMs: 1500 } : { latencyMs: 5 };
      },
    });
    servers.push(server);
    const lines = Array.from({ length: 12 }, (_, k) => JSON.stringify({ id: k, row, response: `ROW-${k}: see a doctor.` }));
    // 4 rows in flight: before, the output order was kept by waiting on the oldest row, so rows 4-11 waited for row 0.
    const run = await gearJudge(['--host', 'gear', '--judge-url', server.url, '--concurrency', '4'], `${lines.join('\n')}\n`);
    expect(run.status).toBe(0);
    const out = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; failed_criteria: number; failures: unknown[] });
    expect(out.map((o) => o.id)).toEqual(lines.map((_, k) => k));
    expect(out.every((o) => o.failed_criteria === 0 && o.failures.length === 0)).toBe(true);
    // Every other row was asked (and answered) before row 0's answer came.
    const row0Answered = events.indexOf('answer ROW-0');
    for (let k = 1; k < 12; k++) expect(events.indexOf(`answer ROW-${k}`)).toBeLessThan(row0Answered);
  }, 30_000);

  it('keeps as many rows in flight as the endpoints have slots by default (the sum of --max-concurrent-requests)', async () => {
    let inFlight = 0;
    let peak = 0;
    const server = await startFakeOpenAi({
      answer: () => {
        inFlight--;
        return allMet;
      },
      behave: () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        return { latencyMs: 300 };
      },
    });
    servers.push(server);
    const lines = Array.from({ length: 40 }, (_, k) => JSON.stringify({ id: k, row, response: `ROW-${k}` }));
    // Two URLs of the same server, 10 slots each: 20 rows (one request each, official batching) at once.
    const run = await gearJudge(['--host', 'gear', '--judge-url', `${server.url},${server.url.replace('127.0.0.1', 'localhost')}`, '--max-concurrent-requests', '10'], `${lines.join('\n')}\n`);
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(40);
    expect(peak).toBe(20);
  }, 30_000);
});
