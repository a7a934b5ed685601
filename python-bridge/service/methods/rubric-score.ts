import { ScoreBatchParamsSchema, ScoreParamsSchema } from '../params.js';
import { checkBatchSize } from './batch-limit.js';
import { itemError } from './item-error.js';
import { defineMethod } from './method.js';
import { checkRubricIdsKnown, rubricIdsOf } from './resolve-rubric.js';
import { defaultsOf, scoreItem } from './score-item.js';

/** One response: reward, method, per-criterion effective scores and the flat reward. */
export const rubricScore = defineMethod({
  name: 'rubric.score',
  params: ScoreParamsSchema,
  handle: (params, context) => {
    const { encoding, ...item } = params;
    return scoreItem(context, item, defaultsOf({ encoding }), []);
  },
});

/** Many responses (a GRPO step) in one request; `aggregator`/`options` are defaults items may override. */
export const rubricScoreBatch = defineMethod({
  name: 'rubric.scoreBatch',
  params: ScoreBatchParamsSchema,
  handle: (params, context) => {
    checkBatchSize(params.items, context);
    checkRubricIdsKnown(context, rubricIdsOf(params.items));
    const defaults = defaultsOf(params);
    const results = params.items.map((item, index) => {
      try {
        return { index, ...scoreItem(context, item, defaults, ['items', index]) };
      } catch (error) {
        return itemError(index, error);
      }
    });
    return { results };
  },
});
