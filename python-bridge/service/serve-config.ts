import { isIP } from 'node:net';
import { z } from 'zod';
import { GearError, parseWith } from '../../core/index.js';
import { ServiceLimitsSchema } from './limits.js';

export const DEFAULT_PORT = 8765;

export const ServeConfigSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  /** 0 picks a free port (the listening line says which). */
  port: z.number().int().min(0).max(65535).default(DEFAULT_PORT),
  /** Shared secret clients send as `Authorization: Bearer <token>`; required off loopback. */
  token: z
    .string()
    .min(16, 'must be at least 16 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces (it travels in an HTTP header)')
    .optional(),
  limits: ServiceLimitsSchema.default(ServiceLimitsSchema.parse({})),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /**
   * How long shutdown waits for the requests already received; those still computing then are
   * answered -32004, and every answer is flushed before the socket closes.
   */
  drainTimeoutMs: z.number().int().min(0).default(10_000),
  /** A connection with no request, no reply and nothing computing for this long is closed (1001). */
  idleTimeoutMs: z.number().int().min(100).default(300_000),
  /** A frame (or the HTTP upgrade) not complete this long after its first byte closes its connection (1008). */
  frameTimeoutMs: z.number().int().min(100).default(30_000),
});
export type ServeConfig = z.output<typeof ServeConfigSchema>;
export type ServeConfigInput = z.input<typeof ServeConfigSchema>;

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '::ffff:127.0.0.1';
}

/** @throws GearError naming the field; binding off loopback without a token is refused. */
export function parseServeConfig(input: unknown): ServeConfig {
  const config = parseWith(ServeConfigSchema, input);
  if (!isLoopback(config.host) && config.token === undefined) {
    throw new GearError('usage', ['token'], `binding ${config.host} (not loopback) requires a token (--token or GEAR_TOKEN)`);
  }
  return config;
}
