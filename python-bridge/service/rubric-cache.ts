import { createHash } from 'node:crypto';
import {
  AggregationOptionsSchema,
  GearError,
  RubricSchema,
  compileParsedRubric,
  isExactFeasible,
  needsElimination,
  parseWith,
  readOfficialRewardModel,
  compileOfficialReading,
  type AggregationOptions,
  type AggregationOptionsInput,
  type CompiledRubric,
  type Rubric,
} from '../../core/index.js';
import { ServiceError, limitExceeded } from './service-error.js';
import { exactEvaluationCost, gateTableCost } from './methods/exact-cost.js';

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
  /** Estimated bytes of each variant, as counted when it was cached. */
  readonly variantBytes: Map<string, number>;
  /** Estimated bytes of the rubric and its compiled variants (see bytesOf*). */
  bytes: number;
}

/** What the cache may hold: rubrics, their bytes, variants per rubric, and the size of one rubric. */
export interface RubricCacheLimits {
  readonly maxRubrics: number;
  readonly maxRubricCacheBytes: number;
  readonly maxVariantsPerRubric: number;
  readonly maxCriteria: number;
  readonly maxEdges: number;
  readonly maxExactCost: number;
}

/**
 * Estimated heap bytes of a parsed rubric: its strings (two bytes a character, to be safe) and
 * V8's objects around them, calibrated against the heap --expose-gc measures for HealthBench-sized
 * rubrics, so the cache's byte budget means what it says.
 */
function bytesOfRubric(rubric: Rubric): number {
  let bytes = 1024;
  for (const c of rubric.criteria) bytes += 160 + 2 * (c.id.length + c.text.length);
  for (const e of rubric.edges) bytes += 120 + 2 * (e.parent.length + e.child.length);
  return bytes;
}

/** Estimated bytes of one compiled variant, counting the gate tables exact inference may build. */
function bytesOfCompiled(compiled: CompiledRubric, maxExactCost: number): number {
  const { plan, report } = compiled;
  let bytes = 1024 + 24 * compiled.size + 16 * compiled.parentIndex.length;
  bytes += compiled.weight.byteLength + compiled.topoOrder.byteLength + compiled.parentStart.byteLength + compiled.parentIndex.byteLength;
  bytes += compiled.edgeSource.byteLength + compiled.edgeRelation.byteLength + compiled.edgeRetention.byteLength;
  bytes += plan.order.byteLength + plan.width.byteLength + plan.extend.byteLength + plan.edgeBit.byteLength + plan.removeStart.byteLength + plan.removeBit.byteLength;
  bytes += 160 * (report.droppedEdges.length + report.roleWarnings.length);
  if (needsElimination(compiled) && isExactFeasible(compiled) && exactEvaluationCost(compiled) + gateTableCost(compiled) <= maxExactCost) {
    for (let i = 0; i < compiled.size; i++) bytes += 8 * 2 ** ((compiled.parentStart[i + 1] as number) - (compiled.parentStart[i] as number));
  }
  return bytes;
}

/** Counts of a rubric before it is parsed (compiling is quadratic in them). @throws ServiceError */
function checkRubricSize(criteria: unknown, edges: unknown, limits: RubricCacheLimits): void {
  if (Array.isArray(criteria) && criteria.length > limits.maxCriteria) {
    throw limitExceeded('maxCriteria', limits.maxCriteria, criteria.length, 'a rubric may have this many criteria');
  }
  if (Array.isArray(edges) && edges.length > limits.maxEdges) {
    throw limitExceeded('maxEdges', limits.maxEdges, edges.length, 'a rubric graph may have this many edges');
  }
}

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
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
 * first out, so memory stays bounded however many rubrics a run streams through: by count
 * (maxRubrics) and by estimated bytes (maxRubricCacheBytes), whichever is reached first.
 */
export class RubricCache {
  private readonly entries = new Map<string, Entry>();
  private totalBytes = 0;

  constructor(private readonly limits: RubricCacheLimits) {}

  get size(): number {
    return this.entries.size;
  }

  /** Estimated bytes held (what maxRubricCacheBytes bounds). */
  get bytes(): number {
    return this.totalBytes;
  }

  /**
   * @throws GearError naming the field (under `at`) when the rubric or graph is malformed;
   *   ServiceError `limit_exceeded` (maxCriteria, maxEdges) before parsing a rubric too large.
   */
  register(source: RubricSource, options: ResolvedOptions, at: readonly (string | number)[] = []): Registration {
    if (source.format === 'canonical') checkRubricSize(fieldOf(source.rubric, 'criteria'), fieldOf(source.rubric, 'edges'), this.limits);
    else checkRubricSize(fieldOf(source.reward_model, 'rubrics'), fieldOf(fieldOf(source.reward_model, 'graph'), 'edges'), this.limits);
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
    // entry.rubric and options.options are their schemas' output already (readSource, resolveOptions).
    const compiled = compileParsedRubric(entry.rubric, options.options);
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
    const entry: Entry = { id: rubricId, rubric, variants: new Map(), variantBytes: new Map(), bytes: bytesOfRubric(rubric) };
    this.entries.set(rubricId, entry);
    this.totalBytes += entry.bytes;
    return entry;
  }

  private remember(entry: Entry, key: string, compiled: CompiledRubric): void {
    this.forget(entry, key);
    const bytes = bytesOfCompiled(compiled, this.limits.maxExactCost);
    entry.variants.set(key, compiled);
    entry.variantBytes.set(key, bytes);
    this.resize(entry, bytes);
    if (entry.variants.size > this.limits.maxVariantsPerRubric) this.forget(entry, entry.variants.keys().next().value as string);
    this.evict(entry);
  }

  private forget(entry: Entry, key: string): void {
    this.resize(entry, -(entry.variantBytes.get(key) ?? 0));
    entry.variants.delete(key);
    entry.variantBytes.delete(key);
  }

  private resize(entry: Entry, delta: number): void {
    entry.bytes += delta;
    this.totalBytes += delta;
  }

  /** Drops least recently used rubrics until both bounds hold; `keep` (just used) always stays. */
  private evict(keep: Entry): void {
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= this.limits.maxRubrics && this.totalBytes <= this.limits.maxRubricCacheBytes) return;
      if (entry === keep) continue;
      this.entries.delete(id);
      this.totalBytes -= entry.bytes;
    }
  }
}

function readSource(
  source: RubricSource,
  options: AggregationOptions,
  at: readonly (string | number)[],
): { rubric: Rubric; compile: () => CompiledRubric } {
  try {
    if (source.format === 'canonical') {
      // Parsed once here; options are resolveOptions' output: the compile validates neither again.
      const rubric = parseWith(RubricSchema, source.rubric);
      return { rubric, compile: () => located(() => compileParsedRubric(rubric, options), [...at, 'rubric']) };
    }
    const reading = readOfficialRewardModel(source.reward_model);
    return {
      rubric: reading.rubric,
      compile: () => located(() => compileOfficialReading(reading, options), [...at, 'reward_model']),
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
