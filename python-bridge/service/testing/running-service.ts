import { parseServeConfig, type ServeConfigInput } from '../serve-config.js';
import { startServer, type RunningServer } from '../server.js';
import { createLogger, silentLogger, type Logger } from '../logger.js';

/** A real service on a free loopback port (port 0), as tests use it. */
export function startTestService(config: ServeConfigInput = {}, logger: Logger = silentLogger): Promise<RunningServer> {
  return startServer(parseServeConfig({ port: 0, ...config }), 'test', logger);
}

/** A logger that keeps its lines, to assert on structured logs. */
export function memoryLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: createLogger({ write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) }, 'debug') };
}
