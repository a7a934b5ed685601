/**
 * Errors the service raises itself (core raises GearError). Each kind has its own JSON-RPC code
 * in the reserved server range; rpc-errors.ts is the one place that maps them to the wire.
 */
export type ServiceErrorKind = 'unknown_rubric' | 'limit_exceeded' | 'shutting_down';

export class ServiceError extends Error {
  override readonly name = 'ServiceError';

  constructor(
    readonly kind: ServiceErrorKind,
    message: string,
    readonly data?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

export function limitExceeded(limit: string, max: number, actual: number, advice?: string): ServiceError {
  return new ServiceError('limit_exceeded', `${limit} exceeded: ${actual} > ${max}${advice === undefined ? '' : `; ${advice}`}`, { limit, max, actual });
}

export function shuttingDown(): ServiceError {
  return new ServiceError('shutting_down', 'server is shutting down; retry on another server or after restart');
}
