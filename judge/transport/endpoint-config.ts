import { z } from 'zod';
import { GearError, parseWith } from '../../core/index.js';

/**
 * An OpenAI-compatible base URL. `http://host:8000` and `http://host:8000/v1` mean the same server
 * (vLLM, SGLang and llama.cpp serve under /v1); any other path (a hosted API's own prefix) is kept.
 */
const BaseUrlSchema = z
  .string()
  .trim()
  .refine((s) => URL.canParse(s) && ['http:', 'https:'].includes(new URL(s).protocol), 'must be an http(s) URL')
  .transform(normaliseBaseUrl);

function normaliseBaseUrl(raw: string): string {
  const url = new URL(raw);
  url.search = '';
  url.hash = '';
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path === '' ? '/v1' : path;
  return url.toString().replace(/\/+$/, '');
}

/** Where vLLM (and SGLang with --enable-metrics) publish Prometheus metrics: the base without /v1. */
export function metricsUrlOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/v1$/, '')}/metrics`;
}

export const EndpointConfigSchema = z.strictObject({
  url: BaseUrlSchema,
  model: z.string().min(1).default('default'),
  apiKey: z.string().default('EMPTY'),
  /** Requests this process keeps outstanding on the endpoint (vLLM's --max-num-seqs is a good value). */
  maxConcurrent: z.int().min(1).default(32),
  /** Requests per minute (hosted APIs). */
  rpm: z.number().positive().optional(),
  /** Tokens (prompt + completion) per minute (hosted APIs). */
  tpm: z.number().positive().optional(),
  /** Add the server's vllm:num_requests_running + waiting from GET {base without /v1}/metrics to its load. */
  metrics: z.boolean().default(false),
});
export type EndpointConfig = z.output<typeof EndpointConfigSchema>;
export type EndpointConfigInput = z.input<typeof EndpointConfigSchema>;

export const TransportConfigSchema = z.strictObject({
  endpoints: z.array(EndpointConfigSchema).min(1),
  /** One HTTP attempt. */
  requestTimeoutMs: z.int().positive().default(300_000),
  /**
   * One complete() call, from its first request on the wire (time in this process's own waiting
   * line does not count), retries and hedges included: transport faults are retried until the
   * call succeeds or this passes, never for a fixed number of attempts. 5 minutes.
   */
  deadlineMs: z.int().positive().default(300_000),
  /** AIMD per endpoint: a 429 or 503 halves the requests in flight there, successes climb back to maxConcurrent. */
  adaptiveConcurrency: z.boolean().default(true),
  /**
   * The wait before a retry (attempt-failure.ts retryDelayMs): decorrelated jitter from baseMs,
   * at most answeringCapMs after a flake (5xx, timeout, dropped connection, unusable body) while
   * some endpoint keeps answering, at most capMs when none has answered lately or after a 429 /
   * 503 without Retry-After. With a Retry-After the endpoint rests until it passes.
   */
  backoff: z
    .strictObject({
      baseMs: z.number().nonnegative().default(50),
      capMs: z.number().nonnegative().default(8000),
      answeringCapMs: z.number().nonnegative().default(1000),
      jitter: z.enum(['decorrelated', 'full', 'none']).default('decorrelated'),
    })
    .prefault({}),
  /** Envoy outlier detection: consecutive failures eject for baseEjectionMs x ejections so far. */
  breaker: z
    .strictObject({
      consecutiveFailures: z.int().min(1).default(3),
      baseEjectionMs: z.number().positive().default(5000),
      maxEjectionMs: z.number().positive().default(60_000),
    })
    .prefault({}),
  /** A second copy of a request that runs past max(minDelayMs, latencyMultiplier x observed p95). */
  hedge: z
    .strictObject({
      enabled: z.boolean().default(true),
      minDelayMs: z.number().nonnegative().default(1000),
      latencyMultiplier: z.number().positive().default(3),
      maxHedgeFraction: z.number().min(0).max(1).default(0.1),
    })
    .prefault({}),
  /** Charged to the tpm limit at admission, corrected by the reply's usage. */
  estimatedTokensPerRequest: z.int().positive().default(2000),
  /**
   * Prefix-aware routing (prefix-affinity.ts): a request goes to the endpoint its longest known
   * leading text was last sent to, so that server's prompt cache is reused, unless that endpoint
   * is out of balance with the others (load - min > balanceAbsolute and load >
   * balanceRelative x min: then least-outstanding). `enabled: false`: least-outstanding only.
   */
  prefixAffinity: z
    .strictObject({
      enabled: z.boolean().default(true),
      blockChars: z.int().min(16).default(1024),
      maxBlocks: z.int().min(1).max(4096).default(32),
      maxEntries: z.int().min(1).default(32_768),
      balanceAbsolute: z.number().nonnegative().default(6),
      balanceRelative: z.number().min(1).default(1.5),
      lookahead: z.int().min(1).default(64),
    })
    .prefault({}),
});
export type TransportConfig = z.output<typeof TransportConfigSchema>;
export type TransportConfigInput = z.input<typeof TransportConfigSchema>;

/** @throws GearError `invalid_input` naming the field. */
export function parseTransportConfig(input: unknown): TransportConfig {
  return parseWith(TransportConfigSchema, input);
}

/** Parses 'URL[,URL...]' plus shared model/key/maxConcurrent into endpoint configs. */
export function endpointsFromUrls(
  urls: string,
  shared: { model?: string; apiKey?: string; maxConcurrent?: number },
): EndpointConfig[] {
  const list = urls
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  if (list.length === 0) throw new GearError('invalid_input', ['urls'], 'no endpoint URL given');
  return list.map((url, i) =>
    parseWith(EndpointConfigSchema, { url, ...definedOnly(shared) }, ['endpoints', i]),
  );
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
