import type { CompiledRubric } from '../../../core/index.js';
import type { RubricRef } from '../params.js';
import type { ResolvedOptions } from '../rubric-cache.js';
import { ServiceError } from '../service-error.js';
import type { ServiceContext } from '../service-context.js';

/** The compiled rubric a reference points to, under `options` (inline rubrics are cached too). */
export function resolveCompiled(context: ServiceContext, ref: RubricRef, options: ResolvedOptions, at: readonly (string | number)[]): CompiledRubric {
  return ref.kind === 'id' ? context.cache.compiledById(ref.rubricId, options) : context.cache.register(ref.source, options, at).compiled;
}

/**
 * Every rubricId of a batch that the cache does not hold. Unknown ids fail the whole request
 * (-32001 listing them all), so a client re-registers once and resends, instead of learning
 * about them one item at a time.
 */
export function checkRubricIdsKnown(context: ServiceContext, items: readonly unknown[]): void {
  const unknown = new Set<string>();
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const id = (item as { rubricId?: unknown }).rubricId;
    if (typeof id === 'string' && !context.cache.has(id)) unknown.add(id);
  }
  if (unknown.size > 0) {
    const rubricIds = [...unknown].sort();
    throw new ServiceError('unknown_rubric', `${rubricIds.length} unknown rubric id(s): register them first (they may have been evicted)`, {
      rubricIds,
    });
  }
}
