import { describe, expect, it, beforeAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadBundledRubrics } from '../conformance/fixtures-loader/bundled-rubrics.js';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');

function gear(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
});

interface Explained {
  denominator: number;
  rewards: Record<string, number>;
  criteria: {
    id: string;
    text: string;
    weight: number;
    p: number;
    q: Record<string, number>;
    suppressed: number;
    reward_term: number;
    parents: { parent: string; relation: string; suppressed: number; factor: number }[];
  }[];
}

describe('--explain (real processes)', () => {
  const demo = gear(['aggregate', '--demo', '--format', 'jsonl', '--explain']);
  const lines = demo.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown> & { explain: Explained; criteria: Record<string, number>[] });

  it('adds to every demo line the rewards, effective scores and graph it explains, equal to the line itself', () => {
    expect(demo.status).toBe(0);
    expect(lines).toHaveLength(336);
    for (const line of lines) {
      expect(line.explain.rewards).toEqual({ flat: line['flat'], hard: line['hard'], gear: line['gear'], gear_exact: line['gear_exact'] });
      line.explain.criteria.forEach((c, i) => {
        const row = line.criteria[i] as Record<string, number>;
        expect(c.q).toEqual({ flat: row['flat'], hard: row['hard'], gear: row['gear'], gear_exact: row['gear_exact'] });
        expect(c.p).toBe(row['p']);
      });
    }
  });

  it('splits each criterion\'s suppression p - q over its parent edges, and the reward terms add up to the GEAR reward', () => {
    let edges = 0;
    for (const line of lines) {
      let reward = 0;
      for (const c of line.explain.criteria) {
        expect(c.suppressed).toBeCloseTo(c.p - (c.q['gear'] as number), 12);
        if (c.parents.length > 0) expect(c.parents.reduce((s, e) => s + e.suppressed, 0)).toBeCloseTo(c.suppressed, 12);
        edges += c.parents.length;
        reward += c.reward_term;
      }
      expect(reward).toBeCloseTo(line['gear'] as number, 12);
    }
    // The hand-annotated graphs: 42 rubrics, 8 responses each.
    expect(edges).toBeGreaterThan(42 * 8);
  });

  it('leaves the lines without --explain as they were', () => {
    const plain = gear(['aggregate', '--demo', '--format', 'jsonl']);
    const stripped = lines.map(({ explain: _explain, ...rest }) => JSON.stringify(rest)).join('\n');
    expect(plain.stdout.trim()).toBe(stripped);
  });

  it('explains gear score lines with the rubric the host row carries, agreeing with the reward it scored', () => {
    const [bundled] = loadBundledRubrics(['healthbench']);
    const rewardModel = bundled!.rewardModel;
    const verdicts = Object.fromEntries(rewardModel.rubrics.map((_, i) => [String(i + 1), { criteria_met: i % 3 !== 0, prob_met: i % 3 !== 0 ? 0.8 : 0.1 }]));
    const row = { prompt: [{ role: 'user', content: 'Q?' }], reward_model: rewardModel };
    const line = JSON.stringify({ row, response: 'A.', judge_outputs: [JSON.stringify(verdicts)] });
    for (const aggregator of ['gear', 'hard', 'flat']) {
      const run = gear(['score', '--host', 'gear', '--aggregator', aggregator, '--explain'], `${line}\n`);
      expect(run.status).toBe(0);
      const out = JSON.parse(run.stdout) as { reward: number; native_reward: number; criteria: { p: number; effective: number }[]; explain: Explained };
      expect(out.explain.rewards[aggregator]).toBe(out.reward);
      expect(out.explain.criteria.map((c) => c.q[aggregator])).toEqual(out.criteria.map((c) => c.effective));
      expect(out.explain.criteria.map((c) => c.p)).toEqual(out.criteria.map((c) => c.p));
      expect(out.explain.criteria.map((c) => c.text)).toEqual(rewardModel.rubrics.map((r) => r.criterion));
    }
  });
});
