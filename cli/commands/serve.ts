import { GearError } from '../../core/index.js';
import { createLogger, parseServeConfig, serveConfigInput, startServer, type LogLevel, type ServeFlags as ServiceFlags } from '../../python-bridge/service/index.js';
import { JudgeRuntime } from '../../judge/judge-runtime.js';
import { judgeConfigFromFlags, type JudgeFlagValues } from '../options/judge-flags.js';

/** The service's own flags plus the judge flags `gear judge` shares. */
export type ServeFlags = ServiceFlags & JudgeFlagValues;

export interface ServeIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly version: string;
}

/**
 * `gear serve`: flags (or GEAR_BIND / GEAR_PORT / GEAR_TOKEN) -> a running service. Prints one
 * `listening` line on stdout, logs JSON lines on stderr, and resolves with the exit code after a
 * graceful shutdown on SIGTERM or SIGINT.
 */
export async function runServe(flags: ServeFlags, io: ServeIo): Promise<number> {
  const config = parseServeConfig(serveConfigInput(flags, io.env));
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
        // The open sockets would keep the process alive: a second signal leaves at once.
        logger.warn('shutdown_forced', { signal });
        process.exit(1);
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
