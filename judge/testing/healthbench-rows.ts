import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from '../../conformance/fixtures-loader/fixtures-dir.js';
import { loadBundledRubrics } from '../../conformance/fixtures-loader/bundled-rubrics.js';

export interface RuscarlTestRow {
  readonly prompt: { role: 'user' | 'assistant' | 'system'; content: string }[];
  readonly reward_model: { rubrics: { criterion: string; points: number; tags: string[] }[] };
}

/** The first `count` bundled HealthBench rows (oss_eval, MIT) as RuscaRL VERL rows. */
export function loadHealthBenchRows(count: number): RuscarlTestRow[] {
  return readFileSync(join(fixturesDir(), 'healthbench', 'oss_eval_first30.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, count)
    .map((line) => JSON.parse(line) as { prompt: RuscarlTestRow['prompt']; rubrics: RuscarlTestRow['reward_model']['rubrics'] })
    .map((r) => ({ prompt: r.prompt, reward_model: { rubrics: r.rubrics } }));
}

export interface OfficialTestRow {
  readonly prompt: { role: 'user' | 'assistant' | 'system'; content: string }[];
  readonly reward_model: { rubrics: { id: string; criterion: string; points: number; tags: Record<string, unknown> }[]; graph: unknown };
}

/**
 * Bundled HealthBench rows in the official GEAR format (prompt + reward_model with the hand
 * graph), shortest first (conversation and rubric text), so real-LLM tests send short prompts.
 */
export function loadOfficialHealthBenchRows(count: number): OfficialTestRow[] {
  const lines = readFileSync(join(fixturesDir(), 'healthbench', 'oss_eval_first30.jsonl'), 'utf8').split('\n');
  const rows = loadBundledRubrics(['healthbench'])
    .filter((b) => b.key.startsWith('healthbench/oss_eval_first30.jsonl:'))
    .map((b) => {
      const line = Number(b.key.split(':')[1]);
      const source = JSON.parse(lines[line - 1] as string) as { prompt: OfficialTestRow['prompt'] };
      return { prompt: source.prompt, reward_model: b.rewardModel as OfficialTestRow['reward_model'] };
    });
  const size = (r: OfficialTestRow): number => JSON.stringify(r.prompt).length + r.reward_model.rubrics.reduce((s, c) => s + c.criterion.length, 0);
  return rows.sort((a, b) => size(a) - size(b)).slice(0, count);
}
