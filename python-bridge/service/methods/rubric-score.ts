import { ScoreBatchParamsSchema, ScoreParamsSchema } from '../params.js';
import { JsonArrayWriter, JsonText } from '../reply-text.js';
import { limitExceeded } from '../service-error.js';
import { checkBatchSize } from './batch-limit.js';
import { Slices } from './cooperative.js';
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

/**
 * Many responses (a GRPO step) in one request; `aggregator`/`options` are defaults items may
 * override. Items are scored and written in time slices, so a batch never holds the event loop
 * and its answer stops growing at maxReplyBytes.
 */
export const rubricScoreBatch = defineMethod({
  name: 'rubric.scoreBatch',
  params: ScoreBatchParamsSchema,
  handle: async (params, context) => {
    checkBatchSize(params.items, context);
    checkRubricIdsKnown(context, rubricIdsOf(params.items));
    const defaults = defaultsOf(params);
    const max = context.limits.maxReplyBytes;
    const results = new JsonArrayWriter(max - 20, (bytes) => limitExceeded('maxReplyBytes', max, bytes, 'the answers to these items are too large together; split the batch'));
    const slices = new Slices(context);
    for (let index = 0; index < params.items.length; index++) {
      if (slices.due()) await slices.next();
      try {
        results.push({ index, ...scoreItem(context, params.items[index], defaults, ['items', index]) });
      } catch (error) {
        results.push(itemError(index, error));
      }
    }
    return new JsonText(`{"results":${results.text}}`);
  },
});
