/**
 * The one error type core throws. Callers branch on `code` and `path`, never on the message
 * (the message is for people and may be reworded).
 */
export type GearErrorCode = 'invalid_input' | 'unknown_criterion' | 'invalid_graph' | 'usage';

export type ErrorPath = readonly (string | number)[];

export class GearError extends Error {
  override readonly name = 'GearError';

  constructor(
    readonly code: GearErrorCode,
    readonly path: ErrorPath,
    /** The message without the path prefix. */
    readonly detail: string,
  ) {
    super(path.length > 0 ? `${formatPath(path)}: ${detail}` : detail);
  }

  /** The same error, located under `prefix` (for errors from a nested value). */
  under(prefix: ErrorPath): GearError {
    return new GearError(this.code, [...prefix, ...this.path], this.detail);
  }
}

export function isGearError(value: unknown): value is GearError {
  return value instanceof GearError;
}

/** Renders `['criteria', 3, 'weight']` as `criteria[3].weight`. */
export function formatPath(path: ErrorPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

/**
 * A short description of an untrusted value for an error message. It never calls the value's own
 * methods (`{"toString": 1}` makes String() throw) and never walks into it (String() of a 20,000-deep
 * array overflows the stack), so describing bad input cannot fail.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'undefined':
      return 'nothing';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}
