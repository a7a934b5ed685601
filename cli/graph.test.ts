// `gear graph` as a real process: resume after kill -9, parquet in and out, stats / check /
// compare, and the built rows scored by `gear aggregate` and by gear_bridge (Python).
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir } from '../conformance/fixtures-loader/fixtures-dir.js';
import { startFakeOpenAi, type FakeOpenAiServer } from '../judge/testing/fake-openai-server.js';
import { parquetBytes, readRows } from '../graphs/io/row-files.js';
import { scriptedAnnotator } from '../graphs/testing/scripted-annotator.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const PYTHON = join(ROOT, '.venv', 'bin', 'python');
const HEALTHBENCH = join(fixturesDir(), 'healthbench', 'oss_eval_first30.jsonl');
const GRAPHS = join(fixturesDir(), 'healthbench', 'graphs.jsonl');
const run = promisify(execFile);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON rows read back from files, checked field by field
type Row = Record<string, any>;

/** Runs the CLI without blocking this process (the fake endpoint answers from it). */
async function gear(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let endpoint: FakeOpenAiServer;
let dir: string;
let built: string;

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
  endpoint = await startFakeOpenAi({ answer: scriptedAnnotator() });
  dir = mkdtempSync(join(tmpdir(), 'gear-graph-cli-'));
  built = join(dir, 'built.jsonl');
  // The official strategy: the scripted annotator makes dense graphs with it, which the reports below need.
  const result = await gear(['graph', 'build', '--strategy', 'official', '--profile', 'healthbench', '--judge-url', endpoint.url, '--input', HEALTHBENCH, '--output', built, '--limit', '4']);
  expect(result.code, result.stderr).toBe(0);
});

