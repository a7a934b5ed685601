import { GearError, parseWith } from '../../../core/index.js';
import type { SupportedHost } from '../../../adapters/container.js';
import {
  HostRequestsParamsSchema,
  HostScoreBatchParamsSchema,
  HostScoreItemSchema,
  HostScoreParamsSchema,
} from '../params.js';
import { resolveOptions } from '../rubric-cache.js';
import type { ServiceContext } from '../service-context.js';
import { checkBatchSize } from './batch-limit.js';
import { itemError } from './item-error.js';
import { defineMethod } from './method.js';
import { defaultsOf, type Defaults } from './score-item.js';

/** Row errors come from the host's format, relative to the row: locate them under `at.row`. */
function underRow<T>(at: readonly (string | number)[], run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof GearError && error.path[0] !== 'options') throw error.under([...at, 'row']);
    throw error;
  }
}

/** Scores one response in a host's own format (its row, its judge's raw outputs) through its adapter. */
function scoreHostItem(context: ServiceContext, input: unknown, defaults: Defaults & { host?: SupportedHost | undefined }, at: readonly (string | number)[]) {
  const item = parseWith(HostScoreItemSchema, input, at);
  const host = item.host ?? defaults.host;
  if (host === undefined) throw new GearError('invalid_input', [...at, 'host'], 'missing: give host per item or for the batch');
  const options = item.options === undefined ? defaults.options : resolveOptions(item.options, [...at, 'options']);
  const adapter = context.adapterFor(host, item.aggregator ?? defaults.aggregator, options);
  const result = underRow(at, () => adapter.score({ row: item.row, response: item.response, judgeOutputs: item.judgeOutputs }));
  return {
    host,
    reward: result.reward,
    nativeReward: result.nativeReward,
    method: result.method,
    effective: result.effective,
    judgments: result.judgments,
    extras: result.extras,
  };
}

export const hostRequests = defineMethod({
  name: 'host.requests',
  params: HostRequestsParamsSchema,
  handle: (params, context) => {
    const { format } = context.adapterFor(params.host, 'flat', resolveOptions({}));
    const requests = underRow([], () => format.buildJudgeRequests(format.parseRow(params.row), params.response));
    return { requests };
  },
});

export const hostScore = defineMethod({
  name: 'host.score',
  params: HostScoreParamsSchema,
  handle: (params, context) => scoreHostItem(context, params, defaultsOf({}), []),
});

export const hostScoreBatch = defineMethod({
  name: 'host.scoreBatch',
  params: HostScoreBatchParamsSchema,
  handle: (params, context) => {
    checkBatchSize(params.items, context);
    const defaults = { ...defaultsOf(params), host: params.host };
    const results = params.items.map((item, index) => {
      try {
        return { index, ...scoreHostItem(context, item, defaults, ['items', index]) };
      } catch (error) {
        return itemError(index, error);
      }
    });
    return { results };
  },
});
