import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBundledRubrics } from '../../conformance/fixtures-loader/bundled-rubrics.js';
import { fixturesDir } from '../../conformance/fixtures-loader/fixtures-dir.js';

export interface SampleRowsArgs {
  /** `gear`: official GEAR rows with the hand graph; `ruscarl`: RuscaRL rows (graph carried along). */
  readonly host: 'gear' | 'ruscarl';
  /** Rubrics to take (bundled HealthBench rows that ship reference responses). */
  readonly limit: number;
  /** Responses per rubric: the physicians' ideal completion first, then the reference completions. */
  readonly responses: number;
}

interface HealthBenchLine {
  prompt: { role: 'user' | 'assistant' | 'system'; content: string }[];
  ideal_completions_data: { ideal_completion: string; ideal_completions_ref_completions: string[] | null } | null;
}

/**
 * `gear judge` input lines from the bundled HealthBench rows (MIT): each row in the host's format
 * and real responses from the data set (the ideal completion and the reference completions the
 * physicians compared it with), so a judge run shows real differences between responses.
 */
export function* sampleRowLines(args: SampleRowsArgs): Generator<string> {
  const files = new Map<string, string[]>();
  let taken = 0;
  for (const rubric of loadBundledRubrics(['healthbench'])) {
    if (taken >= args.limit) return;
    const [file, line] = rubric.key.slice('healthbench/'.length).split(':') as [string, string];
    let lines = files.get(file);
    if (lines === undefined) {
      lines = readFileSync(join(fixturesDir(), 'healthbench', file), 'utf8').split('\n');
      files.set(file, lines);
    }
    const source = JSON.parse(lines[Number(line) - 1] as string) as HealthBenchLine;
    const ideal = source.ideal_completions_data;
    if (ideal === null) continue;
    taken++;
    const responses = [ideal.ideal_completion, ...(ideal.ideal_completions_ref_completions ?? [])].slice(0, args.responses);
    const row =
      args.host === 'gear'
        ? { prompt: source.prompt, reward_model: rubric.rewardModel }
        : {
            prompt: source.prompt,
            reward_model: { rubrics: rubric.rewardModel.rubrics.map((r) => ({ criterion: r.criterion, points: r.points, tags: r.tags })), graph: rubric.rewardModel.graph },
          };
    for (const [k, response] of responses.entries()) {
      yield JSON.stringify({ id: `${rubric.sourceId}#${k === 0 ? 'ideal' : `ref${k}`}`, row, response });
    }
  }
}