afterAll(async () => {
  await endpoint?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('gear graph build, killed with SIGKILL mid-run and run again', () => {
  it('loses no row and duplicates none, and does not annotate finished rows again', async () => {
    const slow = await startFakeOpenAi({ answer: scriptedAnnotator(), latencyMs: 30 });
    try {
      const out = join(dir, 'killed.jsonl');
      const cache = join(dir, 'killed.sqlite');
      const journal = `${out}.progress.jsonl`;
      const args = ['graph', 'build', '--profile', 'healthbench', '--judge-url', slow.url, '--input', HEALTHBENCH, '--output', out, '--limit', '6', '--concurrency', '1', '--cache', cache];
      const child = spawn(process.execPath, [CLI, ...args], { stdio: 'ignore' });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
      const doneLines = (): number => (existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').filter((l) => l.includes('"status":"done"')).length : 0);
      while (doneLines() < 2) await new Promise((r) => setTimeout(r, 20));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      const finishedBeforeKill = doneLines();
      expect(finishedBeforeKill).toBeLessThan(6);
      expect(existsSync(out)).toBe(false);
      const requestsBeforeKill = slow.requests.length;

      const again = await gear(args);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(`resuming: ${finishedBeforeKill} of 6 rows already done`);
      const rows = (await readRows(out)) as Row[];
      const inputs = ((await readRows(HEALTHBENCH)) as Row[]).slice(0, 6);
      expect(rows.map((r) => r.prompt)).toEqual(inputs.map((r) => r.prompt));
      expect(existsSync(journal)).toBe(false);
      // the re-run asked nothing about the rows finished before the kill
      const rerunPrompts = slow.requests.slice(requestsBeforeKill).map((r) => JSON.stringify(r.body.messages));
      for (const row of inputs.slice(0, finishedBeforeKill)) {
        const text = JSON.stringify(row.rubrics[0].criterion).slice(1, -1);
        expect(rerunPrompts.some((p) => p.includes(text))).toBe(false);
      }
      // same graphs as an uninterrupted build of the same rows (the default strategy)
      const straightOut = join(dir, 'straight.jsonl');
      const straightRun = await gear(['graph', 'build', '--profile', 'healthbench', '--judge-url', slow.url, '--input', HEALTHBENCH, '--output', straightOut, '--limit', '6']);
      expect(straightRun.code, straightRun.stderr).toBe(0);
      const straight = ((await readRows(straightOut)) as Row[]).map((r) => r.reward_model.graph);
      expect(rows.map((r) => r.reward_model.graph)).toEqual(straight);
    } finally {
      await slow.stop();
    }
  }, 120_000);
});

describe('gear graph build with VERL parquet in and out', () => {
  it('reads a parquet of VERL rows and writes a parquet with the same graphs as the JSONL build', async () => {
    const verlRows = ((await readRows(built)) as Row[]).map((r) => {
      const rest = { ...r };
      delete rest.gear_annotation_stats;
      const rewardModel = { ...rest.reward_model, rubrics: rest.reward_model.rubrics.map((x: Row) => ({ ...x, tags: { axis: x.tags.axis, level: x.tags.level } })) };
      delete rewardModel.graph;
      return { ...rest, reward_model: rewardModel, extra_info: { prompt: rest.prompt, reward_model: rewardModel } };
    });
    const input = join(dir, 'verl.parquet');
    writeFileSync(input, Buffer.from(parquetBytes(verlRows)));
    const out = join(dir, 'built.parquet');
    const result = await gear(['graph', 'build', '--strategy', 'official', '--profile', 'healthbench', '--judge-url', endpoint.url, '--input', input, '--output', out]);
    expect(result.code, result.stderr).toBe(0);
    const rows = (await readRows(out)) as Row[];
    const jsonl = (await readRows(built)) as Row[];
    expect(rows.map((r) => r.reward_model.graph)).toEqual(jsonl.map((r) => r.reward_model.graph));
    expect(rows.map((r) => r.reward_model.rubrics.map((x: Row) => [x.id, x.points, x.tags.node_type]))).toEqual(
      jsonl.map((r) => r.reward_model.rubrics.map((x: Row) => [x.id, x.points, x.tags.node_type])),
    );
    expect(rows.map((r) => r.gear_annotation_stats.num_graph_edges)).toEqual(jsonl.map((r) => r.gear_annotation_stats.num_graph_edges));
    const stats = await gear(['graph', 'stats', out, '--format', 'json']);
    expect(stats.code, stats.stderr).toBe(0);
    expect(JSON.parse(stats.stdout).avg_num_graph_edges).toBe(jsonl.reduce((n, r) => n + r.reward_model.graph.edges.length, 0) / 4);
  });
});

describe('gear graph --help', () => {
  it('prints each subcommand\'s usage, lists them all under gear --help, and rejects an unknown one', async () => {
    for (const sub of ['build', 'stats', 'check', 'compare']) {
      const result = await gear(['graph', sub, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`gear graph ${sub}`);
    }
    expect((await gear(['graph', 'build', '--help'])).stdout).not.toContain('gear graph stats');
    expect((await gear(['--help'])).stdout).toContain('gear graph build --profile');
    const unknown = await gear(['graph', 'draw']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown subcommand');
    const missing = await gear(['graph', 'build', '--profile', 'healthbench', '--input', HEALTHBENCH, '--output', join(dir, 'x.jsonl')], { GEAR_JUDGE_URL: '' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--judge-url');
    for (const [flag, value] of [['--strategy', 'dense'], ['--edge-threshold', 'high'], ['--pair-candidates', '0'], ['--max-parents', '1.5']] as const) {
      const bad = await gear(['graph', 'build', '--profile', 'healthbench', '--judge-url', endpoint.url, '--input', HEALTHBENCH, '--output', join(dir, 'x.jsonl'), flag, value]);
      expect(bad.code, flag).toBe(2);
      expect(bad.stderr).toContain(flag);
    }
  });
});

describe('gear graph stats, check and compare', () => {
  it('stats gives the paper columns beside the paper figures, computed from the rows', async () => {
    const rows = (await readRows(built)) as Row[];
    const result = await gear(['graph', 'stats', built]);
    expect(result.code).toBe(0);
    const criteria = rows.reduce((n, r) => n + r.reward_model.rubrics.length, 0) / rows.length;
    expect(result.stdout).toContain(`| criteria / rubric | ${criteria.toFixed(2)} | 11.48 |`);
    expect(result.stdout).toContain('| non-empty graph rate | 100.00% | 91.84% |');
  });

  it('check passes built rows and names what is wrong in a damaged one', async () => {
    expect((await gear(['graph', 'check', built])).code).toBe(0);
    const rows = (await readRows(built)) as Row[];
    const damaged = structuredClone(rows[0]!);
    damaged.reward_model.graph.edges.push({ parent: 'r2', child: 'r1', type: 'weak_prerequisite' }, { parent: 'r1', child: 'r99', type: 'trigger' });
    damaged.reward_model.rubrics[0].tags.node_type = 'bonus';
    const file = join(dir, 'damaged.jsonl');
    writeFileSync(file, `${JSON.stringify(damaged)}\n`);
    const result = await gear(['graph', 'check', file, '--format', 'jsonl']);
    expect(result.code).toBe(1);
    const kinds = JSON.parse(result.stdout.trim()).problems.map((p: Row) => p.kind);
    expect(kinds).toEqual(expect.arrayContaining(['edge-dropped', 'tags-disagree', 'copies-differ']));
  });

  it('compare against the hand-annotated graphs gives precision and recall consistent with the counts', async () => {
    const result = await gear(['graph', 'compare', built, '--reference', GRAPHS, '--format', 'json']);
    const c = JSON.parse(result.stdout);
    expect(c.rows).toBe(4);
    const reference = readFileSync(GRAPHS, 'utf8').trim().split('\n').slice(0, 4).map((l) => JSON.parse(l));
    expect(c.referenceEdges).toBe(reference.reduce((n, g) => n + g.edges.length, 0));
    expect(c.precision).toBe(c.matchedEdges / c.builtEdges);
    expect(c.recall).toBe(c.matchedEdges / c.referenceEdges);
  });
});

describe('the built rows are scored by gear aggregate and by gear_bridge', () => {
  it('gives the same GEAR reward through both, with the built edges in play', async () => {
    const rows = (await readRows(built)) as Row[];
    const pOf = (k: number): number[] => Array.from({ length: k }, (_, j) => 0.3 + (0.6 * ((j * 7) % 5)) / 4);
    const input = join(dir, 'aggregate-in.jsonl');
    writeFileSync(input, rows.map((r, i) => JSON.stringify({ id: i, reward_model: r.reward_model, p_list: pOf(r.reward_model.rubrics.length) })).join('\n') + '\n');
    const aggregated = await gear(['aggregate', '--input', input]);
    expect(aggregated.code, aggregated.stderr).toBe(0);
    const lines = aggregated.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(rows.length);
    for (const line of lines) expect(line.gear).toBeLessThan(line.flat); // strong edges from failing parents cut credit

    const script = [
      'import json, sys',
      'from gear_bridge.convert.official_gear import official_gear_row',
      'from gear_bridge.sync import connect',
      'rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]',
      'out = []',
      'with connect() as client:',
      '    for i, row in enumerate(rows):',
      '        gear = json.loads(official_gear_row(row, index=i)["extra_info"]["gear"])',
      '        k = len(gear["reward_model"]["rubrics"])',
      '        p = [0.3 + 0.6 * ((j * 7) % 5) / 4 for j in range(k)]',
      '        rid = client.register_rubric(reward_model=gear["reward_model"])["rubricId"]',
      '        out.append(client.score({"p": p}, rubric_id=rid, aggregator="gear")["reward"])',
      'print(json.dumps(out))',
    ].join('\n');
    const { stdout } = await run(PYTHON, ['-c', script, built], { env: { ...process.env, GEAR_SERVER_COMMAND: `${process.execPath} ${CLI}` } });
    expect(JSON.parse(stdout)).toEqual(lines.map((l) => l.gear));
  }, 60_000);
});
