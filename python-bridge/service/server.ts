import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { timingSafeEqual } from 'node:crypto';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { ServeConfig } from './serve-config.js';
import { ServiceContext } from './service-context.js';
import { RpcEndpoint } from './rpc-endpoint.js';
import type { Logger } from './logger.js';

export interface RunningServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly context: ServiceContext;
  /** Graceful stop: refuse new work, answer what was received, close sockets with 1001. */
  close(): Promise<void>;
}

/**
 * The ws wiring, and nothing else: HTTP upgrade with the token check, one RpcEndpoint shared by
 * all connections, frames in and replies out, and a draining shutdown.
 */
export async function startServer(config: ServeConfig, version: string, logger: Logger): Promise<RunningServer> {
  const context = new ServiceContext(config.limits, version, logger);
  const endpoint = new RpcEndpoint(context);
  const hardCap = config.limits.maxPayloadBytes * config.limits.hardFrameFactor;
  const wss = new WebSocketServer({ noServer: true, maxPayload: hardCap, perMessageDeflate: false });
  const http = createServer((req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(context.draining ? 503 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: context.draining ? 'draining' : 'ok' }));
      return;
    }
    res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
    res.end('gear speaks JSON-RPC 2.0 over WebSocket here\n');
  });
  let inFlight = 0;
  let idle: (() => void) | undefined;
  let nextConnection = 1;

  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refusal = refuseUpgrade(req, config, context);
    if (refusal !== undefined) {
      logger.warn('connection_refused', { remote: req.socket.remoteAddress, status: refusal.status, reason: refusal.reason });
      socket.end(`HTTP/1.1 ${refusal.status} ${refusal.reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    const connection = nextConnection++;
    context.stats.connections += 1;
    logger.info('connection_open', { connection, remote: req.socket.remoteAddress });
    ws.on('message', (data: RawData) => {
      // ws hands text frames over as one Buffer; only fragmented or ArrayBuffer data needs a copy.
      const buffer = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      inFlight += 1;
      endpoint
        .receiveFrame(buffer.toString('utf8'), buffer.byteLength)
        .then((reply) => {
          if (reply !== null && ws.readyState === ws.OPEN) ws.send(JSON.stringify(reply));
        })
        .catch((error: unknown) => logger.error('reply_failed', { connection, error: String(error) }))
        .finally(() => {
          inFlight -= 1;
          if (inFlight === 0) idle?.();
        });
    });
    ws.on('error', (error) => logger.warn('connection_error', { connection, error: error.message }));
    ws.on('close', (code) => {
      context.stats.connections -= 1;
      logger.info('connection_close', { connection, code });
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.port, config.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      context.draining = true;
      logger.info('shutdown_begin', { inFlight });
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          idle = resolve;
          setTimeout(resolve, config.drainTimeoutMs).unref();
        });
      }
      for (const ws of wss.clients) ws.close(1001, 'server shutting down');
      const deadline = setTimeout(() => {
        for (const ws of wss.clients) ws.terminate();
      }, 2000);
      deadline.unref();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await stopped;
      clearTimeout(deadline);
      logger.info('shutdown_done', { requests: context.stats.requests });
    })();
    return closing;
  };

  return { url: `ws://${host}:${port}/`, host: config.host, port, context, close };
}

function refuseUpgrade(req: IncomingMessage, config: ServeConfig, context: ServiceContext): { status: number; reason: string } | undefined {
  if (context.draining) return { status: 503, reason: 'Service Unavailable' };
  if (config.token !== undefined && !tokenMatches(req.headers.authorization, config.token)) {
    return { status: 401, reason: 'Unauthorized' };
  }
  if (context.stats.connections >= config.limits.maxConnections) return { status: 503, reason: 'Service Unavailable' };
  return undefined;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header ?? '', 'utf8');
  const expected = Buffer.from(`Bearer ${token}`, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
