import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createPrng } from '../core/index.js';
import type { JudgeRequest } from '../adapters/host-adapter.js';
import { loadBundledRubrics, type BundledRubric } from './fixtures-loader/bundled-rubrics.js';
import { fixturesDir, localRubricDataDir } from './fixtures-loader/fixtures-dir.js';
import type { AdapterCase } from './checks.js';

const RESPONSES = 3;

/** A deterministic, well-spread local score for (case, criterion): the "judge" of these tests. */
export function judgedScore(caseIndex: number, criterion: number): number {
  const prng = createPrng(caseIndex * 1009 + criterion * 7919 + 17);
  const r = prng.next();
  return r < 0.15 ? 0 : r > 0.85 ? 1 : Math.round(prng.next() * 1000) / 1000;
}

const fileLines = new Map<string, string[]>();

function promptOf(bundled: BundledRubric): { role: 'user'; content: string }[] {
  const [benchmark, rest] = bundled.key.split('/') as [string, string];
  const [file, line] = rest.split(':') as [string, string];
  const path = join(fixturesDir(), benchmark, file);
  let lines = fileLines.get(path);
  if (lines === undefined) {
    lines = readFileSync(path, 'utf8').split('\n');
    fileLines.set(path, lines);
  }
  const row = JSON.parse(lines[Number(line) - 1] as string) as { prompt?: { role: 'user'; content: string }[]; query?: string };
  return row.prompt ?? [{ role: 'user', content: row.query ?? '' }];
}

/** VERL extra_info rows (prompt + official reward_model) for the bundled rubrics, several responses each. */
export function bundledCases(
  benchmark: 'healthbench' | 'writingbench',
  writeOutput: (request: JudgeRequest, caseIndex: number) => string,
  requestsOf: (input: { row: unknown; response: string; caseIndex: number }) => JudgeRequest[],
): AdapterCase[] {
  const cases: AdapterCase[] = [];
  for (const bundled of loadBundledRubrics([benchmark])) {
    const row = { prompt: promptOf(bundled), reward_model: bundled.rewardModel };
    for (let r = 0; r < RESPONSES; r++) {
      const caseIndex = cases.length;
      const response = `Response ${r + 1} to ${bundled.sourceId}: see a doctor if it gets worse. $& $' <<rubric_items>>`;
      const requests = requestsOf({ row, response, caseIndex });
      cases.push({ name: `${bundled.key}#${r + 1}`, row, response, judgeOutputs: requests.map((q) => writeOutput(q, caseIndex)) });
    }
  }
  return cases;
}

/** PLawBench rows from a shared/rubric-data/plawbench folder above the package when present (the data has no license, so gear does not ship it). */
export function localPlawBenchRows(): { prompt: { role: 'user'; content: string }[]; reward_model: unknown }[] {
  const dir = localRubricDataDir('plawbench');
  const path = dir === undefined ? undefined : join(dir, 'practical_case_analysis_first20.jsonl');
  if (path === undefined || !existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { context: string; question: string; rubrics: { criterion: string; points: string; tags: string }[] })
    .map((row) => ({
      prompt: [{ role: 'user' as const, content: `${row.context}\n\n${row.question}` }],
      reward_model: { rubrics: row.rubrics.map((r) => ({ criterion: r.criterion, points: r.points, tags: { score_type: 'partial_points', section: r.tags } })) },
    }));
}
