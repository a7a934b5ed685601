import { GearError } from '../../../core/index.js';
import { ServiceError } from '../service-error.js';

export interface ItemError {
  readonly index: number;
  readonly error: {
    readonly code: string;
    readonly path: readonly (string | number)[];
    readonly message: string;
    readonly data?: Readonly<Record<string, unknown>> | undefined;
  };
}

/**
 * A bad batch item is data: its error goes in the result and the other items are still scored.
 * So is an item over a per-item limit (code `limit_exceeded`, `data` as in -32002). Anything else
 * (shutdown, a bug) fails the whole request.
 */
export function itemError(index: number, error: unknown, at: readonly (string | number)[] = ['items', index]): ItemError {
  if (error instanceof GearError) return { index, error: { code: error.code, path: error.path, message: error.message } };
  if (error instanceof ServiceError && error.kind === 'limit_exceeded') {
    return { index, error: { code: 'limit_exceeded', path: at, message: error.message, data: error.data } };
  }
  throw error;
}
