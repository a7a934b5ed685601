import { createHash } from 'node:crypto';
import {
  AggregationOptionsSchema,
  GearError,
  RubricSchema,
  compileRubric,
  parseWith,
  readOfficialRewardModel,
  compileOfficialRewardModel,
  type AggregationOptions,
  type AggregationOptionsInput,
  type CompiledRubric,
  type Rubric,
} from '../../core/index.js';
import { ServiceError } from './service-error.js';

/** A rubric given inline, in one of the formats `rubric.register` accepts. */
export type RubricSource =
  | { readonly format: 'canonical'; readonly rubric: unknown }
  | { readonly format: 'official-gear'; readonly reward_model: unknown };

/** Parsed aggregation options and the stable key their compiled variant is cached under. */
export interface ResolvedOptions {
  readonly options: AggregationOptions;
  readonly key: string;
}

export function resolveOptions(input: unknown, at: readonly (string | number)[] = ['options']): ResolvedOptions {
  const options = parseWith(AggregationOptionsSchema, input ?? {}, at);
  // zod emits keys in schema order, so equal options always give the same key.
  return { options, key: JSON.stringify(options) };
}

interface Entry {
  readonly id: string;
  readonly rubric: Rubric;
  readonly variants: Map<string, CompiledRubric>;
}

export interface Registration {
  readonly rubricId: string;
  readonly compiled: CompiledRubric;
  /** True when the rubric was already registered (registering is idempotent). */
  readonly cached: boolean;
}

/** `sha256:` + the SHA-256 of the parsed canonical rubric's JSON: equal content, equal id. */
export function rubricIdOf(rubric: Rubric): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(rubric)).digest('hex')}`;
}

/**
 * Registered rubrics and their compiled variants (one per option set), least recently used
 * first out, so memory stays bounded however many rubrics a run streams through.
 */
export class RubricCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxRubrics: number,
    private readonly maxVariants: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** @throws GearError naming the field (under `at`) when the rubric or graph is malformed. */
  register(source: RubricSource, options: ResolvedOptions, at: readonly (string | number)[] = []): Registration {
    const { rubric, compile } = readSource(source, options.options, at);
    const rubricId = rubricIdOf(rubric);
    // An official-format compile keeps its own report (edges its reader skipped), so it is its own
    // variant; its scores equal the canonical variant's, which compiledById uses.
    const variant = source.format === 'canonical' ? options.key : `official-gear\u0000${options.key}`;
    const existing = this.touch(rubricId);
    const hit = existing?.variants.get(variant);
    if (hit !== undefined) return { rubricId, compiled: hit, cached: true };
    const compiled = compile();
    const entry = existing ?? this.insert(rubricId, rubric);
    this.remember(entry, variant, compiled);
    return { rubricId, compiled, cached: existing !== undefined };
  }

  /** @throws ServiceError `unknown_rubric` when the id was never registered or was evicted. */
  compiledById(rubricId: string, options: ResolvedOptions): CompiledRubric {
    const entry = this.touch(rubricId);
    if (entry === undefined) {
      throw new ServiceError('unknown_rubric', `unknown rubric ${rubricId}: register it first (it may have been evicted)`, {
        rubricIds: [rubricId],
      });
    }
    const hit = entry.variants.get(options.key);
    if (hit !== undefined) return hit;
    const compiled = compileRubric(entry.rubric, options.options);
    this.remember(entry, options.key, compiled);
    return compiled;
  }

  /** Compiles an already-parsed rubric through the cache (the host adapters' path). */
  compileRubric(rubric: Rubric, options: AggregationOptionsInput): CompiledRubric {
    return this.register({ format: 'canonical', rubric }, resolveOptions(options)).compiled;
  }

  /** Criteria of a registered rubric (whatever options it is compiled under). */
  sizeOf(rubricId: string): number | undefined {
    return this.entries.get(rubricId)?.rubric.criteria.length;
  }

  has(rubricId: string): boolean {
    return this.entries.has(rubricId);
  }

  private touch(rubricId: string): Entry | undefined {
    const entry = this.entries.get(rubricId);
    if (entry !== undefined) {
      this.entries.delete(rubricId);
      this.entries.set(rubricId, entry);
    }
    return entry;
  }

  private insert(rubricId: string, rubric: Rubric): Entry {
    const entry: Entry = { id: rubricId, rubric, variants: new Map() };
    this.entries.set(rubricId, entry);
    if (this.entries.size > this.maxRubrics) this.entries.delete(this.entries.keys().next().value as string);
    return entry;
  }

  private remember(entry: Entry, key: string, compiled: CompiledRubric): void {
    entry.variants.delete(key);
    entry.variants.set(key, compiled);
    if (entry.variants.size > this.maxVariants) entry.variants.delete(entry.variants.keys().next().value as string);
  }
}

function readSource(
  source: RubricSource,
  options: AggregationOptions,
  at: readonly (string | number)[],
): { rubric: Rubric; compile: () => CompiledRubric } {
  try {
    if (source.format === 'canonical') {
      const rubric = parseWith(RubricSchema, source.rubric);
      return { rubric, compile: () => located(() => compileRubric(rubric, options), [...at, 'rubric']) };
    }
    const reading = readOfficialRewardModel(source.reward_model);
    return {
      rubric: reading.rubric,
      compile: () => located(() => compileOfficialRewardModel(source.reward_model, options), [...at, 'reward_model']),
    };
  } catch (error) {
    if (error instanceof GearError) throw error.under([...at, source.format === 'canonical' ? 'rubric' : 'reward_model']);
    throw error;
  }
}

function located<T>(run: () => T, at: readonly (string | number)[]): T {
  try {
    return run();
  } catch (error) {
    // Option errors already carry their own path (`options...`); graph errors sit under the rubric.
    if (error instanceof GearError && error.path[0] !== 'options') throw error.under(at);
    throw error;
  }
}
