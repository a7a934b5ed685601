import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPrng, simulateJudgment } from '../core/index.js';
import { loadBundledRubrics } from '../conformance/fixtures-loader/bundled-rubrics.js';

export interface AggregateFileTiming {
  readonly lines: number;
  readonly megabytes: number;
  readonly runs: number;
  /** Median wall time of the whole `gear aggregate` process (start-up included), ms. */
  readonly gearMs: number;
  /** Median wall time of the official aggregator over the same file (interpreter start-up included), ms. */
  readonly officialMs?: number;
  /** Largest |gear - official| over the flat, hard and GEAR rewards of every line. */
  readonly maxRewardDiff?: number;
  /** Median wall time of another build's `gear aggregate` (GEAR_AGGREGATE_BASELINE), ms. */
  readonly baselineMs?: number;
}

const RESPONSES_PER_RUBRIC = 512;

/** 30 real HealthBench rubrics (hand-annotated graphs) x 512 simulated responses = 15,360 official-format lines. */
function writeWorkload(path: string): number {
  const prng = createPrng(7);
  const lines: string[] = [];
  for (const rubric of loadBundledRubrics(['healthbench']).filter((b) => b.key.includes('oss_eval'))) {
    const weights = rubric.rewardModel.rubrics.map((r) => r.points);
    for (let r = 0; r < RESPONSES_PER_RUBRIC; r++) {
      const { p, d } = simulateJudgment(weights, prng);
      lines.push(JSON.stringify({ id: `${rubric.key}#${r + 1}`, reward_model: rubric.rewardModel, p_list: p, criteria_met_list: d }));
    }
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return lines.length;
}

function wallMs(command: string, args: string[]): number {
  const start = process.hrtime.bigint();
  const run = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${run.stderr}`);
  return ms;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

function maxRewardDiff(gearOut: string, officialOut: string): number {
  const read = (path: string): Record<string, number>[] =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, number>);
  const ours = read(gearOut);
  const theirs = read(officialOut);
  if (ours.length !== theirs.length) return Infinity;
  let max = 0;
  ours.forEach((o, i) => {
    const t = theirs[i] as Record<string, number>;
    for (const [a, b] of [
      ['flat', 'flat_reward'],
      ['hard', 'hard_reward'],
      ['gear', 'dag_reward'],
    ] as const) {
      max = Math.max(max, Math.abs((o[a] as number) - (t[b] as number)));
    }
  });
  return max;
}

/**
 * `gear aggregate --input F --output O` as a user runs it (a process: start-up, read, parse,
 * four aggregators, per-criterion output, write) against the official Python aggregator doing the
 * same file (one GEAR aggregator, flat and hard; `official_aggregate_file.py`), runs interleaved,
 * medians of `runs`.
 */
export function timeAggregateFile(gearPy: string | undefined, baselineCli?: string, runs = 7): AggregateFileTiming {
  const dir = mkdtempSync(join(tmpdir(), 'gear-bench-aggregate-'));
  try {
    const input = join(dir, 'healthbench-15360.jsonl');
    const lines = writeWorkload(input);
    const megabytes = readFileSync(input).length / 1e6;
    const cli = fileURLToPath(new URL('../cli/main.js', import.meta.url));
    const script = fileURLToPath(new URL('../../bench/official_aggregate_file.py', import.meta.url));
    const gearOut = join(dir, 'gear.jsonl');
    const officialOut = join(dir, 'official.jsonl');
    const gear = (): number => wallMs(process.execPath, [cli, 'aggregate', '--input', input, '--output', gearOut]);
    const official = (): number => wallMs('python3', [script, gearPy as string, input, officialOut]);
    const baseline = (): number => wallMs(process.execPath, [baselineCli as string, 'aggregate', '--input', input, '--output', join(dir, 'baseline.jsonl')]);
    // One unmeasured run each: the file in the page cache, the interpreters' files too.
    gear();
    if (gearPy !== undefined) official();
    if (baselineCli !== undefined) baseline();
    const gearMs: number[] = [];
    const officialMs: number[] = [];
    const baselineMs: number[] = [];
    for (let r = 0; r < runs; r++) {
      gearMs.push(gear());
      if (gearPy !== undefined) officialMs.push(official());
      if (baselineCli !== undefined) baselineMs.push(baseline());
    }
    return {
      lines,
      megabytes,
      runs,
      gearMs: median(gearMs),
      ...(gearPy !== undefined ? { officialMs: median(officialMs), maxRewardDiff: maxRewardDiff(gearOut, officialOut) } : {}),
      ...(baselineCli !== undefined ? { baselineMs: median(baselineMs) } : {}),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
