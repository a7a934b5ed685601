import { describe, expect, it, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startFakeOpenAi, type FakeOpenAiServer } from '../judge/testing/fake-openai-server.js';
import { scriptedAnnotator } from '../graphs/testing/scripted-annotator.js';
import { fixturesDir } from '../conformance/fixtures-loader/fixtures-dir.js';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');
const run = promisify(execFile);
const gear = (args: string[]) => run(process.execPath, [CLI, ...args], { maxBuffer: 64 * 1024 * 1024 });

describe('gear report --graphs on what gear graph build wrote (real processes, a scripted annotator endpoint)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gear-graph-report-'));
  let server: FakeOpenAiServer | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the rows (JSONL and parquet) and the build summary beside them; its figures agree with the summary', async () => {
    server = await startFakeOpenAi({ answer: scriptedAnnotator() });
    const input = join(fixturesDir(), 'healthbench', 'oss_eval_first30.jsonl');
    const demo = join(dir, 'demo.jsonl');
    await gear(['aggregate', '--demo', '--format', 'jsonl', '--output', demo]);
    for (const output of [join(dir, 'built.jsonl'), join(dir, 'built.parquet')]) {
      await gear(['graph', 'build', '--profile', 'healthbench', '--judge-url', server.url, '--input', input, '--output', output, '--limit', '3']);
      const model = JSON.parse((await gear(['report', '--input', demo, '--graphs', output, '--format', 'json'])).stdout) as {
        graphs: { rows: number; rubrics: number; criteria_per_rubric: number; edges_kept_per_rubric: number; non_empty_rate: number; summary: Record<string, number> };
      };
      const g = model.graphs;
      expect(g.rows).toBe(3);
      expect(g.rubrics).toBe(3);
      expect(g.summary['num_rows']).toBe(3);
      // Two implementations of the paper's statistics, the builder's and core's compile, agree.
      expect(g.criteria_per_rubric).toBeCloseTo(g.summary['avg_num_node_rubrics'] as number, 12);
      expect(g.edges_kept_per_rubric).toBeCloseTo(g.summary['avg_num_graph_edges'] as number, 12);
      expect(g.non_empty_rate).toBeCloseTo(g.summary['graph_nonempty_ratio'] as number, 12);
    }
  }, 120_000);
});
