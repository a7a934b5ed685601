import { RegisterParamsSchema, rubricRefOf } from '../params.js';
import { resolveOptions } from '../rubric-cache.js';
import { defineMethod } from './method.js';

/** Registers a rubric and its graph; the same content always gets the same id (idempotent). */
export const rubricRegister = defineMethod({
  name: 'rubric.register',
  params: RegisterParamsSchema,
  handle: (params, context) => {
    const ref = rubricRefOf({ rubric: params.rubric, reward_model: params.reward_model }, []);
    if (ref.kind !== 'inline') throw new Error('unreachable: register takes inline rubrics only');
    const { rubricId, compiled, cached } = context.cache.register(ref.source, resolveOptions(params.options));
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
  },
});
