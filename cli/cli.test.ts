import { afterAll, describe, expect, it, beforeAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileOfficialRewardModel, aggregate } from '../core/index.js';
import { loadBundledRubrics } from '../conformance/fixtures-loader/bundled-rubrics.js';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');

function gear(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
});

const [first, second] = loadBundledRubrics(['healthbench']);
const goodLine = (id: string, rewardModel: unknown, p: number[]): string =>
  JSON.stringify({ id, reward_model: rewardModel, p_list: p, criteria_met_list: p.map((x) => x >= 0.5) });

describe('gear aggregate (a real process, JSONL on stdin)', () => {
  const p1 = first!.rewardModel.rubrics.map((_, i) => (i % 3 === 0 ? 0.2 : 0.9));
  const p2 = second!.rewardModel.rubrics.map((_, i) => (i % 2 === 0 ? 1 : 0));
  const lines = [
    goodLine('a', first!.rewardModel, p1),
    '{"reward_model": ',
    JSON.stringify({ reward_model: first!.rewardModel, p_list: p1.map((x, i) => (i === 3 ? 1.5 : x)) }),
    JSON.stringify({ reward_model: { rubrics: [{ criterion: 'x', points: 'lots' }] }, p_list: [0.5] }),
    '',
    JSON.stringify({ rubric: { criteria: [{ id: 'a', text: 't', weight: 1 }], edges: [{ parent: 'a', child: 'a', relation: 'weak' }] }, scores: { p: [0.7] } }),
    JSON.stringify({ reward_model: first!.rewardModel }),
    goodLine('b', second!.rewardModel, p2),
  ];
  const run = gear(['aggregate'], `${lines.join('\n')}\n`);
  const out = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

  it('writes one line per non-empty input line, in order, and exits 1 because some lines were bad', () => {
    expect(out.map((o) => o['line'])).toEqual([1, 2, 3, 4, 6, 7, 8]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('7 lines, 4 errors');
  });

  it('scores good lines exactly as the library does (bit for bit)', () => {
    const compiled = compileOfficialRewardModel(first!.rewardModel);
    const scores = { p: p1, d: p1.map((x) => x >= 0.5) };
    const row = out[0] as Record<string, number>;
    expect(row['id']).toBe('a');
    expect(row['flat']).toBe(aggregate(compiled, 'flat', scores).reward);
    expect(row['hard']).toBe(aggregate(compiled, 'hard', scores).reward);
    expect(row['gear']).toBe(aggregate(compiled, 'gear', scores).reward);
    expect(row['gear_exact']).toBe(aggregate(compiled, 'gear-exact', scores).reward);
    const criteria = (out[0] as { criteria: { id: string; gear: number }[] }).criteria;
    expect(criteria.map((c) => c.gear)).toEqual(Array.from(aggregate(compiled, 'gear', scores).q));
    expect((out[6] as Record<string, unknown>)['id']).toBe('b');
  });

  it('names the line and the field of each bad line', () => {
    expect(out[1]).toMatchObject({ line: 2, error: { code: 'invalid_json' } });
    expect(out[2]).toMatchObject({ line: 3, error: { code: 'invalid_input', path: ['p_list', 3] } });
    expect(out[3]).toMatchObject({ line: 4, error: { code: 'invalid_input', path: ['reward_model', 'rubrics', 0, 'points'] } });
    expect(out[5]).toMatchObject({ line: 7, error: { code: 'invalid_input', path: ['p_list'] } });
  });

  it('reports edges it dropped instead of failing the line', () => {
    expect(out[4]).toMatchObject({ line: 6, flat: 0.7, gear: 0.7, graph: { edges_kept: 0, dropped_edges: [{ reason: 'self-loop' }] } });
  });
});

describe('gear aggregate with files and options', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gear-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads --input and writes --output; --gamma 0 makes gear equal flat', () => {
    const input = join(dir, 'in.jsonl');
    const output = join(dir, 'out.jsonl');
    const p = first!.rewardModel.rubrics.map((_, i) => (i % 2 === 0 ? 0.1 : 0.95));
    writeFileSync(input, `${goodLine('x', first!.rewardModel, p)}\n`);
    const run = gear(['aggregate', '--input', input, '--output', output, '--gamma', '0']);
    expect(run.status).toBe(0);
    const row = JSON.parse(readFileSync(output, 'utf8')) as Record<string, number>;
    expect(row['gear']).toBe(row['flat']);
    expect(row['gear_exact']).toBe(row['flat']);
  });

  it('rejects a bad option before reading any input, naming the option', () => {
    const run = gear(['aggregate', '--retention', 'weak=2'], '');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--retention.weak');
    expect(gear(['aggregate', '--normalize', 'sum'], '').stderr).toContain('options.normalize');
    expect(gear(['aggregate', '--no-such-flag'], '').status).toBe(2);
  });

  it('says which file is missing', () => {
    const run = gear(['aggregate', '--input', join(dir, 'nope.jsonl')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('nope.jsonl');
  });
});

