import type { AggregatorName } from '../../core/index.js';
import { createGearContainer, resolveAdapter, type SupportedHost } from '../../adapters/container.js';
import type { RubricAdapter } from '../../adapters/rubric-adapter.js';
import { RubricCache, type ResolvedOptions } from './rubric-cache.js';
import type { ServiceLimits } from './limits.js';
import type { Logger } from './logger.js';
import { JudgeRuntime, type JudgeRuntimeConfig } from '../../judge/judge-runtime.js';
import { canonicalJson } from '../../judge/cache/cache-key.js';

export interface ServiceStats {
  connections: number;
  requests: number;
  readonly byMethod: Map<string, number>;
}

/** What every method sees: the caches, the limits and the counters of one running service. */
export class ServiceContext {
  readonly cache: RubricCache;
  readonly stats: ServiceStats = { connections: 0, requests: 0, byMethod: new Map() };
  readonly startedAt = Date.now();
  draining = false;
  private readonly adapters = new Map<string, RubricAdapter<unknown>>();
  /** The judge from `gear serve --judge-url` (or GEAR_JUDGE_URL); undefined when none was given. */
  judge: JudgeRuntime | undefined;
  /** Judges for endpoints named in a call's params, one per distinct endpoint list (bounded). */
  private readonly callJudges = new Map<string, JudgeRuntime>();

  constructor(
    readonly limits: ServiceLimits,
    readonly version: string,
    readonly logger: Logger,
  ) {
    this.cache = new RubricCache(limits.maxRubrics, limits.maxVariantsPerRubric);
  }

  /**
   * The host's adapter with gear's `aggregator` injected, compiling through the shared cache.
   * One container per (host, aggregator, options); the few combinations a run uses stay resident.
   */
  adapterFor(host: SupportedHost, aggregator: AggregatorName, options: ResolvedOptions): RubricAdapter<unknown> {
    const key = `${host}\u0000${aggregator}\u0000${options.key}`;
    const hit = this.adapters.get(key);
    if (hit !== undefined) return hit;
    const container = createGearContainer(aggregator, options.options, (rubric, opts) => this.cache.compileRubric(rubric, opts));
    const adapter = resolveAdapter(container, host);
    this.adapters.set(key, adapter);
    if (this.adapters.size > 256) this.adapters.delete(this.adapters.keys().next().value as string);
    return adapter;
  }

  /** The judge for a call: its own endpoints when it names some, else the server's. */
  judgeFor(endpoints: JudgeRuntimeConfig['transport']['endpoints'] | undefined): JudgeRuntime | undefined {
    if (endpoints === undefined) return this.judge;
    const key = canonicalJson(endpoints);
    let runtime = this.callJudges.get(key);
    if (runtime === undefined) {
      runtime = JudgeRuntime.create({ transport: { endpoints } });
      this.callJudges.set(key, runtime);
      if (this.callJudges.size > 16) {
        const [oldestKey, oldest] = this.callJudges.entries().next().value as [string, JudgeRuntime];
        this.callJudges.delete(oldestKey);
        void oldest.close();
      }
    }
    return runtime;
  }

  async closeJudges(): Promise<void> {
    await Promise.all([this.judge?.close(), ...[...this.callJudges.values()].map((j) => j.close())]);
    this.callJudges.clear();
  }
}
