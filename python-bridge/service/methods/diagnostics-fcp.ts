import { createFcpAccumulator, parseWith } from '../../../core/index.js';
import { FcpItemSchema, FcpParamsSchema, rubricRefOf } from '../params.js';
import { resolveOptions } from '../rubric-cache.js';
import { checkBatchSize } from './batch-limit.js';
import { Slices } from './cooperative.js';
import { methodWithinCost } from './exact-cost.js';
import { itemError, type ItemError } from './item-error.js';
import { defineMethod } from './method.js';
import { checkRubricIdsKnown, checkScoresAt, resolveCompiled, rubricIdsOf } from './resolve-rubric.js';

/** False-credit-propagation diagnostics (L_FCP and P per aggregator) over a set of scored responses. */
export const diagnosticsFcp = defineMethod({
  name: 'diagnostics.fcp',
  params: FcpParamsSchema,
  handle: async (params, context) => {
    checkBatchSize(params.items, context);
    checkRubricIdsKnown(context, rubricIdsOf(params.items));
    const options = resolveOptions(params.options);
    const accumulator = createFcpAccumulator({
      ...(params.aggregators === undefined ? {} : { aggregators: params.aggregators }),
      ...(params.threshold === undefined ? {} : { threshold: params.threshold }),
      ...(params.relations === undefined ? {} : { relations: params.relations }),
    });
    const skipped: ItemError[] = [];
    const exact = (params.aggregators ?? []).includes('gear-exact');
    const slices = new Slices(context);
    for (let index = 0; index < params.items.length; index++) {
      if (slices.due()) await slices.next();
      const at = ['items', index];
      try {
        const item = parseWith(FcpItemSchema, params.items[index], at);
        const compiled = resolveCompiled(context, rubricRefOf(item, at), options, at);
        const scores = checkScoresAt(compiled, item.scores, at);
        if (exact) methodWithinCost(context, compiled, 'gear-exact');
        accumulator.add({ compiled, scores });
      } catch (error) {
        skipped.push(itemError(index, error));
      }
    }
    return { ...accumulator.report(), skipped };
  },
});
