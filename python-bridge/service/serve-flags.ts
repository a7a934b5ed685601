import { GearError } from '../../core/index.js';
import type { ServeConfigInput } from './serve-config.js';
import type { ServiceLimitsInput } from './limits.js';

/** `gear serve --flag N` -> the service limit it sets (defaults and meaning in limits.ts and the README). */
export const LIMIT_FLAGS = {
  'max-payload-bytes': 'maxPayloadBytes',
  'max-reply-bytes': 'maxReplyBytes',
  'max-batch-items': 'maxBatchItems',
  'max-criteria': 'maxCriteria',
  'max-edges': 'maxEdges',
  'max-exact-cost': 'maxExactCost',
  'max-rubrics': 'maxRubrics',
  'max-rubric-cache-bytes': 'maxRubricCacheBytes',
  'max-connections': 'maxConnections',
  'max-connections-per-address': 'maxConnectionsPerAddress',
  'max-connection-backlog-bytes': 'maxConnectionBacklogBytes',
  'max-buffered-bytes': 'maxBufferedBytes',
} as const satisfies Record<string, keyof ServiceLimitsInput>;

/** `gear serve --flag MS` -> the timeout it sets. */
export const TIME_FLAGS = {
  'idle-timeout-ms': 'idleTimeoutMs',
  'frame-timeout-ms': 'frameTimeoutMs',
  'drain-timeout-ms': 'drainTimeoutMs',
} as const satisfies Record<string, keyof ServeConfigInput>;

/** Every flag of `gear serve`, as node:util parseArgs options. */
export const SERVE_FLAG_OPTIONS = Object.fromEntries(
  ['host', 'port', 'token', 'log-level', ...Object.keys(LIMIT_FLAGS), ...Object.keys(TIME_FLAGS)].map((flag) => [flag, { type: 'string' as const }]),
) as Record<'host' | 'port' | 'token' | 'log-level' | keyof typeof LIMIT_FLAGS | keyof typeof TIME_FLAGS, { type: 'string' }>;

export type ServeFlags = { readonly [K in keyof typeof SERVE_FLAG_OPTIONS]?: string | undefined };

/** The usage lines of `gear serve`'s flags, wrapped under `gear serve `. */
export const SERVE_FLAGS_USAGE = (() => {
  const words = [
    '[--host 127.0.0.1]',
    '[--port 8765]',
    '[--token T]',
    '[--log-level debug|info|warn|error]',
    ...Object.keys(LIMIT_FLAGS).map((f) => `[--${f} N]`),
    ...Object.keys(TIME_FLAGS).map((f) => `[--${f} MS]`),
  ];
  const lines: string[] = [''];
  for (const word of words) {
    if ((lines[lines.length - 1] as string).length + word.length > 86) lines.push('');
    lines[lines.length - 1] += `${(lines[lines.length - 1] as string) === '' ? '' : ' '}${word}`;
  }
  return lines.join('\n             ');
})();

function integer(flag: string, text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value)) throw new GearError('usage', [flag], `must be an integer, got "${text}"`);
  return value;
}

/** Flags (or GEAR_BIND / GEAR_PORT / GEAR_TOKEN / GEAR_LOG_LEVEL) -> the config's input, unchecked. */
export function serveConfigInput(flags: ServeFlags, env: NodeJS.ProcessEnv): ServeConfigInput {
  const limits: Record<string, number> = {};
  for (const [flag, key] of Object.entries(LIMIT_FLAGS)) {
    const value = integer(`--${flag}`, flags[flag as keyof typeof LIMIT_FLAGS]);
    if (value !== undefined) limits[key] = value;
  }
  const times: Record<string, number> = {};
  for (const [flag, key] of Object.entries(TIME_FLAGS)) {
    const value = integer(`--${flag}`, flags[flag as keyof typeof TIME_FLAGS]);
    if (value !== undefined) times[key] = value;
  }
  const token = flags.token ?? (env['GEAR_TOKEN'] || undefined);
  return {
    host: flags.host ?? (env['GEAR_BIND'] || undefined),
    port: integer('--port', flags.port ?? env['GEAR_PORT']),
    ...(token === undefined ? {} : { token }),
    limits,
    ...times,
    logLevel: (flags['log-level'] ?? (env['GEAR_LOG_LEVEL'] || undefined)) as ServeConfigInput['logLevel'],
  };
}
