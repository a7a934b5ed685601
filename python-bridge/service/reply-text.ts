import { createJSONRPCErrorResponse, type JSONRPCID, type JSONRPCResponse } from 'json-rpc-2.0';
import { RpcErrorCode } from './rpc-errors.js';

/**
 * A result already written as JSON text. Batch methods write each item as they go (between
 * yields to the event loop), so the reply is never one long JSON.stringify, and they can stop
 * as soon as the text passes maxReplyBytes.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** Builds a JSON array of items written one by one, refusing to grow past `maxBytes`. */
export class JsonArrayWriter {
  private readonly parts: string[] = [];
  private chars = 2;

  constructor(
    private readonly maxBytes: number,
    private readonly onOverflow: (approxBytes: number) => Error,
  ) {}

  push(item: unknown): void {
    const text = JSON.stringify(item);
    // UTF-16 units undercount UTF-8 bytes of non-ASCII text; the final check counts exactly.
    this.chars += text.length + 1;
    if (this.chars > this.maxBytes) throw this.onOverflow(this.chars);
    this.parts.push(text);
  }

  get text(): string {
    return `[${this.parts.join(',')}]`;
  }
}

export type Reply = JSONRPCResponse | JSONRPCResponse[];

function writeOne(response: JSONRPCResponse): string {
  if ('result' in response && response.result instanceof JsonText) {
    return `{"jsonrpc":"2.0","id":${JSON.stringify(response.id)},"result":${response.result.text}}`;
  }
  return JSON.stringify(response);
}

/**
 * The reply's text, at most `maxBytes` UTF-8 bytes. A reply that cannot be written or is too
 * large becomes -32002 (maxReplyBytes) for its id: the request was fine, its answer is too big.
 */
export function replyText(reply: Reply, maxBytes: number): string {
  const one = (response: JSONRPCResponse): string => {
    let text: string | undefined;
    try {
      text = writeOne(response);
    } catch {
      // RangeError: a string longer than V8 allows; JSON.stringify of the results cannot fail otherwise.
    }
    const bytes = text === undefined ? Infinity : Buffer.byteLength(text, 'utf8');
    if (text !== undefined && bytes <= maxBytes) return text;
    return JSON.stringify(tooLarge(response.id, maxBytes, bytes));
  };
  if (!Array.isArray(reply)) return one(reply);
  const texts = reply.map(one);
  const total = texts.reduce((sum, t) => sum + Buffer.byteLength(t, 'utf8') + 1, 1);
  if (total <= maxBytes) return `[${texts.join(',')}]`;
  // Keep the batch shape: every request of it learns that the answers together were too large.
  return JSON.stringify(reply.map((r) => tooLarge(r.id, maxBytes, total)));
}

export function tooLarge(id: JSONRPCID, max: number, actual: number): JSONRPCResponse {
  return createJSONRPCErrorResponse(
    id,
    RpcErrorCode.LimitExceeded,
    `maxReplyBytes exceeded: the answer would take ${Number.isFinite(actual) ? actual : 'more than 2^29'} bytes > ${max}; split the request`,
    { limit: 'maxReplyBytes', max, actual: Number.isFinite(actual) ? actual : null },
  );
}
