import { randomUUID } from 'node:crypto';
import { JSONRPCErrorException, createJSONRPCErrorResponse, type JSONRPCErrorResponse, type JSONRPCID } from 'json-rpc-2.0';
import { GearError } from '../../core/index.js';
import { ServiceError, type ServiceErrorKind } from './service-error.js';
import type { Logger } from './logger.js';

/** JSON-RPC error codes: the spec's, and gear's own in the reserved server range -32000..-32099. */
export const RpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  UnknownRubric: -32001,
  LimitExceeded: -32002,
  ShuttingDown: -32004,
} as const;

const SERVICE_CODES: Readonly<Record<ServiceErrorKind, number>> = {
  unknown_rubric: RpcErrorCode.UnknownRubric,
  limit_exceeded: RpcErrorCode.LimitExceeded,
  shutting_down: RpcErrorCode.ShuttingDown,
};

/**
 * The one mapping from thrown errors to the wire. GearError (bad input) -> -32602 naming the
 * field; ServiceError -> its reserved code; anything else is a bug: -32603 with an incident id,
 * the details only in the log. Never code 0, never a stack.
 */
export function createErrorMapper(logger: Logger): (id: JSONRPCID, error: unknown) => JSONRPCErrorResponse {
  return (id, error) => {
    if (error instanceof GearError) {
      return createJSONRPCErrorResponse(id, RpcErrorCode.InvalidParams, `Invalid params: ${error.message}`, {
        code: error.code,
        path: error.path,
        reason: error.detail,
      });
    }
    if (error instanceof ServiceError) {
      return createJSONRPCErrorResponse(id, SERVICE_CODES[error.kind], error.message, error.data);
    }
    if (error instanceof JSONRPCErrorException) {
      return createJSONRPCErrorResponse(id, error.code, error.message, error.data);
    }
    const incident = randomUUID();
    logger.error('internal_error', {
      incident,
      error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
    });
    return createJSONRPCErrorResponse(id, RpcErrorCode.InternalError, 'Internal error', { incident });
  };
}
