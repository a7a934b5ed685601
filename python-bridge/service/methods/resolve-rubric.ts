import { checkScores, GearError, type CompiledRubric, type ScoreVector } from '../../../core/index.js';
import type { RubricRef } from '../params.js';
import type { ResolvedOptions } from '../rubric-cache.js';
import { ServiceError } from '../service-error.js';
import type { ServiceContext } from '../service-context.js';

/** The compiled rubric a reference points to, under `options` (inline rubrics are cached too). */
export function resolveCompiled(context: ServiceContext, ref: RubricRef, options: ResolvedOptions, at: readonly (string | number)[]): CompiledRubric {
  return ref.kind === 'id' ? context.cache.compiledById(ref.rubricId, options) : context.cache.register(ref.source, options, at).compiled;
}

/** Scores checked against their rubric, errors located under `at.scores`. @throws GearError */
export function checkScoresAt(compiled: CompiledRubric, scores: { p: unknown; d?: unknown }, at: readonly (string | number)[]): ScoreVector {
  try {
    return checkScores(compiled, scores);
  } catch (error) {
    throw error instanceof GearError ? error.under([...at, 'scores']) : error;
  }
}

/** The rubricId of each item that has one (items are unchecked input here). */
export function rubricIdsOf(items: readonly unknown[]): string[] {
  const ids: string[] = [];
  for (const item of items) {
    const id = typeof item === 'object' && item !== null ? (item as { rubricId?: unknown }).rubricId : undefined;
    if (typeof id === 'string') ids.push(id);
  }
  return ids;
}

/**
 * Every rubricId of a batch that the cache does not hold. Unknown ids fail the whole request
 * (-32001 listing them all), so a client re-registers once and resends, instead of learning
 * about them one item at a time.
 */
export function checkRubricIdsKnown(context: ServiceContext, rubricIds: readonly string[]): void {
  const unknown = new Set<string>();
  for (const id of rubricIds) if (!context.cache.has(id)) unknown.add(id);
  if (unknown.size > 0) {
    const rubricIds = [...unknown].sort();
    throw new ServiceError('unknown_rubric', `${rubricIds.length} unknown rubric id(s): register them first (they may have been evicted)`, {
      rubricIds,
    });
  }
}
