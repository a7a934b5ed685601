import { z } from 'zod';
import { GearError, parseWith, AggregatorNameSchema, type AggregatorName } from '../../../core/index.js';
import { AlsoAggregatorsSchema } from '../params.js';
import { alsoReward } from './also-reward.js';
import { SUPPORTED_HOSTS, type SupportedHost } from '../../../adapters/container.js';
import { JudgeOptionsSchema } from '../../../judge/pipeline/judge-options.js';
import { EndpointConfigSchema } from '../../../judge/transport/endpoint-config.js';
import type { JudgeRuntime } from '../../../judge/judge-runtime.js';
import type { JudgeResult } from '../../../judge/pipeline/judge-response.js';
import { ParsedRows } from '../../../judge/pipeline/parsed-rows.js';
import { resolveOptions, type ResolvedOptions } from '../rubric-cache.js';
import type { ServiceContext } from '../service-context.js';
import { checkBatchSize } from './batch-limit.js';
import { itemError } from './item-error.js';
import { sharedRowAt } from './shared-row.js';
import { defineMethod } from './method.js';

/** Resolves on a later turn of the event loop, after pending I/O and the callbacks before it. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const HostSchema = z.enum(SUPPORTED_HOSTS as [SupportedHost, ...SupportedHost[]]);

const JudgeFields = {
  aggregator: AggregatorNameSchema.optional(),
  options: z.unknown().optional(),
  /** Judge options (decoding, structured output, p from logprobs, re-asks, failure policy). */
  judge: JudgeOptionsSchema.optional(),
  /** Endpoints for this call instead of the server's --judge-url. */
  endpoints: z.array(EndpointConfigSchema).min(1).optional(),
  /** Rewards of the same verdicts under other aggregators, in each result's `also`. */
  alsoAggregators: AlsoAggregatorsSchema.optional(),
  /**
   * Result fields the caller does not read: the per-criterion readings, the host's extras, the
   * judge's raw outputs (`judge.outputs`; `judge.stats` stays). A trainer reads rewards and counts,
   * and these are most of a result's bytes (an LLM's explanations for every criterion).
   */
  omit: z.array(z.enum(['judgments', 'extras', 'outputs'])).optional(),
};

export const JudgeItemSchema = z.strictObject({
  host: HostSchema.optional(),
  /** The host's row; absent when `rowIndex` names one of the batch's `rows`. */
  row: z.unknown().optional(),
  /** Instead of `row`: the index of the batch's `rows` entry this response answers (a GRPO group's row travels once). */
  rowIndex: z.number().int().nonnegative().optional(),
  response: z.string(),
  aggregator: AggregatorNameSchema.optional(),
  options: z.unknown().optional(),
  id: z.union([z.string(), z.number()]).optional(),
});

export const JudgeScoreParamsSchema = z.strictObject({ host: HostSchema, row: z.unknown(), response: z.string(), ...JudgeFields });
export const JudgeScoreBatchParamsSchema = z.strictObject({
  host: HostSchema.optional(),
  items: z.array(z.unknown()),
  /** Rows the items name by `rowIndex`. */
  rows: z.array(z.unknown()).optional(),
  ...JudgeFields,
});

type ResultField = NonNullable<z.infer<typeof JudgeFields.omit>>[number];

function requireJudge(context: ServiceContext, endpoints: z.infer<typeof JudgeFields.endpoints>): JudgeRuntime {
  const judge = context.judgeFor(endpoints);
  if (judge === undefined) {
    throw new GearError('usage', ['endpoints'], 'this server has no judge: start it with --judge-url URL (or GEAR_JUDGE_URL), or pass endpoints in the call');
  }
  return judge;
}

/** The host.score result of a judged response, plus what the judge did, without the fields in `omit`. */
function resultOf(result: JudgeResult, omit: ReadonlySet<ResultField>) {
  return {
    host: result.host,
    reward: result.reward,
    nativeReward: result.nativeReward,
    method: result.method,
    effective: result.criteria.map((c) => c.effective),
    ...(omit.has('judgments') ? {} : { judgments: result.criteria.map(({ effective: _effective, ...judgment }) => judgment) }),
    failedCriteria: result.failedCriteria,
    // Why each of them failed (deadline, client-error, unread, ...): kept under every `omit`, as the count is.
    failures: result.failures,
    ...(omit.has('extras') ? {} : { extras: result.extras }),
    judge: omit.has('outputs') ? { stats: result.judge.stats } : result.judge,
  };
}

interface Defaults {
  readonly host: SupportedHost | undefined;
  readonly aggregator: z.infer<typeof AggregatorNameSchema>;
  readonly options: ResolvedOptions;
  readonly also: readonly AggregatorName[];
  readonly omit: ReadonlySet<ResultField>;
  /** The batch's shared rows. */
  readonly rows?: readonly unknown[] | undefined;
  /** Its rows as parsed so far: each is parsed once for all the responses that name it. */
  readonly parsedRows: ParsedRows;
}

