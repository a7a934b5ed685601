import { randomUUID } from 'node:crypto';
import { GearError, parseWith } from '../../../core/index.js';
import type { SupportedHost } from '../../../adapters/container.js';
import type { HostFormat, JudgeRequest } from '../../../adapters/host-adapter.js';
import {
  HostRequestsParamsSchema,
  HostScoreBatchParamsSchema,
  HostScoreItemSchema,
  HostScoreParamsSchema,
} from '../params.js';
import { JsonArrayWriter, JsonText } from '../reply-text.js';
import { resolveOptions } from '../rubric-cache.js';
import { ServiceError, limitExceeded } from '../service-error.js';
import type { ServiceContext } from '../service-context.js';
import { checkBatchSize } from './batch-limit.js';
import { Slices } from './cooperative.js';
import { itemError } from './item-error.js';
import { alsoReward } from './also-reward.js';
import { defineMethod } from './method.js';
import { defaultsOf, type Defaults } from './score-item.js';
import { sharedRowAt } from './shared-row.js';

/**
 * Runs an adapter on client data. Row errors come from the host's format, relative to the row:
 * they are located under `at.row`. Whatever else an adapter throws on a client's row or outputs
 * (a TypeError on an object where it expected a string, a RangeError) is still the client's
 * input it could not read: -32602 at the item, with the adapter's error logged for its authors.
 */
function runAdapter<T>(context: ServiceContext, host: SupportedHost, at: readonly (string | number)[], run: () => T, rowAt: readonly (string | number)[] = [...at, 'row']): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof GearError) throw error.path[0] === 'options' ? error : error.under(rowAt);
    if (error instanceof ServiceError) throw error;
    const incident = randomUUID();
    const name = error instanceof Error ? error.name : typeof error;
    context.logger.warn('adapter_error', {
      incident,
      host,
      error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
    });
    throw new GearError('invalid_input', at.length > 0 ? at : ['row'], `the ${host} adapter could not read this row and its outputs (${name}; incident ${incident})`);
  }
}

/**
 * The batch's shared `rows`, each parsed at most once per host (the 8 responses of a GRPO group
 * name one row). A row that does not parse fails every item naming it, at `rows[k]` + its field.
 */
class SharedRows {
  private readonly parsed = new Map<string, { row: unknown } | { error: unknown }>();

  constructor(
    private readonly context: ServiceContext,
    private readonly rows: readonly unknown[] | undefined,
  ) {}

  get(host: SupportedHost, format: HostFormat<unknown>, rowIndex: number, at: readonly (string | number)[]): unknown {
    const raw = sharedRowAt(this.rows, rowIndex, at);
    const key = `${host}\u0000${rowIndex}`;
    let entry = this.parsed.get(key);
    if (entry === undefined) {
      try {
        entry = { row: runAdapter(this.context, host, ['rows', rowIndex], () => format.parseRow(raw), ['rows', rowIndex]) };
      } catch (error) {
        entry = { error };
      }
      this.parsed.set(key, entry);
    }
    if ('error' in entry) throw entry.error;
    return entry.row;
  }
}

/** Scores one response in a host's own format (its row, its judge's raw outputs) through its adapter. */
function scoreHostItem(
  context: ServiceContext,
  input: unknown,
  defaults: Defaults & { host?: SupportedHost | undefined },
  at: readonly (string | number)[],
  shared?: SharedRows,
) {
  const item = parseWith(HostScoreItemSchema, input, at);
  const host = item.host ?? defaults.host;
  if (host === undefined) throw new GearError('invalid_input', [...at, 'host'], 'missing: give host per item or for the batch');
  const options = item.options === undefined ? defaults.options : resolveOptions(item.options, [...at, 'options']);
  const adapter = context.adapterFor(host, item.aggregator ?? defaults.aggregator, options);
  let row: unknown;
  if (item.rowIndex !== undefined) {
    if (item.row !== undefined) throw new GearError('invalid_input', [...at, 'rowIndex'], 'give row or rowIndex, not both');
    if (shared === undefined) throw new GearError('invalid_input', [...at, 'rowIndex'], 'only host.scoreBatch items name shared rows');
    row = shared.get(host, adapter.format, item.rowIndex, at);
  } else {
    if (item.row === undefined) throw new GearError('invalid_input', [...at, 'row'], 'missing: give the row, or rowIndex naming one of the batch\'s rows');
    row = runAdapter(context, host, at, () => adapter.format.parseRow(item.row));
  }
  const result = runAdapter(context, host, at, () => adapter.scoreRow(row, item.judgeOutputs, item.onJudgeFailure));
  const { also } = defaults;
  return {
    host,
    reward: result.reward,
    nativeReward: result.nativeReward,
    method: result.method,
    effective: result.effective,
    judgments: result.judgments,
    failedCriteria: result.failedCriteria,
    extras: result.extras,
    ...(also.length === 0
      ? {}
      : { also: Object.fromEntries(also.map((name) => [name, alsoReward(() => context.adapterFor(host, name, options).rewardOf(row, result.judgments))])) }),
  };
}

