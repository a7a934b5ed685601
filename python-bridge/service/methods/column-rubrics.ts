import { GearError, parseWith } from '../../../core/index.js';
import { ColumnRubricSchema, rubricRefOf } from '../params.js';
import type { ResolvedOptions } from '../rubric-cache.js';
import type { ServiceContext } from '../service-context.js';
import { checkBatchSize } from './batch-limit.js';
import { mapInSlices } from './cooperative.js';

/** The columns of a rubric.scoreColumns request: one rubric id per response, and what was registered. */
export interface ColumnRubrics {
  /** One id per response. */
  readonly rubricIds: readonly string[];
  /** The param a response's rubric is named by, for error paths: `rubricIds` or `rubricIndex`. */
  readonly field: 'rubricIds' | 'rubricIndex';
  /** With `rubrics`: the id of each entry (inline ones now registered), for the caller to reuse. */
  readonly registered?: readonly string[];
}

/**
 * Reads `rubricIds`, or `rubrics` + `rubricIndex`: inline entries are registered under the
 * request's options (the compile its responses use). A malformed entry fails the request at
 * `rubrics[k]` and its field: its size is unknown, so the other responses' scores could not be placed
 * in `p` (a client sends rubric.registerBatch to learn which of its rubrics are bad).
 *
 * @throws GearError naming the param.
 */
export async function columnRubrics(
  params: { rubricIds?: string[] | undefined; rubrics?: unknown[] | undefined; rubricIndex?: number[] | undefined },
  context: ServiceContext,
  options: ResolvedOptions,
): Promise<ColumnRubrics> {
  const { rubricIds, rubrics, rubricIndex } = params;
  if (rubricIds !== undefined) {
    if (rubrics !== undefined || rubricIndex !== undefined) {
      throw new GearError('invalid_input', [rubrics !== undefined ? 'rubrics' : 'rubricIndex'], 'give rubricIds, or rubrics with rubricIndex, not both');
    }
    checkBatchSize(rubricIds, context);
    return { rubricIds, field: 'rubricIds' };
  }
  if (rubrics === undefined || rubricIndex === undefined) {
    throw new GearError('invalid_input', [rubrics === undefined ? 'rubrics' : 'rubricIndex'], 'missing: give rubricIds, or rubrics with rubricIndex');
  }
  checkBatchSize(rubricIndex, context);
  checkBatchSize(rubrics, context);
  const registered = await mapInSlices(context, rubrics, (entry, k) => {
    const at = ['rubrics', k];
    const ref = rubricRefOf(parseWith(ColumnRubricSchema, entry, at), at);
    return ref.kind === 'id' ? ref.rubricId : context.cache.register(ref.source, options, at).rubricId;
  });
  const ids = rubricIndex.map((k, i) => {
    const id = registered[k];
    if (id === undefined) throw new GearError('invalid_input', ['rubricIndex', i], `names rubrics[${k}], but rubrics has ${registered.length} entries`);
    return id;
  });
  return { rubricIds: ids, field: 'rubricIndex', registered };
}
