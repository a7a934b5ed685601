import { AggregatorNameSchema, AggregationOptionsSchema } from '../../../core/index.js';
import { SUPPORTED_HOSTS } from '../../../adapters/container.js';
import { EmptyParamsSchema } from '../params.js';
import { WireEncodingValues } from '../float64-base64.js';
import { defineMethod } from './method.js';

/** The wire protocol's version; bumped on any incompatible change to a method. */
export const PROTOCOL_VERSION = 1;

export const serverInfo = defineMethod({
  name: 'server.info',
  params: EmptyParamsSchema,
  handle: (_params, context) => ({
    name: 'gear',
    version: context.version,
    protocol: PROTOCOL_VERSION,
    aggregators: AggregatorNameSchema.options,
    formats: ['canonical', 'official-gear'],
    encodings: WireEncodingValues,
    hosts: SUPPORTED_HOSTS,
    defaultAggregator: 'gear',
    defaultOptions: AggregationOptionsSchema.parse({}),
    limits: {
      maxPayloadBytes: context.limits.maxPayloadBytes,
      maxBatchItems: context.limits.maxBatchItems,
      maxJsonRpcBatch: context.limits.maxJsonRpcBatch,
      maxRubrics: context.limits.maxRubrics,
      maxReplyBytes: context.limits.maxReplyBytes,
      maxCriteria: context.limits.maxCriteria,
      maxEdges: context.limits.maxEdges,
      maxExactCost: context.limits.maxExactCost,
      maxParamsDepth: context.limits.maxParamsDepth,
    },
  }),
});

export const serverHealth = defineMethod({
  name: 'server.health',
  params: EmptyParamsSchema,
  handle: (_params, context) => ({
    status: context.draining ? 'draining' : 'ok',
    uptimeSeconds: (Date.now() - context.startedAt) / 1000,
    rubricsCached: context.cache.size,
    rubricCacheBytes: context.cache.bytes,
    connections: context.stats.connections,
    ...context.gauges(),
    requests: context.stats.requests,
    byMethod: Object.fromEntries(context.stats.byMethod),
  }),
});
