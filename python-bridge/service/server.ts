import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { ServeConfig } from './serve-config.js';
import { ServiceContext } from './service-context.js';
import { RpcEndpoint } from './rpc-endpoint.js';
import { replyText } from './reply-text.js';
import { bearerTokenMatches } from './bearer-token.js';
import { AddressCounter, Connection, ConnectionGuard } from './connection-guard.js';
import type { Logger } from './logger.js';

export interface RunningServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly context: ServiceContext;
  /** Graceful stop: refuse new work, answer what was received, close sockets with 1001. */
  close(): Promise<void>;
}

/** What shutdown reports: every frame received is answered, or counted here as not. */
export interface FrameCounts {
  /** Frames received while their connection could still answer. */
  received: number;
  /** Replies written to their socket (results, errors, -32004). */
  written: number;
  /** Notifications: received, never answered by design. */
  notifications: number;
  /** Frames that arrived after this server sent its close frame (the client's to resend). */
  afterClose: number;
  /** Frames whose connection was gone (or closing) before their answer could be written. */
  peerGone: number;
}

/**
 * The ws wiring: HTTP upgrade with the token check and connection caps, one RpcEndpoint shared by
 * all connections, frames in and replies out under the connection guard's memory bounds, idle and
 * slow-frame timeouts, and a draining shutdown.
 */
