import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from '../../conformance/fixtures-loader/fixtures-dir.js';

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
