import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

/**
 * One connection's account: what it has sent that is not answered yet, what is answered and not
 * yet written to its socket, and when it last made progress. The guard stops reading from it
 * (TCP backpressure reaches the client) instead of buffering without bound.
 */
export class Connection {
  /** Bytes of frames received and not answered, plus replies queued and not yet written. */
  backlogBytes = 0;
  /** Bytes of a frame read so far but not complete (approximate: counted per TCP chunk). */
  partialBytes = 0;
  /** Requests received and not yet answered (computing, or answered and waiting to be written). */
  unanswered = 0;
  /** Requests still computing. */
  computing = 0;
  /** A frame's first byte arrived at this time and the frame is not complete yet. */
  partialSince: number | undefined;
  /** Last complete frame received or reply written. */
  lastProgress: number;
  /** Paused by the guard (not by ws itself). */
  paused = false;
  /** A frame completed during the TCP chunk being read. */
  completedInChunk = false;
  /** A close frame went out: frames still arriving can no longer be answered. */
  closing = false;
  /** Not to be read from again (shutdown, or closing): the guard never resumes it. */
  frozen = false;

  constructor(
    readonly id: number,
    readonly ws: WebSocket,
    readonly socket: Socket,
    readonly address: string,
    now: number,
  ) {
    this.lastProgress = now;
  }
}

export interface GuardLimits {
  readonly maxConnectionBacklogBytes: number;
  readonly maxBufferedBytes: number;
}

/**
 * Memory bounds over all connections: a connection whose backlog passes its limit, or that holds
 * more than its share while the total passes the global limit, is not read from until its
 * replies drain.
 * A paused connection's frame clock is stopped, so waiting on the server never counts as a slow frame.
 */
export class ConnectionGuard {
  readonly connections = new Set<Connection>();
  private readonly paused = new Set<Connection>();
  private totalBytes = 0;

  constructor(private readonly limits: GuardLimits) {}

  get bufferedBytes(): number {
    return this.totalBytes;
  }

  get pausedConnections(): number {
    return this.paused.size;
  }

  add(connection: Connection): void {
    this.connections.add(connection);
  }

  remove(connection: Connection): void {
    if (!this.connections.delete(connection)) return;
    this.paused.delete(connection);
    this.totalBytes -= connection.backlogBytes + connection.partialBytes;
    this.resumeWhatFits();
  }

  /** Raw bytes read from the socket (called after ws has parsed the chunk). */
  onChunk(connection: Connection, bytes: number, now: number): void {
    if (connection.completedInChunk) {
      // The chunk ended one frame and may have begun another: start the clock only on the next chunk.
      connection.completedInChunk = false;
      return;
    }
    connection.partialSince ??= now;
    connection.partialBytes += bytes;
    this.totalBytes += bytes;
    this.check(connection);
  }

  /** A complete frame of `bytes` arrived: it is now backlog until answered and written. */
  onFrame(connection: Connection, bytes: number, now: number): void {
    this.totalBytes += bytes - connection.partialBytes;
    connection.partialBytes = 0;
    connection.partialSince = undefined;
    connection.completedInChunk = true;
    connection.lastProgress = now;
    connection.backlogBytes += bytes;
    this.check(connection);
  }

  /** A complete control frame (a client's keepalive ping, or a pong): its bytes are no pending frame. */
  onControlFrame(connection: Connection, now: number): void {
    this.totalBytes -= connection.partialBytes;
    connection.partialBytes = 0;
    connection.partialSince = undefined;
    connection.completedInChunk = true;
    connection.lastProgress = now;
  }

  /** Bytes joined (a reply queued) or left (a frame answered, a reply written) the backlog. */
  adjust(connection: Connection, delta: number, now: number): void {
    connection.backlogBytes += delta;
    if (this.connections.has(connection)) this.totalBytes += delta;
    if (delta < 0) {
      connection.lastProgress = now;
      this.resumeWhatFits();
    } else {
      this.check(connection);
    }
  }

  /**
   * Over its own bound, or, while the total is over the global bound, holding more than its share
   * of it: so a client that never reads cannot starve the others, and the total stays under
   * twice maxBufferedBytes.
   */
  private over(connection: Connection): boolean {
    const held = connection.backlogBytes + connection.partialBytes;
    if (held > this.limits.maxConnectionBacklogBytes) return true;
    return this.totalBytes > this.limits.maxBufferedBytes && held > this.limits.maxBufferedBytes / Math.max(1, this.connections.size);
  }

  private check(connection: Connection): void {
    if (connection.paused || !this.over(connection)) return;
    connection.paused = true;
    this.paused.add(connection);
    connection.partialSince = undefined;
    connection.ws.pause();
  }

  private resumeWhatFits(): void {
    for (const connection of this.paused) {
      if (connection.frozen) {
        this.paused.delete(connection);
        continue;
      }
      if (this.over(connection)) continue;
      this.paused.delete(connection);
      connection.paused = false;
      if (connection.partialBytes > 0) connection.partialSince = Date.now();
      connection.ws.resume();
    }
  }
}

/** Open TCP connections per remote address (upgraded or not). */
export class AddressCounter {
  private readonly counts = new Map<string, number>();

  add(address: string): number {
    const count = (this.counts.get(address) ?? 0) + 1;
    this.counts.set(address, count);
    return count;
  }

  remove(address: string): void {
    const count = (this.counts.get(address) ?? 1) - 1;
    if (count <= 0) this.counts.delete(address);
    else this.counts.set(address, count);
  }

  of(address: string): number {
    return this.counts.get(address) ?? 0;
  }
}
