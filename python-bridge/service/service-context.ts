import type { AggregationOptionsInput, AggregatorName, CompiledRubric, Rubric } from '../../core/index.js';
import { createGearContainer, resolveAdapter, type SupportedHost } from '../../adapters/container.js';
import type { RubricAdapter } from '../../adapters/rubric-adapter.js';
import { RubricCache, type ResolvedOptions } from './rubric-cache.js';
import { methodWithinCost } from './methods/exact-cost.js';
import type { ServiceLimits } from './limits.js';
import type { Logger } from './logger.js';
import { JudgeRuntime, type JudgeRuntimeConfig } from '../../judge/judge-runtime.js';
import { canonicalJson } from '../../judge/cache/cache-key.js';

/** What the transport reports about its connections (server.health). */
export interface TransportGauges {
  /** Bytes of requests not yet answered, replies not yet written and frames partly read. */
  readonly bufferedBytes: number;
  /** Connections not read from until their replies drain. */
  readonly pausedConnections: number;
}

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
  /** Shutting down: new requests are answered -32004. */
  draining = false;
  /** Shutdown stopped waiting: requests still computing stop at their next yield with -32004. */
  abandoned = false;
  /** Set by the server (a bare endpoint has no transport). */
  gauges: () => TransportGauges = () => ({ bufferedBytes: 0, pausedConnections: 0 });
  private readonly adapters = new Map<string, RubricAdapter<unknown>>();
  private readonly compiledByRubric = new WeakMap<Rubric, { byObject: WeakMap<AggregationOptionsInput, CompiledRubric>; byText: Map<string, CompiledRubric> }>();
  /** The judge from `gear serve --judge-url` (or GEAR_JUDGE_URL); undefined when none was given. */
  judge: JudgeRuntime | undefined;
  /** Judges for endpoints named in a call's params, one per distinct endpoint list (bounded). */
  private readonly callJudges = new Map<string, JudgeRuntime>();

  constructor(
    readonly limits: ServiceLimits,
    readonly version: string,
    readonly logger: Logger,
  ) {
    this.cache = new RubricCache(limits);
  }

  /**
   * The host's adapter with gear's `aggregator` injected, compiling through the shared cache.
   * One container per (host, aggregator, options); the few combinations a run uses stay resident.
   */
  adapterFor(host: SupportedHost, aggregator: AggregatorName, options: ResolvedOptions): RubricAdapter<unknown> {
    const key = `${host}\u0000${aggregator}\u0000${options.key}`;
    const hit = this.adapters.get(key);
    if (hit !== undefined) return hit;
    // Host rows reach core through the adapter's scalarizer: the exact-inference cost is checked
    // here, where the row's rubric is compiled, before the adapter evaluates it.
    const container = createGearContainer(aggregator, options.options, (rubric, opts) => {
      const compiled = this.compiledFor(rubric, opts);
      methodWithinCost(this, compiled, aggregator);
      return compiled;
    });
    const adapter = resolveAdapter(container, host);
    this.adapters.set(key, adapter);
    if (this.adapters.size > 256) this.adapters.delete(this.adapters.keys().next().value as string);
    return adapter;
  }

  /**
   * A host row's rubric compiled through the cache, remembered by the rubric and options objects
   * themselves: the responses of a batch that share a parsed row (a GRPO group) then skip re-reading
   * and hashing it (the scalarizer passes one options object per host, see CoreScalarizer). The
   * memo lives as long as the parsed row does (weak keys).
   */
  private compiledFor(rubric: Rubric, opts: AggregationOptionsInput): CompiledRubric {
    let memo = this.compiledByRubric.get(rubric);
    const hit = memo?.byObject.get(opts);
    if (hit !== undefined) return hit;
    if (memo === undefined) {
      memo = { byObject: new WeakMap(), byText: new Map() };
      this.compiledByRubric.set(rubric, memo);
    }
    // Another scalarizer (the gear, flat and hard rewards of one response) passes equal options
    // in an object of its own: found by content once, then by identity.
    const text = JSON.stringify(opts);
    const compiled = memo.byText.get(text) ?? this.cache.compileRubric(rubric, opts);
    memo.byText.set(text, compiled);
    memo.byObject.set(opts, compiled);
    return compiled;
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
