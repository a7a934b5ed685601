import { z } from 'zod';
import { GearError, parseWith, readOfficialRewardModel, type Rubric } from '../../core/index.js';
import type { ChatMessage, CriterionJudgment, HostFormat } from '../host-adapter.js';
import { ConversationSchema } from '../conversation.js';
import { allPositions, checkRequestCriteria, defineHostFormat, selectPositions } from '../judge-requests.js';
import { buildExplicitRequest } from './judge-prompt.js';
import { parseExplicitVerdict } from './judge-parse.js';
import { rarExplicitReward } from './native-reward.js';
import { CATEGORY_PREFIX, CATEGORY_WEIGHTS, type Category, type PitfallPolarity, type WeightRevision } from './categories.js';

/**
 * A RaR row as released (ScaleAI/RaR-Medicine, RaR-Science): `question` and `rubric` items
 * {title, description, weight}; in a VERL row the conversation may come as `prompt` instead. The
 * numeric `weight` (1..5, pitfalls -1/-2) is not what RaR-Explicit scores with: it uses the category.
 * A GEAR graph may ride along in `graph` (official format, ids r1..rK).
 */
export const RarRowSchema = z
  .looseObject({
    question: z.string().optional(),
    prompt: ConversationSchema.optional(),
    rubric: z
      .array(z.looseObject({ title: z.string(), description: z.string(), weight: z.number().optional() }))
      .min(1, 'a rubric needs at least one item'),
    graph: z.unknown().optional(),
  })
  .refine((row) => row.question !== undefined || row.prompt !== undefined, { message: 'give "question" or "prompt"', path: ['question'] });

export interface RarRow {
  readonly conversation: readonly ChatMessage[];
  readonly rubric: Rubric;
  readonly categories: readonly Category[];
}

export interface RarFormatOptions {
  readonly weights?: WeightRevision;
  readonly pitfallPolarity?: PitfallPolarity;
}

/**
 * RaR-Explicit: each item judged on its own (binary), c_j = the verdict (inverted for pitfalls
 * when `pitfallPolarity` is `present`), r = sum w_j c_j / sum w_j with categorical weights.
 * An unreadable verdict is c_j = 0 whatever the polarity: a failure never becomes credit.
 */
export function createRarExplicitFormat(options: RarFormatOptions = {}): HostFormat<RarRow> {
  const weights = CATEGORY_WEIGHTS[options.weights ?? 'v1'];
  const polarity = options.pitfallPolarity ?? 'avoided';
  const read = (row: RarRow, i: number, raw: string | undefined): CriterionJudgment => {
    const id = row.rubric.criteria[i]?.id ?? String(i);
    const verdict = parseExplicitVerdict(raw);
    if (!('satisfied' in verdict)) return { index: i, id, p: 0, met: false, status: verdict.status, detail: verdict.detail };
    const inverted = polarity === 'present' && row.categories[i] === 'Pitfall';
    const earned = inverted ? !verdict.satisfied : verdict.satisfied;
    return {
      index: i,
      id,
      p: earned ? 1 : 0,
      met: earned,
      status: 'ok',
      ...(inverted ? { detail: `pitfall ${verdict.satisfied ? 'present' : 'avoided'} (polarity: present)` } : {}),
    };
  };
  return defineHostFormat<RarRow>({
    host: 'rar-explicit',
    scalarOptions: { normalize: 'positive-sum', emptyDenominator: 'zero-reward' },

    parseRow(input: unknown): RarRow {
      const row = parseWith(RarRowSchema, input);
      const categories = row.rubric.map((item, i) => {
        const match = CATEGORY_PREFIX.exec(item.description);
        if (match === null) {
          throw new GearError('invalid_input', ['rubric', i, 'description'], 'must start with "Essential|Important|Optional|Pitfall Criteria:"');
        }
        return match[1] as Category;
      });
      const rubrics = row.rubric.map((item, i) => ({ id: `r${i + 1}`, criterion: item.description, points: weights[categories[i] as Category] }));
      let rubric: Rubric;
      try {
        rubric = readOfficialRewardModel({ rubrics, graph: row.graph ?? null }).rubric;
      } catch (error) {
        throw error instanceof GearError ? error.under(['graph']) : error;
      }
      const conversation = row.prompt ?? [{ role: 'user' as const, content: row.question ?? '' }];
      return { conversation, rubric, categories };
    },

    toRubric: (row) => row.rubric,

    planJudgeRequests: (row, only) => selectPositions(row.rubric.criteria.length, allPositions(row.rubric.criteria.length), only).map((i) => [i]),

    buildJudgeRequest(row, response, criteria) {
      checkRequestCriteria(row.rubric.criteria.length, criteria);
      if (criteria.length !== 1) throw new GearError('invalid_input', ['criteria'], 'RaR-Explicit judges one criterion per request');
      const index = criteria[0] as number;
      return buildExplicitRequest(row.conversation, response, row.rubric.criteria[index]?.text ?? '', index);
    },

    parseJudgeOutput: (row, criteria, raw) => criteria.map((i) => read(row, i, raw)),

    nativeReward: (row, judgments) => rarExplicitReward(row.rubric.criteria.map((c) => c.weight), judgments),

    extras: () => ({}),
  });
}
