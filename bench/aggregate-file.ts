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
  /** Median CPU time (user + system) of each, ms, where /proc tells it (robust on a shared machine). */
  readonly cpuMs?: { readonly gear: number; readonly official?: number; readonly baseline?: number };
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

/** CPU time of this process's waited-for children (Linux /proc: cutime + cstime), ms; undefined elsewhere. */
function childrenCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command name: state is field 3, cutime and cstime are fields 16 and 17 (clock ticks, 100 per second on Linux).
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

interface Run {
  readonly wallMs: number;
  readonly cpuMs: number | undefined;
}

function timed(command: string, args: string[]): Run {
  const cpu0 = childrenCpuMs();
  const start = process.hrtime.bigint();
  const run = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu1 = childrenCpuMs();
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${run.stderr}`);
  return { wallMs, cpuMs: cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0 };
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
    const gear = (): Run => timed(process.execPath, [cli, 'aggregate', '--input', input, '--output', gearOut]);
    const official = (): Run => timed('python3', [script, gearPy as string, input, officialOut]);
    const baseline = (): Run => timed(process.execPath, [baselineCli as string, 'aggregate', '--input', input, '--output', join(dir, 'baseline.jsonl')]);
    // One unmeasured run each: the file in the page cache, the interpreters' files too.
    gear();
    if (gearPy !== undefined) official();
    if (baselineCli !== undefined) baseline();
    const gearRuns: Run[] = [];
    const officialRuns: Run[] = [];
    const baselineRuns: Run[] = [];
    for (let r = 0; r < runs; r++) {
      gearRuns.push(gear());
      if (gearPy !== undefined) officialRuns.push(official());
      if (baselineCli !== undefined) baselineRuns.push(baseline());
    }
    const wall = (rs: Run[]): number => median(rs.map((r) => r.wallMs));
    const cpu = (rs: Run[]): number | undefined => (rs.some((r) => r.cpuMs === undefined) ? undefined : median(rs.map((r) => r.cpuMs as number)));
    const gearCpu = cpu(gearRuns);
    return {
      lines,
      megabytes,
      runs,
      gearMs: wall(gearRuns),
      ...(gearPy !== undefined ? { officialMs: wall(officialRuns), maxRewardDiff: maxRewardDiff(gearOut, officialOut) } : {}),
      ...(baselineCli !== undefined ? { baselineMs: wall(baselineRuns) } : {}),
      ...(gearCpu !== undefined
        ? {
            cpuMs: {
              gear: gearCpu,
              ...(gearPy !== undefined ? { official: cpu(officialRuns) as number } : {}),
              ...(baselineCli !== undefined ? { baseline: cpu(baselineRuns) as number } : {}),
            },
          }
        : {}),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
