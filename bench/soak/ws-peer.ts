import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';

export interface Reply {
  readonly jsonrpc: '2.0';
  readonly id: unknown;
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

/**
 * A JSON-RPC peer over the ws library: requests matched by id, every frame counted, and the raw
 * text of each reply kept for id checks.
 */
export class WsPeer {
  private nextId = 1;
  private readonly waiting = new Map<string, (reply: Reply) => void>();
  readonly raw: string[] = [];
  replies = 0;
  /** Characters of the longest reply so far. */
  largestReply = 0;
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: WebSocket.RawData) => {
      const text = data.toString();
      this.replies += 1;
      this.largestReply = Math.max(this.largestReply, Buffer.byteLength(text, 'utf8'));
      this.raw.push(text.length > 4096 ? text.slice(0, 4096) : text);
      if (this.raw.length > 64) this.raw.shift();
      let reply: Reply | Reply[];
      try {
        reply = JSON.parse(text) as Reply | Reply[];
      } catch {
        return;
      }
      for (const one of Array.isArray(reply) ? reply : [reply]) {
        const waiter = this.waiting.get(JSON.stringify(one.id));
        if (waiter !== undefined) {
          this.waiting.delete(JSON.stringify(one.id));
          waiter(one);
        }
      }
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on('error', () => undefined);
  }

  static open(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<WsPeer> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers, maxPayload: 2 ** 31 - 1, perMessageDeflate: false, ...(localAddress === undefined ? {} : { localAddress }) });
      ws.once('open', () => resolve(new WsPeer(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  request(method: string, params?: unknown, id: number | string = this.nextId++): Promise<Reply> {
    return new Promise((resolve) => {
      this.waiting.set(JSON.stringify(id), resolve);
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    });
  }

  /** Sends text as is; resolves with the reply carrying `id` (compared as JSON). */
  sendRaw(text: string | Buffer, id?: unknown): Promise<Reply> | undefined {
    const wait = id === undefined ? undefined : new Promise<Reply>((resolve) => this.waiting.set(JSON.stringify(id), resolve));
    this.ws.send(text, { binary: false });
    return wait;
  }

  close(): Promise<{ code: number; reason: string }> {
    this.ws.close();
    return this.closed;
  }
}

/**
 * A WebSocket client written on a bare TCP socket, for what a library will not do: half frames,
 * frames that announce more than they send, and never reading replies.
 */
export class RawSocketPeer {
  private constructor(readonly socket: Socket, readonly status: number) {}

  static async open(url: string, options: { localAddress?: string; headers?: Record<string, string> } = {}): Promise<RawSocketPeer> {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port), ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }) });
    socket.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const key = randomBytes(16).toString('base64');
    const extra = Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.write(
      `GET / HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`,
    );
    const head = await new Promise<string>((resolve) => {
      let text = '';
      const onData = (chunk: Buffer): void => {
        text += chunk.toString('latin1');
        const end = text.indexOf('\r\n\r\n');
        if (end >= 0) {
          socket.off('data', onData);
          socket.pause();
          resolve(text.slice(0, end));
        }
      };
      socket.on('data', onData);
      socket.once('close', () => resolve(text));
    });
    const status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0);
    return new RawSocketPeer(socket, status);
  }

  /** A masked text frame header announcing `length` payload bytes. */
  static header(length: number, opcode = 1): Buffer {
    const size = length < 126 ? 2 : length < 65536 ? 4 : 10;
    const header = Buffer.alloc(size + 4);
    header[0] = 0x80 | opcode;
    if (size === 2) header[1] = 0x80 | length;
    else if (size === 4) {
      header[1] = 0x80 | 126;
      header.writeUInt16BE(length, 2);
    } else {
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(length), 2);
    }
    // Mask key 0: the payload goes out as is.
    return header;
  }

  /** One complete masked text frame. */
  static frame(text: string): Buffer {
    const payload = Buffer.from(text, 'utf8');
    return Buffer.concat([RawSocketPeer.header(payload.length), payload]);
  }

  write(data: Buffer): boolean {
    return this.socket.write(data);
  }

  /** Resolves when the server closes or resets the TCP connection. */
  closedByServer(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) resolve();
      this.socket.resume();
      this.socket.once('close', () => resolve());
    });
  }

  destroy(): void {
    this.socket.destroy();
  }
}
