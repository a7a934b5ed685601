import { describe, expect, it, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeOpenAi, type FakeChatRequest, type FakeOpenAiServer } from '../judge/testing/fake-openai-server.js';
import { loadOfficialHealthBenchRows } from '../judge/testing/healthbench-rows.js';
import { buildReportModel } from './model/build-report.js';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');

/** A real process, asynchronously (the fake judge answers from this process meanwhile). */
function gear(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

/**
 * The scripted judge: for a request listing several rubric items, every item but the second is
 * answered (odd items met, p 0.8; even not met, p 0.1); a re-ask of the one item gets prose, so
 * that criterion stays unread after every re-ask.
 */
function answer(request: FakeChatRequest): string {
  const content = String(request.messages[0]?.content ?? '');
  const items = content.match(/^\d+\. \(points=/gm)?.length ?? 0;
  if (items <= 1) return 'I cannot tell from this response.';
  const verdicts: Record<string, unknown> = {};
  for (let k = 1; k <= items; k++) if (k !== 2) verdicts[String(k)] = { criteria_met: k % 2 === 1, prob_met: k % 2 === 1 ? 0.8 : 0.1 };
  return JSON.stringify(verdicts);
}

describe('gear report on gear judge --explain output (real processes, a scripted judge endpoint)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gear-judge-report-'));
  let server: FakeOpenAiServer | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the judge\'s health (requests, re-asks, failed criteria, tokens, latency) and the FCP of the judged responses', async () => {
    server = await startFakeOpenAi({ answer, latencyMs: 5 });
    const rows = loadOfficialHealthBenchRows(3);
    const input = join(dir, 'rows.jsonl');
    writeFileSync(input, rows.map((row, k) => JSON.stringify({ id: `r${k}`, row, response: 'Rest and fluids; see a doctor if it gets worse.' })).join('\n'));
    const output = join(dir, 'judged.jsonl');
    const run = await gear(['judge', '--host', 'gear', '--judge-url', server.url, '--model', 'scripted', '--explain', '--input', input, '--output', output]);
    expect(run.status, run.stderr).toBe(0);

    const lines = readFileSync(output, 'utf8').split('\n').filter((l) => l !== '');
    const judged = lines.map((l) => JSON.parse(l) as { failed_criteria: number; judge: { stats: Record<string, number> } });
    const sum = (k: string): number => judged.reduce((s, j) => s + (j.judge.stats[k] as number), 0);
    const model = buildReportModel(lines);
    expect(model.input).toMatchObject({ lines: 3, judge_lines: 3, explained_lines: 3 });
    // One first ask per row, then two re-asks of the unread item, which stays unread.
    expect(model.judge).toMatchObject({ responses: 3, failed_criteria: 3, responses_with_failed_criteria: 3 });
    expect(model.judge?.judged).toMatchObject({
      responses: 3,
      requests: 9,
      reasks: 6,
      cache_hits: 0,
      failed_requests: 0,
      prompt_tokens: sum('promptTokens'),
      completion_tokens: sum('completionTokens'),
    });
    expect(model.judge?.judged?.requests).toBe(server.stats().received);
    expect(model.judge?.judged?.latency_ms.n).toBe(3);
    expect(model.judge?.judged?.latency_ms.max).toBe(Math.max(...judged.map((j) => j.judge.stats['latencyMs'] as number)));
    expect(Object.values(model.judge?.criteria_by_status ?? {}).reduce((s, n) => s + n, 0)).toBe(rows.reduce((s, r) => s + r.reward_model.rubrics.length, 0));
    // The explain blocks carry all four aggregators: distributions, FCP and the drawings follow.
    expect(model.aggregators).toEqual(['flat', 'hard', 'gear', 'gear_exact']);
    expect(model.rewards.native?.n).toBe(3);
    expect(model.fcp?.overall.responses).toBe(3);
    expect(model.responses).toHaveLength(3);
    expect(model.responses[0]?.criteria.some((c) => c.status === 'missing' || c.status === 'unparsable')).toBe(true);
  }, 60_000);
});
