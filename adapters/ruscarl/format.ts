import { z } from 'zod';
import { GearError, createPrng, parseWith, readOfficialRewardModel, type Rubric } from '../../core/index.js';
import type { ChatMessage, HostExtras, HostFormat, HostName } from '../host-adapter.js';
import { ConversationSchema } from '../conversation.js';
import { allPositions, checkRequestCriteria, defineHostFormat, selectPositions } from '../judge-requests.js';
import { buildGraderRequest } from './judge-prompt.js';
import { parseGraderOutput } from './judge-parse.js';
import { ruscarlReward } from './native-reward.js';
import { buildScaffold, RUSCARL_HEALTHBENCH_SCHEDULE, type ScaffoldItem } from './scaffold.js';
import { pointsWrittenAsFloat } from '../points-form.js';

const RubricItemSchema = z.looseObject({
  criterion: z.string(),
  points: z.number().refine(Number.isFinite, { message: 'must be a finite number' }),
  tags: z.unknown().optional(),
});

/**
 * RuscaRL's VERL row as its reward function reads it: extra_info.prompt and
 * extra_info.reward_model.rubrics ({criterion, points, tags}); a GEAR graph may ride along in
 * reward_model.graph (official format, ids r1..rK) for the dependency-aware scalarizers.
 */
export const RuscarlRowSchema = z.looseObject({
  prompt: ConversationSchema,
  reward_model: z.looseObject({
    rubrics: z.array(RubricItemSchema).min(1, 'a rubric needs at least one criterion'),
    graph: z.unknown().optional(),
  }),
});

export interface RuscarlRow {
  readonly conversation: readonly ChatMessage[];
  readonly rubric: Rubric;
  readonly items: readonly ScaffoldItem[];
}

export interface RuscarlFormatOptions {
  /** healthbench_reward_zero_fn.py's variant: max(0, score). */
  readonly clipAtZero?: boolean;
  readonly host?: HostName;
  /** What travels with the rubric besides scoring (RuscaRL: the scaffold; MeRF: the motivation). */
  readonly extras?: (items: readonly ScaffoldItem[]) => HostExtras;
}

const ruscarlExtras = (items: readonly ScaffoldItem[]): HostExtras => {
  const s = RUSCARL_HEALTHBENCH_SCHEDULE;
  return {
    scaffold_full_reveal: buildScaffold(items, 1, createPrng(0)).message,
    scaffold_schedule: `step_sigmoid: rollout i of ${s.groupSize} shows (n-1-i)/(n-1) of the rubric times 1/(1+exp((x-${s.startPoint})*${s.steepness})), x=(step-1)/(${s.totalSteps}-1)`,
  };
};

/**
 * RuscaRL (HealthBench points): the HealthBench grader, one call per criterion, binary verdicts;
 * reward = points of met criteria / positive points (0 without positive points).
 */
export function createRuscarlFormat(options: RuscarlFormatOptions = {}): HostFormat<RuscarlRow> {
  const extras = options.extras ?? ruscarlExtras;
  return defineHostFormat<RuscarlRow>({
    host: options.host ?? 'ruscarl',
    scalarOptions: { normalize: 'positive-sum', emptyDenominator: 'zero-reward', clip: options.clipAtZero === true },

    parseRow(input: unknown): RuscarlRow {
      const row = parseWith(RuscarlRowSchema, input);
      const rubrics = row.reward_model.rubrics.map((r, i) => ({ id: `r${i + 1}`, criterion: r.criterion, points: r.points }));
      let rubric: Rubric;
      try {
        rubric = readOfficialRewardModel({ rubrics, graph: row.reward_model.graph ?? null }).rubric;
      } catch (error) {
        throw error instanceof GearError ? error.under(['reward_model']) : error;
      }
      // The items as given (zod's output is a copy): whether each one's points were written as a float.
      const given = (input as { reward_model: { rubrics: unknown[] } }).reward_model.rubrics;
      const items = rubrics.map((r, i) => ({ criterion: r.criterion, points: r.points, ...(pointsWrittenAsFloat(given[i]) ? { pointsAreFloat: true } : {}) }));
      return { conversation: row.prompt, rubric, items };
    },

    toRubric: (row) => row.rubric,

    planJudgeRequests: (row, only) => selectPositions(row.rubric.criteria.length, allPositions(row.rubric.criteria.length), only).map((i) => [i]),

    buildJudgeRequest(row, response, criteria) {
      checkRequestCriteria(row.rubric.criteria.length, criteria);
      if (criteria.length !== 1) throw new GearError('invalid_input', ['criteria'], 'the HealthBench grader judges one criterion per request');
      const index = criteria[0] as number;
      return buildGraderRequest(row.conversation, response, row.rubric.criteria[index]?.text ?? '', index);
    },

    parseJudgeOutput: (row, criteria, raw) => criteria.map((i) => parseGraderOutput(raw, i, row.rubric.criteria[i]?.id ?? String(i))),

    nativeReward: (row, judgments) => ruscarlReward(row.rubric.criteria.map((c) => c.weight), judgments, options.clipAtZero === true),

    extras: (row) => extras(row.items),
  });
}
