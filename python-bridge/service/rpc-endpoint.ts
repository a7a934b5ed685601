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
import { limitExceeded, shuttingDown } from './service-error.js';
import { checkParamsDepth } from './params-depth.js';
import type { ServiceContext } from './service-context.js';
import { parseJsonKeepingPointsForm } from '../../adapters/points-form.js';

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
    // A notification (no id) is never answered, not even with an error (JSON-RPC 2.0 section 4.1).
    server.handleMethodNotFound = (request) =>
      Promise.resolve(
        request.id === undefined
          ? null
          : createJSONRPCErrorResponse(request.id, RpcErrorCode.MethodNotFound, `Method not found: ${String(request.method)}`, {
              method: request.method,
            }),
      );
    for (const method of METHODS) {
      server.addMethod(method.name, (params: unknown, ctx) => {
        const positional = Array.isArray(params) ? params.length > 0 : params !== undefined && (typeof params !== 'object' || params === null);
        if (positional) {
          throw new GearError('invalid_input', ['params'], 'must be an object of named params');
        }
        checkParamsDepth(params, ctx.limits.maxParamsDepth);
        return method.handle(parseWith(method.params, params), ctx);
      });
    }
    server.applyMiddleware(async (next, request, ctx) => {
      if (ctx.draining) return request.id === undefined ? null : mapError(request.id, shuttingDown());
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
      // Keeps whether a rubric item's integral points were written as a float (the side texts print 7 and 7.0 as the hosts do).
      message = parseJsonKeepingPointsForm(text);
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
      return invalidRequest(isJSONRPCID(request.id) && isExactId(request.id) ? request.id : null);
    }
    if ('id' in request && !isExactId(request.id)) {
      return invalidRequest(
        null,
        'Invalid Request: a numeric id must be within +-(2^53 - 1) to come back exactly as sent; use a string id',
      );
    }
    const reply = await this.server.receive(request as JSONRPCRequest, this.context);
    return request.id === undefined ? null : reply;
  }
}

function invalidRequest(id: JSONRPCID, message = 'Invalid Request: expected a JSON-RPC 2.0 request object'): JSONRPCResponse {
  return createJSONRPCErrorResponse(id, RpcErrorCode.InvalidRequest, message);
}

/**
 * Whether an id survives the trip: JSON.parse reads numbers as float64, so 1e400 became Infinity
 * (written back as null) and 9007199254740993 became ...992. Such ids cannot be echoed exactly and
 * are refused (with id null, as the spec says for an id that cannot be read).
 */
function isExactId(id: unknown): boolean {
  return typeof id !== 'number' || (Number.isFinite(id) && Math.abs(id) <= Number.MAX_SAFE_INTEGER);
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