export async function startServer(config: ServeConfig, version: string, logger: Logger): Promise<RunningServer> {
  const { limits } = config;
  const context = new ServiceContext(limits, version, logger);
  const endpoint = new RpcEndpoint(context);
  // ws refuses a frame over maxPayloadBytes at its header (close 1009): nothing of it is buffered.
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxPayloadBytes, perMessageDeflate: false });
  const guard = new ConnectionGuard(limits);
  context.gauges = () => ({ bufferedBytes: guard.bufferedBytes, pausedConnections: guard.pausedConnections });
  const addresses = new AddressCounter();
  const counts: FrameCounts = { received: 0, written: 0, notifications: 0, afterClose: 0, peerGone: 0 };
  // Node checks request timeouts every connectionsCheckingInterval (30 s by default).
  const http = createServer({ connectionsCheckingInterval: Math.max(50, Math.min(1000, config.frameTimeoutMs / 4)) }, (req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(context.draining ? 503 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: context.draining ? 'draining' : 'ok' }));
      return;
    }
    res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
    res.end('gear speaks JSON-RPC 2.0 over WebSocket here\n');
  });
  // An HTTP request (the upgrade included) gets as long as a frame to arrive.
  http.headersTimeout = Math.min(config.frameTimeoutMs, 60_000);
  http.requestTimeout = Math.min(config.frameTimeoutMs, 60_000);
  // A socket that sends nothing at all never starts a request: the inactivity timeout drops it
  // (ws clears it on upgrade; upgraded sockets have their own frame and idle timeouts).
  http.setTimeout(Math.min(config.frameTimeoutMs, 60_000));
  http.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const open = addresses.add(address);
    socket.once('close', () => addresses.remove(address));
    // Past twice the per-address cap, a socket is not even read (the cap itself answers 503).
    if (open > 2 * limits.maxConnectionsPerAddress) socket.destroy();
  });

  let nextConnection = 1;
  let nextRequest = 1;
  /** Requests received before shutdown began (sequence <= drainFrom) and not yet answered. */
  let drainFrom = Infinity;
  let oldUnanswered = 0;
  let lastFrameAt = 0;
  let progress: (() => void) | undefined;
  const changed = (): void => progress?.();

  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refusal = refuseUpgrade(req, config, context, addresses);
    if (refusal !== undefined) {
      logger.warn('connection_refused', { remote: req.socket.remoteAddress, status: refusal.status, reason: refusal.reason });
      socket.end(`HTTP/1.1 ${refusal.status} ${refusal.reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    const socket = req.socket as Socket;
    const connection = new Connection(nextConnection++, ws, socket, socket.remoteAddress ?? '', Date.now());
    guard.add(connection);
    context.stats.connections += 1;
    logger.info('connection_open', { connection: connection.id, remote: connection.address });
    // Registered after ws's own listener: by the time it runs, ws has parsed the chunk.
    const countChunk = (chunk: Buffer): void => guard.onChunk(connection, chunk.length, Date.now());
    socket.on('data', countChunk);
    // Without this, a client's keepalive ping (no 'message') would start the frame clock and nothing
    // would stop it: a call waiting on the judge lost its connection after frameTimeoutMs.
    const controlFrame = (): void => guard.onControlFrame(connection, Date.now());
    ws.on('ping', controlFrame);
    ws.on('pong', controlFrame);

    ws.on('message', (data: RawData) => {
      if (connection.closing) {
        counts.afterClose += 1;
        return;
      }
      // ws hands text frames over as one Buffer; only fragmented or ArrayBuffer data needs a copy.
      const buffer = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      const frameBytes = buffer.byteLength;
      const sequence = nextRequest++;
      lastFrameAt = Date.now();
      counts.received += 1;
      connection.unanswered += 1;
      connection.computing += 1;
      guard.onFrame(connection, frameBytes, Date.now());
      const finish = (written: boolean, replyBytes: number): void => {
        connection.unanswered -= 1;
        if (written) counts.written += 1;
        if (sequence <= drainFrom) oldUnanswered -= 1;
        guard.adjust(connection, -(frameBytes + replyBytes), Date.now());
        changed();
      };
      if (!context.draining) oldUnanswered += 1;
      endpoint
        .receiveFrame(buffer.toString('utf8'), frameBytes)
        .then((reply) => {
          connection.computing -= 1;
          if (reply === null) {
            counts.notifications += 1;
            finish(false, 0);
            return;
          }
          if (ws.readyState !== ws.OPEN || connection.closing) {
            counts.peerGone += 1;
            finish(false, 0);
            return;
          }
          const text = replyText(reply, limits.maxReplyBytes);
          const replyBytes = Buffer.byteLength(text, 'utf8');
          guard.adjust(connection, replyBytes, Date.now());
          ws.send(text, (error) => {
            if (error !== undefined && error !== null) counts.peerGone += 1;
            finish(error === undefined || error === null, replyBytes);
          });
        })
        .catch((error: unknown) => {
          logger.error('reply_failed', { connection: connection.id, error: String(error) });
          connection.computing -= 1;
          finish(false, 0);
        });
    });
    ws.on('error', (error: Error & { code?: string }) => {
      // ws has stopped parsing and closes the connection, reading the rest of the stream away until
      // the peer's FIN: those bytes are no frame, so they leave the guard (counted, they would pause
      // the socket at its bound, the FIN would never be read, and the connection would hold its
      // slot until ws's 30 s close timer).
      socket.removeListener('data', countChunk);
      guard.remove(connection);
      // Over maxPayloadBytes ws has already closed with 1009 without reading the frame.
      logger.warn(error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'frame_too_large' : 'connection_error', {
        connection: connection.id,
        error: error.message,
        ...(error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? { maxPayloadBytes: limits.maxPayloadBytes } : {}),
      });
    });
    ws.on('close', (code) => {
      guard.remove(connection);
      context.stats.connections -= 1;
      logger.info('connection_close', { connection: connection.id, code });
      changed();
    });
  });

  // Timeouts: a frame that does not complete in time, and a connection with nothing going on.
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const connection of guard.connections) {
        if (connection.closing) continue;
        if (connection.partialSince !== undefined && now - connection.partialSince > config.frameTimeoutMs) {
          logger.warn('frame_timeout', { connection: connection.id, remote: connection.address, frameTimeoutMs: config.frameTimeoutMs });
          // The peer is mid-frame and cannot answer a close handshake: drop it soon after.
          closeConnection(connection, 1008, 'frame not completed in time', 1000);
        } else if (connection.computing === 0 && now - connection.lastProgress > config.idleTimeoutMs) {
          logger.info('idle_timeout', { connection: connection.id, idleTimeoutMs: config.idleTimeoutMs });
          closeConnection(connection, 1001, 'idle');
        }
      }
    },
    Math.max(50, Math.min(1000, config.frameTimeoutMs / 4, config.idleTimeoutMs / 4)),
  );
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.port, config.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;

  /** Resolves when `done()` holds or after `ms`, re-checking whenever a request finishes. */
  const waitFor = async (done: () => boolean, ms: number): Promise<boolean> => {
    const deadline = Date.now() + ms;
    while (!done() && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        progress = resolve;
        setTimeout(resolve, Math.min(100, Math.max(1, deadline - Date.now()))).unref();
      });
    }
    progress = undefined;
    return done();
  };

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      context.draining = true;
      drainFrom = nextRequest - 1;
      logger.info('shutdown_begin', { unanswered: oldUnanswered, connections: guard.connections.size });
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      // 1. Every request received before the signal: its answer, computed and written...
      if (!(await waitFor(() => oldUnanswered <= 0, config.drainTimeoutMs))) {
        // ...or, past drainTimeoutMs, -32004 from the requests still computing, at their next yield.
        context.abandoned = true;
        logger.warn('shutdown_abandoning', { unanswered: oldUnanswered });
        await waitFor(() => oldUnanswered <= 0, 2000);
      }
      // 2. Clients that have not seen the signal yet keep sending: their frames get -32004 until the
      // connections are quiet for 100 ms (1 s at most; gear_bridge stops at its first -32004).
      const graceEnd = Date.now() + 1000;
      while (Date.now() < graceEnd && Date.now() - lastFrameAt < 100) await new Promise((resolve) => setTimeout(resolve, 20));
      // 3. Stop reading; frames already read get -32004; then the close frame goes out after them.
      for (const connection of guard.connections) {
        connection.frozen = true;
        connection.ws.pause();
      }
      const all = [...guard.connections];
      await waitFor(() => all.every((c) => c.unanswered === 0 || c.ws.readyState !== c.ws.OPEN), 2000);
      for (const connection of all) closeConnection(connection, 1001, 'server shutting down');
      const deadline = setTimeout(() => {
        for (const ws of wss.clients) ws.terminate();
      }, 2000);
      deadline.unref();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await stopped;
      clearTimeout(deadline);
      clearInterval(sweep);
      const unanswered = counts.received - counts.written - counts.notifications - counts.peerGone;
      logger.info('shutdown_done', { requests: context.stats.requests, frames: { ...counts, unanswered } });
    })();
    return closing;
  };

  return { url: `ws://${host}:${port}/`, host: config.host, port, context, close };
}

/** Sends a close frame (after every reply already queued) and drops the socket if the peer never answers it. */
function closeConnection(connection: Connection, code: number, reason: string, graceMs = 5000): void {
  connection.closing = true;
  connection.frozen = true;
  connection.ws.close(code, reason);
  // Read again (frames are now only counted, see afterClose) so the peer's close frame, queued
  // behind requests it was still sending, can arrive.
  connection.ws.resume();
  setTimeout(() => connection.ws.terminate(), graceMs).unref();
}

function refuseUpgrade(req: IncomingMessage, config: ServeConfig, context: ServiceContext, addresses: AddressCounter): { status: number; reason: string } | undefined {
  if (context.draining) return { status: 503, reason: 'Service Unavailable' };
  if (config.token !== undefined && !bearerTokenMatches(req.headers.authorization, config.token)) {
    return { status: 401, reason: 'Unauthorized' };
  }
  if (context.stats.connections >= config.limits.maxConnections) return { status: 503, reason: 'Service Unavailable' };
  // The count includes this socket.
  if (addresses.of(req.socket.remoteAddress ?? '') > config.limits.maxConnectionsPerAddress) return { status: 503, reason: 'Service Unavailable' };
  return undefined;
}
