import type { RubricAdapter } from '../adapters/rubric-adapter.js';
import { JudgeCache, type JudgeCacheOptions, type JudgeCacheStats } from './cache/judge-cache.js';
import { JudgeClient, type ChatCompleter } from './pipeline/judge-client.js';
import { resolveJudgeOptions, type JudgeOptionsInput } from './pipeline/judge-options.js';
import { judgeResponse, type JudgeResult } from './pipeline/judge-response.js';
import type { ParsedRows } from './pipeline/parsed-rows.js';
import { addJudgeStats, emptyJudgeStats, type JudgeStats } from './pipeline/judge-stats.js';
import { JudgeTransport } from './transport/judge-transport.js';
import type { TransportInfo } from './transport/transport-info.js';
import { TransportConfigSchema, type TransportConfigInput } from './transport/endpoint-config.js';

export interface JudgeRuntimeConfig {
  readonly transport: TransportConfigInput;
  readonly cache?: JudgeCacheOptions;
  /** Defaults for every call (a call's own options win). */
  readonly options?: JudgeOptionsInput;
}

export interface JudgeRuntimeInfo {
  readonly endpoints: TransportInfo;
  readonly cache: JudgeCacheStats & { readonly hitRate: number | null };
  readonly responses: number;
  readonly responsesFailed: number;
  readonly inFlight: number;
  readonly totals: JudgeStats;
}

/**
 * A judge ready to use: the routed transport to the endpoints, the answer cache and the default
 * options, shared by every call of a process (so limits and the cache are per process, and one
 * `gear serve` per machine makes them per machine).
 */
export class JudgeRuntime {
  private readonly client: JudgeClient;
  private readonly totals = emptyJudgeStats();
  private responses = 0;
  private responsesFailed = 0;
  private inFlight = 0;

  private constructor(
    private readonly transport: JudgeTransport,
    private readonly cache: JudgeCache,
    private readonly defaults: JudgeOptionsInput | undefined,
    modelKey: string,
    completer: ChatCompleter,
  ) {
    this.client = new JudgeClient(completer, modelKey, cache);
  }

  /** @throws GearError / ZodError-derived errors naming the field of a bad config. */
  static create(config: JudgeRuntimeConfig): JudgeRuntime {
    const parsed = TransportConfigSchema.parse(config.transport);
    const transport = new JudgeTransport(parsed);
    const models = [...new Set(parsed.endpoints.map((e) => e.model ?? 'default'))].sort();
    return new JudgeRuntime(transport, new JudgeCache(config.cache), config.options, models.join(','), transport);
  }

  /** `parsedRows`: rows already parsed for other responses of the same batch (see ParsedRows). */
  async judge(adapter: RubricAdapter<unknown>, row: unknown, response: string, options?: JudgeOptionsInput, parsedRows?: ParsedRows): Promise<JudgeResult> {
    this.inFlight++;
    try {
      const result = await judgeResponse(adapter, this.client, row, response, resolveJudgeOptions(options, this.defaults), parsedRows);
      this.responses++;
      addJudgeStats(this.totals, result.judge.stats);
      return result;
    } catch (error) {
      this.responsesFailed++;
      throw error;
    } finally {
      this.inFlight--;
    }
  }

  info(): JudgeRuntimeInfo {
    const cache = this.cache.stats();
    const lookups = cache.hits + cache.misses;
    return {
      endpoints: this.transport.info(),
      cache: { ...cache, hitRate: lookups === 0 ? null : cache.hits / lookups },
      responses: this.responses,
      responsesFailed: this.responsesFailed,
      inFlight: this.inFlight,
      totals: { ...this.totals },
    };
  }

  async close(): Promise<void> {
    await this.transport.close();
    this.cache.close();
  }
}
