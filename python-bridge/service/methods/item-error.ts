import { GearError } from '../../../core/index.js';

export interface ItemError {
  readonly index: number;
  readonly error: { readonly code: string; readonly path: readonly (string | number)[]; readonly message: string };
}

/** A bad batch item is data: its error goes in the result and the other items are still scored. */
export function itemError(index: number, error: unknown): ItemError {
  if (!(error instanceof GearError)) throw error;
  return { index, error: { code: error.code, path: error.path, message: error.message } };
}
