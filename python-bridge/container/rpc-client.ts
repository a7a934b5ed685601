import WebSocket from 'ws';
import { JSONRPCClient, JSONRPCErrorException, type JSONRPCParams } from 'json-rpc-2.0';

/** A JSON-RPC error the service answered (as opposed to a transport failure). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(`${code}: ${message}`);
  }
}

/**
 * A JSON-RPC 2.0 client over one `ws` WebSocket (json-rpc-2.0's JSONRPCClient) that reconnects:
 * every gear method is idempotent (python-bridge/service/README.md), so a call whose socket is gone, or goes away
 * before the answer, is sent again on a new connection until `retryForMs` has passed. Errors the
 * service answers are thrown as RpcError and never retried.
 */
export class ReconnectingRpcClient {
  /** How many times a WebSocket was opened (1 after the first call, 2 after one reconnect, ...). */
  connects = 0;
  private socket: WebSocket | undefined;
  private readonly rpc: JSONRPCClient;

  constructor(
    readonly url: string,
    private readonly retryForMs = 30_000,
  ) {
    this.rpc = new JSONRPCClient((request: unknown) => {
      const socket = this.socket;
      if (socket === undefined || socket.readyState !== WebSocket.OPEN) throw new Error('not connected');
      socket.send(JSON.stringify(request));
    });
  }

  async call<T = unknown>(method: string, params?: JSONRPCParams): Promise<T> {
    const deadline = Date.now() + this.retryForMs;
    let lastError: unknown;
    for (;;) {
      try {
        if (this.socket?.readyState !== WebSocket.OPEN) await this.connect();
        return (await this.rpc.timeout(20_000).request(method, params)) as T;
      } catch (error) {
        // json-rpc-2.0 reports a closed socket (rejectAllPendingRequests) and a timeout as code 0.
        if (error instanceof JSONRPCErrorException && error.code !== 0 && error.code !== -32004) {
          throw new RpcError(error.code, error.message, error.data);
        }
        // Transport failure, timeout, or -32004 (the server is draining): reconnect and resend.
        lastError = error;
        this.drop();
        if (Date.now() >= deadline) {
          throw new Error(`${method}: no answer from ${this.url} within ${this.retryForMs} ms: ${String(lastError)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  close(): void {
    this.drop();
  }

  private drop(): void {
    const socket = this.socket;
    this.socket = undefined;
    if (socket !== undefined) {
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.terminate();
    }
  }

  private connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, { handshakeTimeout: 5_000 });
      socket.once('open', () => {
        this.connects += 1;
        this.socket = socket;
        socket.off('error', reject);
        socket.on('error', () => socket.terminate());
        resolve();
      });
      socket.once('error', reject);
      socket.on('message', (data: WebSocket.RawData) => {
        const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
        this.rpc.receive(JSON.parse(text));
      });
      socket.on('close', () => {
        if (this.socket === socket) this.socket = undefined;
        this.rpc.rejectAllPendingRequests(`connection to ${this.url} closed`);
      });
    });
  }
}
