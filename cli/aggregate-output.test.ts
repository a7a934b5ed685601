import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AggregationOptionsSchema, createPrng, simulateJudgment, type CompiledRubric } from '../core/index.js';
import { loadBundledRubrics } from '../conformance/fixtures-loader/bundled-rubrics.js';
import { readLines } from './io/jsonl-lines.js';
import { LruCache } from './io/compiled-cache.js';
import { errorRecord } from './io/error-record.js';
import { scoreRecord } from './commands/score-record.js';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');

/** `gear aggregate` as it was written before the byte-level path: readline, JSON.parse, scoreRecord, JSON.stringify. */
async function referenceOutput(path: string, options: Record<string, unknown> = {}): Promise<string> {
  const parsed = AggregationOptionsSchema.parse(options);
  const cache = new LruCache<CompiledRubric>(1024);
  let out = '';
  for await (const { number, text } of readLines(createReadStream(path))) {
    if (text.trim() === '') continue;
    let record: Record<string, unknown>;
    try {
      record = { line: number, ...scoreRecord(JSON.parse(text), parsed, cache).output };
    } catch (error) {
      record = errorRecord(number, error);
    }
    out += `${JSON.stringify(record)}\n`;
  }
  return out;
}

describe('gear aggregate writes the bytes the plain parse-score-stringify loop wrote (real processes)', () => {
  let dir: string;
  let input: string;

  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
    dir = mkdtempSync(join(tmpdir(), 'gear-aggregate-output-'));
    input = join(dir, 'mixed.jsonl');
    // 42 real rubrics x 24 responses (enough for several 1 MiB chunks), with blank lines, CRLF and
    // lone CR line ends, and lines the fast path hands back: bad JSON, both rubric keys, escaped keys.
    const prng = createPrng(12);
    const parts: string[] = [];
    for (const b of loadBundledRubrics(['healthbench'])) {
      const weights = b.rewardModel.rubrics.map((r) => r.points);
      for (let r = 0; r < 24; r++) {
        const { p, d } = simulateJudgment(weights, prng);
        const line = JSON.stringify({ id: `${b.key}#${r}`, reward_model: b.rewardModel, p_list: p, criteria_met_list: d });
        const k = parts.length;
        if (k % 97 === 5) parts.push(line.replace('"p_list"', '"p\\u005flist"'), '\r\n');
        else if (k % 89 === 7) parts.push(line.slice(0, -20), '\n');
        else if (k % 83 === 3) parts.push(line.replace(/}$/, ',"rubric":{"criteria":[]}}'), '\r');
        else parts.push(line, k % 5 === 0 ? '\r\n' : '\n');
        if (k % 61 === 0) parts.push('   \n');
      }
    }
    writeFileSync(input, parts.join(''));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('from a file and from stdin, with the same exit code and error count', async () => {
    const expected = await referenceOutput(input);
    const errors = expected.split('\n').filter((l) => l.includes('"error":')).length;
    expect(errors).toBeGreaterThan(10);
    const fromFile = spawnSync(process.execPath, [CLI, 'aggregate', '--input', input], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    expect(fromFile.stdout).toBe(expected);
    expect(fromFile.status).toBe(1);
    expect(fromFile.stderr).toContain(`, ${errors} errors`);
    const fromStdin = spawnSync(process.execPath, [CLI, 'aggregate'], { input: readFileSync(input), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    expect(fromStdin.stdout).toBe(expected);
  });

  it('with worker threads scoring beside the main thread (order, errors and exit code kept)', async () => {
    const expected = await referenceOutput(input);
    const errors = expected.split('\n').filter((l) => l.includes('"error":')).length;
    for (const threads of ['1', '2']) {
      const run = spawnSync(process.execPath, [CLI, 'aggregate', '--input', input, '--threads', threads], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
      expect(run.stdout).toBe(expected);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`, ${errors} errors`);
    }
  });

  it('with scalarizer options too', async () => {
    const run = spawnSync(process.execPath, [CLI, 'aggregate', '--input', input, '--gamma', '2', '--retention', 'weak=0.5', '--normalize', 'abs-sum'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    expect(run.stdout).toBe(await referenceOutput(input, { gamma: 2, retention: { weak: 0.5 }, normalize: 'abs-sum' }));
  });
});