/** What a call's params set for all its items (`rows`: a batch's shared rows). */
function defaultsOf(params: Pick<z.infer<typeof JudgeScoreBatchParamsSchema>, 'host' | 'aggregator' | 'options' | 'alsoAggregators' | 'omit' | 'rows'>): Defaults {
  return {
    host: params.host,
    aggregator: params.aggregator ?? 'gear',
    options: resolveOptions(params.options),
    also: params.alsoAggregators ?? [],
    omit: new Set(params.omit),
    rows: params.rows,
    parsedRows: new ParsedRows(),
  };
}

/** The item's row, given inline or named in the batch's rows; and where its errors are reported. */
function rowOf(item: z.infer<typeof JudgeItemSchema>, rows: readonly unknown[] | undefined, at: readonly (string | number)[]): { row: unknown; at: readonly (string | number)[] } {
  if (item.rowIndex === undefined) {
    if (item.row === undefined) throw new GearError('invalid_input', [...at, 'row'], "missing: give the row, or rowIndex naming one of the batch's rows");
    return { row: item.row, at: [...at, 'row'] };
  }
  if (item.row !== undefined) throw new GearError('invalid_input', [...at, 'rowIndex'], 'give row or rowIndex, not both');
  return { row: sharedRowAt(rows, item.rowIndex, at), at: ['rows', item.rowIndex] };
}

async function judgeItem(context: ServiceContext, judge: JudgeRuntime, input: unknown, defaults: Defaults, judgeOptions: z.infer<typeof JudgeOptionsSchema> | undefined, at: readonly (string | number)[]) {
  const item = parseWith(JudgeItemSchema, input, at);
  const host = item.host ?? defaults.host;
  if (host === undefined) throw new GearError('invalid_input', [...at, 'host'], 'missing: give host per item or for the batch');
  const options = item.options === undefined ? defaults.options : resolveOptions(item.options, [...at, 'options']);
  const adapter = context.adapterFor(host, item.aggregator ?? defaults.aggregator, options);
  const given = rowOf(item, defaults.rows, at);
  try {
    const result = await judge.judge(adapter, given.row, item.response, judgeOptions, defaults.parsedRows);
    const also =
      defaults.also.length === 0
        ? {}
        : (() => {
            const row = defaults.parsedRows.parse(adapter.format, given.row);
            return { also: Object.fromEntries(defaults.also.map((name) => [name, alsoReward(() => context.adapterFor(host, name, options).rewardOf(row, result.criteria))])) };
          })();
    return { ...(item.id === undefined ? {} : { id: item.id }), ...resultOf(result, defaults.omit), ...also };
  } catch (error) {
    if (error instanceof GearError && error.code === 'invalid_input') throw error.under(given.at);
    throw error;
  }
}

export const judgeScore = defineMethod({
  name: 'judge.score',
  params: JudgeScoreParamsSchema,
  handle: async (params, context) => {
    const judge = requireJudge(context, params.endpoints);
    return judgeItem(context, judge, { host: params.host, row: params.row, response: params.response }, defaultsOf(params), params.judge, []);
  },
});

export const judgeScoreBatch = defineMethod({
  name: 'judge.scoreBatch',
  params: JudgeScoreBatchParamsSchema,
  handle: async (params, context) => {
    checkBatchSize(params.items, context);
    const judge = requireJudge(context, params.endpoints);
    const defaults = defaultsOf(params);
    // Every item's requests go out together; the transport's per-endpoint limits pace them. Each
    // item starts on a turn of its own, after the turn of the item before it, so the first items'
    // requests are on the wire while later items' prompts are still being built. The turns are
    // chained, not all queued at once: undici writes a request on a reused keep-alive socket from
    // a setImmediate (its idle-socket check), and immediates queued together run in one go, so the
    // first request would wait for every prompt (bench/RESULTS.md, "A chunk's first requests").
    // Not mapInSlices: its time slices would hold the first requests back as long.
    let turn: Promise<void> = Promise.resolve();
    const results = await Promise.all(
      params.items.map(async (item, index) => {
        if (index > 0) await (turn = turn.then(nextTurn));
        try {
          return { index, ...(await judgeItem(context, judge, item, defaults, params.judge, ['items', index])) };
        } catch (error) {
          return itemError(index, error);
        }
      }),
    );
    return { results };
  },
});

export const judgeInfo = defineMethod({
  name: 'judge.info',
  params: z.union([z.strictObject({}), z.array(z.never()).max(0), z.undefined()]),
  handle: (_params, context) => (context.judge === undefined ? { configured: false } : { configured: true, ...context.judge.info() }),
});
