import { parseWith } from '../../../core/index.js';
import { RegisterBatchParamsSchema, RegisterItemSchema, RegisterParamsSchema, rubricRefOf } from '../params.js';
import { resolveOptions, type ResolvedOptions } from '../rubric-cache.js';
import type { ServiceContext } from '../service-context.js';
import { checkBatchSize } from './batch-limit.js';
import { Slices } from './cooperative.js';
import { itemError } from './item-error.js';
import { defineMethod } from './method.js';

/** Registers one inline rubric (errors located under `at`) and describes what was compiled. */
function registerOne(context: ServiceContext, input: { rubric?: unknown; reward_model?: unknown }, options: ResolvedOptions, at: readonly (string | number)[]) {
  const ref = rubricRefOf({ rubric: input.rubric, reward_model: input.reward_model }, at);
  if (ref.kind !== 'inline') throw new Error('unreachable: register takes inline rubrics only');
  const { rubricId, compiled, cached } = context.cache.register(ref.source, options, at);
  const { report } = compiled;
  return {
    rubricId,
    format: ref.source.format,
    size: compiled.size,
    ids: compiled.ids,
    cached,
    report: {
      edgesIn: report.edgesIn,
      edgesKept: report.edgesKept,
      droppedEdges: report.droppedEdges,
      roleWarnings: report.roleWarnings,
      maxIndegree: report.maxIndegree,
      exactWidth: report.exactWidth,
    },
  };
}

/** Registers a rubric and its graph; the same content always gets the same id (idempotent). */
export const rubricRegister = defineMethod({
  name: 'rubric.register',
  params: RegisterParamsSchema,
  handle: (params, context) => registerOne(context, params, resolveOptions(params.options), []),
});

/**
 * Registers many rubrics in one request (a GRPO step brings a new rubric per prompt: one round
 * trip instead of one per prompt). A rubric that does not parse is data at its index.
 */
export const rubricRegisterBatch = defineMethod({
  name: 'rubric.registerBatch',
  params: RegisterBatchParamsSchema,
  handle: async (params, context) => {
    checkBatchSize(params.items, context);
    const options = resolveOptions(params.options);
    const slices = new Slices(context);
    const results = [];
    for (let index = 0; index < params.items.length; index++) {
      if (slices.due()) await slices.next();
      const at = ['items', index];
      try {
        results.push({ index, ...registerOne(context, parseWith(RegisterItemSchema, params.items[index], at), options, at) });
      } catch (error) {
        results.push(itemError(index, error));
      }
    }
    return { results };
  },
});
