/** Structured logs: one JSON object per line (time, level, event, fields) on a writable stream. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}

export interface LineSink {
  write(line: string): unknown;
}

export function createLogger(sink: LineSink, level: LogLevel = 'info'): Logger {
  const log = (at: LogLevel) => (event: string, fields: Record<string, unknown> = {}) => {
    if (RANK[at] < RANK[level]) return;
    sink.write(`${JSON.stringify({ time: new Date().toISOString(), level: at, event, ...fields })}\n`);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** For embedding the service where logs are not wanted (tests that assert on stdout). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