describe('gear sample-input | gear aggregate', () => {
  it('streams every demo line through and scores each one', () => {
    const sample = gear(['sample-input', '--responses', '20', '--benchmark', 'healthbench', '--benchmark', 'writingbench']);
    expect(sample.status).toBe(0);
    const count = sample.stdout.trim().split('\n').length;
    expect(count).toBe(62 * 20);
    const run = gear(['aggregate'], sample.stdout);
    expect(run.status).toBe(0);
    const rows = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.length).toBe(count);
    expect(rows.every((r) => typeof r['gear'] === 'number' && typeof r['gear_exact'] === 'number')).toBe(true);
  });
});

describe('gear aggregate --demo', () => {
  it('prints the comparison table over the 42 bundled HealthBench rubrics with FCP diagnostics', () => {
    const run = gear(['aggregate', '--demo']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('all 42 rubrics');
    expect(run.stdout).toMatch(/\ngear\s+\d\.\d{4}\s+\d\.\d{4}\n/);
    expect(run.stderr).toContain('judge scores are simulated');
  });
});

describe('gear conformance', () => {
  it('reports every check passing for an adapter, with its case count', () => {
    const run = gear(['conformance', '--adapter', 'merf']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('merf: 126 cases, 5 of 5 checks passed');
    expect(run.stdout).toMatch(/pass {2}hostile judge output never throws nor reads what the text does not say\s+\d+ comparisons/);
  });

  it('rejects an unknown adapter by name', () => {
    const run = gear(['conformance', '--adapter', 'verl']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--adapter');
  });
});

describe('gear score --on-judge-failure (a real process)', () => {
  // A RuscaRL row with a positive and a negative criterion; the judge's output for the penalty is prose.
  const row = { prompt: [{ role: 'user', content: 'Leg cramps at night?' }], reward_model: { rubrics: [{ criterion: 'Says cramps are common.', points: 5 }, { criterion: 'Invents a lab value.', points: -5 }] } };
  const line = JSON.stringify({ row, response: 'They are common.', judge_outputs: ['{"explanation": "yes", "criteria_met": true}', 'I cannot tell.'] });
  const score = (...flags: string[]): { status: number | null; out: Record<string, unknown> } => {
    const run = gear(['score', '--host', 'ruscarl', '--aggregator', 'flat', ...flags], `${line}\n`);
    return { status: run.status, out: JSON.parse(run.stdout.trim()) as Record<string, unknown> };
  };

  it('counts an unread penalty as applied by default, and as dropped under the official rule', () => {
    const pessimistic = score();
    expect(pessimistic.status).toBe(0);
    expect(pessimistic.out).toMatchObject({ reward: 0, native_reward: 0, failed_criteria: 1 });
    expect((pessimistic.out['criteria'] as { p: number; met: boolean; status: string }[])[1]).toMatchObject({ p: 1, met: true, status: 'unparsable' });
    expect(score('--on-judge-failure', 'official').out).toMatchObject({ reward: 1, native_reward: 1, failed_criteria: 1 });
  });

  it('turns the line into an error line under error, naming the criterion', () => {
    const run = score('--on-judge-failure', 'error');
    expect(run.status).toBe(1);
    expect(run.out['error']).toMatchObject({ code: 'invalid_input' });
    expect(JSON.stringify(run.out['error'])).toContain('r2 (unparsable)');
  });

  it('rejects an unknown policy before reading input', () => {
    const run = gear(['score', '--host', 'ruscarl', '--on-judge-failure', 'lenient'], `${line}\n`);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--on-judge-failure');
  });
});