/** Characters of `text` once written as a JSON string, quotes included. */
function jsonLength(text: string): number {
  return JSON.stringify(text).length;
}

const SENTINEL = '\u0000gear-response\u0000';

/**
 * The length of the judge requests' JSON for `response`, without building them with it: the
 * requests are built once with a short sentinel in its place, and each occurrence is then counted
 * at the response's own JSON length. Hosts embed the response once per request (RuscaRL: once per
 * criterion), so 1000 criteria x 200 KB would otherwise be 200 MB of prompts before any check.
 */
function judgeRequestsLength<Row>(format: HostFormat<Row>, row: Row, response: string): number {
  const probe = format.buildJudgeRequests(row, SENTINEL);
  const sentinel = jsonLength(SENTINEL) - 2;
  const extra = jsonLength(response) - 2 - sentinel;
  let length = JSON.stringify(probe).length;
  for (const request of probe) {
    for (const message of request.messages) length += extra * (message.content.split(SENTINEL).length - 1);
  }
  return length;
}

export const hostRequests = defineMethod({
  name: 'host.requests',
  params: HostRequestsParamsSchema,
  handle: async (params, context) => {
    const { format } = context.adapterFor(params.host, 'flat', resolveOptions({}));
    const max = context.limits.maxReplyBytes;
    const row = runAdapter(context, params.host, [], () => format.parseRow(params.row));
    const criteria = runAdapter(context, params.host, [], () => format.toRubric(row)).criteria.length;
    if (criteria > context.limits.maxCriteria) throw limitExceeded('maxCriteria', context.limits.maxCriteria, criteria, 'a rubric may have this many criteria');
    const length = runAdapter(context, params.host, [], () => judgeRequestsLength(format, row, params.response));
    if (length > max - 32) throw limitExceeded('maxReplyBytes', max, length, 'the judge prompts for this row and response are too large to send back');
    const requests: JudgeRequest[] = runAdapter(context, params.host, [], () => format.buildJudgeRequests(row, params.response));
    const written = new JsonArrayWriter(max - 16, (bytes) => limitExceeded('maxReplyBytes', max, bytes, 'the judge prompts for this row and response are too large to send back'));
    const slices = new Slices(context);
    for (const request of requests) {
      if (slices.due()) await slices.next();
      written.push(request);
    }
    return new JsonText(`{"requests":${written.text}}`);
  },
});

export const hostScore = defineMethod({
  name: 'host.score',
  params: HostScoreParamsSchema,
  handle: (params, context) => {
    const { alsoAggregators, ...item } = params;
    return scoreHostItem(context, item, defaultsOf({ alsoAggregators }), []);
  },
});

export const hostScoreBatch = defineMethod({
  name: 'host.scoreBatch',
  params: HostScoreBatchParamsSchema,
  handle: async (params, context) => {
    checkBatchSize(params.items, context);
    const defaults = { ...defaultsOf(params), host: params.host };
    const shared = new SharedRows(context, params.rows);
    const omit = params.omit ?? [];
    const max = context.limits.maxReplyBytes;
    const results = new JsonArrayWriter(max - 20, (bytes) => limitExceeded('maxReplyBytes', max, bytes, 'the answers to these items are too large together; split the batch'));
    const slices = new Slices(context);
    for (let index = 0; index < params.items.length; index++) {
      if (slices.due()) await slices.next();
      try {
        const result: Record<string, unknown> = { index, ...scoreHostItem(context, params.items[index], defaults, ['items', index], shared) };
        for (const field of omit) delete result[field];
        results.push(result);
      } catch (error) {
        results.push(itemError(index, error));
      }
    }
    return new JsonText(`{"results":${results.text}}`);
  },
});
