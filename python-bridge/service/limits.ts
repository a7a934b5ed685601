import { z } from 'zod';

const count = (max: number) => z.number().int().min(1).max(max);

/**
 * What one request may cost the service. Exceeding a limit is answered with a JSON-RPC error
 * (-32002), never by dropping the socket; only a frame over `hardFrameFactor` times the payload
 * limit closes the connection (ws code 1009), so a runaway client cannot exhaust memory.
 */
export const ServiceLimitsSchema = z.strictObject({
  /** Bytes of one WebSocket frame (one JSON-RPC request or batch). */
  maxPayloadBytes: count(1 << 30).default(32 * 1024 * 1024),
  /** Items of one rubric.scoreBatch / host.scoreBatch / diagnostics.fcp request. */
  maxBatchItems: count(1_000_000).default(8192),
  /** Requests in one JSON-RPC batch array. */
  maxJsonRpcBatch: count(100_000).default(256),
  /** Registered rubrics kept compiled (least recently used are evicted). */
  maxRubrics: count(10_000_000).default(10_000),
  /** Option variants compiled per rubric. */
  maxVariantsPerRubric: count(1024).default(16),
  /** Open WebSocket connections. */
  maxConnections: count(100_000).default(1024),
  hardFrameFactor: count(64).default(4),
});
export type ServiceLimits = z.output<typeof ServiceLimitsSchema>;
export type ServiceLimitsInput = z.input<typeof ServiceLimitsSchema>;
