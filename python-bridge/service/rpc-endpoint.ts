import {
  JSONRPCServer,
  createJSONRPCErrorResponse,
  isJSONRPCID,
  type JSONRPCID,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from 'json-rpc-2.0';
import { GearError, parseWith } from '../../core/index.js';
import { METHODS, METHOD_NAMES } from './methods.js';
import { RpcErrorCode, createErrorMapper } from './rpc-errors.js';
import { ServiceError, limitExceeded } from './service-error.js';
import type { ServiceContext } from './service-context.js';

const KNOWN = new Set(METHOD_NAMES);

/** The answer to one frame: a response, a batch of responses, or nothing (only notifications). */
export type RpcReply = JSONRPCResponse | JSONRPCResponse[] | null;

/**
 * JSON-RPC without a transport (json-rpc-2.0 `receive`): a frame's text in, the reply out.
 * Checks the envelope first (size, JSON, batch length), then dispatches through the method table.
 */
export class RpcEndpoint {
  private readonly server: JSONRPCServer<ServiceContext>;
  private readonly mapError: ReturnType<typeof createErrorMapper>;

  constructor(private readonly context: ServiceContext) {
    // Errors reach the client through mapError (internal ones are logged there, with an incident id).
    const server = new JSONRPCServer<ServiceContext>({ errorListener: () => undefined });
    const mapError = createErrorMapper(context.logger);
    server.mapErrorToJSONRPCErrorResponse = mapError;
    server.handleMethodNotFound = (request) =>
      Promise.resolve(
        createJSONRPCErrorResponse(request.id ?? null, RpcErrorCode.MethodNotFound, `Method not found: ${String(request.method)}`, {
          method: request.method,
        }),
      );
    for (const method of METHODS) {
      server.addMethod(method.name, (params: unknown, ctx) => {
        const positional = Array.isArray(params) ? params.length > 0 : params !== undefined && (typeof params !== 'object' || params === null);
        if (positional) {
          throw new GearError('invalid_input', ['params'], 'must be an object of named params');
        }
        return method.handle(parseWith(method.params, params), ctx);
      });
    }
    server.applyMiddleware(async (next, request, ctx) => {
      if (ctx.draining) {
        return mapError(request.id ?? null, new ServiceError('shutting_down', 'server is shutting down; retry on another server or after restart'));
      }
      ctx.stats.requests += 1;
      // Only known names are counted, so arbitrary method names cannot grow the map.
      const name = KNOWN.has(request.method) ? request.method : '(unknown)';
      ctx.stats.byMethod.set(name, (ctx.stats.byMethod.get(name) ?? 0) + 1);
      return next(request, ctx);
    });
    this.server = server;
    this.mapError = mapError;
  }

  async receiveFrame(text: string, byteLength: number): Promise<RpcReply> {
    const { limits } = this.context;
    if (byteLength > limits.maxPayloadBytes) {
      return this.mapError(idFromHead(text), limitExceeded('maxPayloadBytes', limits.maxPayloadBytes, byteLength));
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return createJSONRPCErrorResponse(null, RpcErrorCode.ParseError, 'Parse error: the frame is not valid JSON (NaN and Infinity are not JSON)');
    }
    if (Array.isArray(message)) {
      if (message.length === 0) return invalidRequest(null);
      if (message.length > limits.maxJsonRpcBatch) {
        return this.mapError(null, limitExceeded('maxJsonRpcBatch', limits.maxJsonRpcBatch, message.length));
      }
      const replies = await Promise.all(message.map((m) => this.receiveOne(m)));
      const answered = replies.filter((r): r is JSONRPCResponse => r !== null);
      return answered.length > 0 ? answered : null;
    }
    return this.receiveOne(message);
  }

  private async receiveOne(message: unknown): Promise<JSONRPCResponse | null> {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return invalidRequest(null);
    const request = message as Partial<JSONRPCRequest>;
    if (request.jsonrpc !== '2.0' || typeof request.method !== 'string' || ('id' in request && !isJSONRPCID(request.id))) {
      return invalidRequest(isJSONRPCID(request.id) ? request.id : null);
    }
    return this.server.receive(request as JSONRPCRequest, this.context);
  }
}

function invalidRequest(id: JSONRPCID): JSONRPCResponse {
  return createJSONRPCErrorResponse(id, RpcErrorCode.InvalidRequest, 'Invalid Request: expected a JSON-RPC 2.0 request object');
}

/**
 * The id of an oversized request, read from its first bytes without parsing the whole frame
 * (clients, ours included, write `{"jsonrpc":"2.0","id":...` first); null when it is not there.
 */
function idFromHead(text: string): JSONRPCID {
  const head = /^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,128}")\s*,/.exec(text.slice(0, 256));
  if (head?.[1] === undefined) return null;
  return head[1].startsWith('"') ? head[1].slice(1, -1) : Number(head[1]);
}
