import WebSocket from 'ws';

export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export interface RpcResponseObject {
  readonly jsonrpc: '2.0';
  readonly id: number | string | null;
  readonly result?: unknown;
  readonly error?: RpcErrorObject;
}

/**
 * A plain WebSocket JSON-RPC peer for tests: `call` sends a well-formed request and awaits the
 * response with its id; `sendRaw` sends any text (malformed on purpose) and awaits the next reply.
 */
export class RpcTestClient {
  private nextId = 1;
  private readonly pending = new Map<number | string, (response: RpcResponseObject) => void>();
  private readonly unmatched: ((reply: unknown) => void)[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: WebSocket.RawData) => {
      const reply = JSON.parse(data.toString()) as RpcResponseObject | RpcResponseObject[];
      const id = Array.isArray(reply) ? undefined : reply.id;
      const waiter = id === undefined || id === null ? undefined : this.pending.get(id);
      if (waiter !== undefined && !Array.isArray(reply)) {
        this.pending.delete(reply.id as number | string);
        waiter(reply);
      } else {
        this.unmatched.shift()?.(reply);
      }
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<RpcTestClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers, maxPayload: 1 << 30 });
      ws.once('open', () => resolve(new RpcTestClient(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  /** Sends a request and resolves with the whole response object (result or error). */
  request(method: string, params?: unknown): Promise<RpcResponseObject> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    });
  }

  /** The result of a call that must succeed. */
  async call<T = unknown>(method: string, params?: unknown): Promise<T> {
    const response = await this.request(method, params);
    if (response.error !== undefined) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
    return response.result as T;
  }

  /** Sends raw text; resolves with the reply that carries `expectId`, or with the next id-less reply. */
  sendRaw(text: string, expectId?: number | string): Promise<unknown> {
    return new Promise((resolve) => {
      if (expectId === undefined) this.unmatched.push(resolve);
      else this.pending.set(expectId, resolve);
      this.ws.send(text);
    });
  }

  close(): Promise<{ code: number; reason: string }> {
    this.ws.close();
    return this.closed;
  }
}
