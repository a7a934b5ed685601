import { GearError } from '../../core/index.js';
import { createLogger, parseServeConfig, startServer, type LogLevel } from '../../python-bridge/service/index.js';
import { JudgeRuntime } from '../../judge/judge-runtime.js';
import { judgeConfigFromFlags, type JudgeFlagValues } from '../options/judge-flags.js';

export interface ServeFlags extends JudgeFlagValues {
  readonly host?: string | undefined;
  readonly port?: string | undefined;
  readonly token?: string | undefined;
  readonly 'max-payload-bytes'?: string | undefined;
  readonly 'max-batch-items'?: string | undefined;
  readonly 'max-rubrics'?: string | undefined;
  readonly 'log-level'?: string | undefined;
}

export interface ServeIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly version: string;
}

function integer(flag: string, text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value)) throw new GearError('usage', [flag], `must be an integer, got "${text}"`);
  return value;
}

/**
 * `gear serve`: flags (or GEAR_BIND / GEAR_PORT / GEAR_TOKEN) -> a running service. Prints one
 * `listening` line on stdout, logs JSON lines on stderr, and resolves with the exit code after a
 * graceful shutdown on SIGTERM or SIGINT.
 */
export async function runServe(flags: ServeFlags, io: ServeIo): Promise<number> {
  const limits = Object.fromEntries(
    Object.entries({
      maxPayloadBytes: integer('--max-payload-bytes', flags['max-payload-bytes']),
      maxBatchItems: integer('--max-batch-items', flags['max-batch-items']),
      maxRubrics: integer('--max-rubrics', flags['max-rubrics']),
    }).filter(([, v]) => v !== undefined),
  );
  const token = flags.token ?? (io.env['GEAR_TOKEN'] || undefined);
  const config = parseServeConfig({
    host: flags.host ?? (io.env['GEAR_BIND'] || undefined),
    port: integer('--port', flags.port ?? io.env['GEAR_PORT']),
    ...(token === undefined ? {} : { token }),
    limits,
    logLevel: flags['log-level'] ?? (io.env['GEAR_LOG_LEVEL'] || undefined),
  });
  const judgeConfig = judgeConfigFromFlags(flags, io.env);
  const logger = createLogger(io.stderr, config.logLevel as LogLevel);
  let server;
  try {
    server = await startServer(config, io.version, logger);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE') throw new GearError('usage', ['--port'], `${config.host}:${config.port} is already in use (another gear serve?); pick another --port, or 0 for a free one`);
    if (code === 'EADDRNOTAVAIL' || code === 'EACCES') throw new GearError('usage', ['--host'], `cannot listen on ${config.host}:${config.port} (${String(code)})`);
    throw error;
  }
  if (judgeConfig !== undefined) server.context.judge = JudgeRuntime.create(judgeConfig);
  io.stdout.write(`${JSON.stringify({ event: 'listening', url: server.url, pid: process.pid })}\n`);
  logger.info('listening', {
    url: server.url,
    auth: config.token === undefined ? 'none' : 'bearer-token',
    limits: config.limits,
    judge: judgeConfig === undefined ? null : { endpoints: judgeConfig.transport.endpoints.map((e) => e.url), cache: judgeConfig.cache?.file ?? 'memory' },
  });
  const running = server;
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) {
        logger.warn('shutdown_forced', { signal });
        resolve(1);
        return;
      }
      stopping = true;
      logger.info('signal', { signal });
      running
        .close()
        .then(() => running.context.closeJudges())
        .then(
        () => resolve(0),
        (error: unknown) => {
          logger.error('shutdown_failed', { error: String(error) });
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
