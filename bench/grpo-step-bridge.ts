import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  aggregate,
  compileOfficialRewardModel,
  createPrng,
  rubricShapedEdges,
  simulateJudgment,
  toOfficialRewardModel,
  type Rubric,
} from '../core/index.js';

export interface GrpoStepTiming {
  readonly responses: number;
  readonly prompts: number;
  readonly steps: number;
  readonly bridge_ms: number;
  readonly columns_ms: number;
  readonly score_batch_ms: number;
  readonly python_per_call_ms: number;
  readonly python_compiled_ms: number;
  readonly bridge_bitwise_equal: boolean;
  readonly python_max_abs_diff: number;
}

const PROMPTS = 112;
const ROLLOUTS = 8;
const repo = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/**
 * The paper's GRPO step (112 prompts x 8 rollouts) on HealthBench rubrics: the step file the
 * Python side reads, with gear's in-process rewards every path must reproduce.
 */
function writeStepCases(rubrics: readonly Rubric[], seed: number): string {
  const prng = createPrng(seed);
  const models = Array.from({ length: PROMPTS }, (_, k) => {
    const base = rubrics[k % rubrics.length] as Rubric;
    return toOfficialRewardModel({ criteria: base.criteria, edges: rubricShapedEdges(base.criteria, prng) });
  });
  const responses: { prompt: number; p: number[] }[] = [];
  const expected: number[] = [];
  models.forEach((model, prompt) => {
    const compiled = compileOfficialRewardModel(model);
    for (let r = 0; r < ROLLOUTS; r++) {
      const p = Array.from(simulateJudgment(compiled.weight, prng).p);
      responses.push({ prompt, p });
      expected.push(aggregate(compiled, 'gear', { p }).reward);
    }
  });
  const file = join(mkdtempSync(join(tmpdir(), 'gear-bench-')), 'grpo-step.json');
  writeFileSync(file, JSON.stringify({ reward_models: models, responses, expected_rewards: expected }));
  return file;
}

/**
 * Starts `gear serve` as its own process, runs bench/python/grpo_step.py against it with the
 * project venv's Python, and returns its medians. Undefined (with the reason on stderr) when the
 * venv or the built service is missing.
 */
export async function timeGrpoStepOverBridge(rubrics: readonly Rubric[], steps: number): Promise<GrpoStepTiming | undefined> {
  const python = repo('.venv/bin/python');
  if (!existsSync(python)) {
    process.stderr.write('GRPO step over the bridge: .venv missing (run scripts/setup)\n');
    return undefined;
  }
  const cases = writeStepCases(rubrics, 21);
  const server = spawn(process.execPath, [repo('dist/cli/main.js'), 'serve', '--port', '0', '--log-level', 'warn'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: server.stdout }).once('line', resolve);
      server.once('exit', (code) => reject(new Error(`gear serve exited with ${String(code)}`)));
    });
    const { url } = JSON.parse(line) as { url: string };
    const run = spawnSync(python, [repo('bench/python/grpo_step.py'), '--url', url, '--cases', cases, '--steps', String(steps)], {
      encoding: 'utf8',
    });
    if (run.status !== 0) {
      process.stderr.write(`GRPO step over the bridge failed:\n${run.stderr}\n`);
      return undefined;
    }
    return JSON.parse(run.stdout.trim().split('\n').at(-1) as string) as GrpoStepTiming;
  } finally {
    server.kill('SIGTERM');
  }
}
