import { z } from 'zod';

const count = (max: number) => z.number().int().min(1).max(max);
const MiB = 1024 * 1024;

/**
 * What one request, one connection and the whole service may cost. A request over a limit is
 * answered with a JSON-RPC error (-32002 naming the limit) before the work is done; a frame over
 * `maxPayloadBytes` is refused at its header (ws closes the socket with 1009, nothing of it is
 * read); a connection over its budget is simply not read from until its replies drain.
 */
export const ServiceLimitsSchema = z.strictObject({
  /** Bytes of one WebSocket frame (one JSON-RPC request or batch): parsing a frame is the one step that cannot yield to other connections. */
  maxPayloadBytes: count(1 << 30).default(8 * MiB),
  /**
   * Bytes of one reply. Its own limit because effective scores written in full precision run up to
   * ~10x longer than the short p (0, 1, 0.5) a judge gives; batch replies are written item by item.
   */
  maxReplyBytes: count(1 << 30).default(64 * MiB),
  /** Items of one rubric.scoreBatch / host.scoreBatch / diagnostics.fcp / scoreColumns request. */
  maxBatchItems: count(1_000_000).default(8192),
  /** Requests in one JSON-RPC batch array. */
  maxJsonRpcBatch: count(100_000).default(256),
  /**
   * Criteria and edges of one rubric, checked before it is parsed: compiling grows with their
   * product (the defaults keep one compile short; real rubrics have under 100 criteria).
   */
  maxCriteria: count(1_000_000).default(512),
  maxEdges: count(10_000_000).default(4096),
  /**
   * Work of exact inference for one response (gear-exact, or auto choosing it), in table-cell
   * operations (sum over elimination steps of 2^width x (1 + parents), plus the gate tables the
   * rubric's first exact evaluation fills), so one response cannot hold the server for long. A dense
   * 48-criterion rubric (20 roots, each a parent of the 28 others) under the default exactMaxWidth
   * 20 needs 148 x 2^24.
   */
  maxExactCost: count(2 ** 40).default(2 ** 24),
  /** Nesting of params (arrays and objects): deeper input is refused before any method sees it. */
  maxParamsDepth: count(10_000).default(64),
  /** Registered rubrics kept compiled (least recently used are evicted)... */
  maxRubrics: count(10_000_000).default(10_000),
  /** ...and the estimated bytes they take (whichever bound is reached first). */
  maxRubricCacheBytes: count(2 ** 40).default(64 * MiB),
  /** Option variants compiled per rubric. */
  maxVariantsPerRubric: count(1024).default(16),
  /** Open WebSocket connections, in all and from one address. */
  maxConnections: count(100_000).default(1024),
  maxConnectionsPerAddress: count(100_000).default(256),
  /**
   * Bytes of requests received and not yet answered plus replies not yet written to the socket:
   * past this a connection is not read from until its client reads its replies...
   */
  maxConnectionBacklogBytes: count(2 ** 40).default(32 * MiB),
  /** ...and past this total over all connections, no connection is read from. */
  maxBufferedBytes: count(2 ** 40).default(256 * MiB),
});
export type ServiceLimits = z.output<typeof ServiceLimitsSchema>;
export type ServiceLimitsInput = z.input<typeof ServiceLimitsSchema>;
