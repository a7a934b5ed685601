import { GearError } from '../../core/index.js';

interface Frame {
  readonly value: Record<string, unknown> | unknown[];
  readonly keys: readonly string[] | undefined;
  /** The key under which this container sits in its parent. */
  readonly key: string | number;
  next: number;
}

/**
 * Refuses params nested deeper than `max` arrays/objects, before any method (or adapter) walks
 * them: JSON.parse reads 20,000 levels happily, but String(), JSON.stringify and any recursive
 * reader overflow the stack on them. Iterative depth-first walk over the containers only.
 *
 * @throws GearError `invalid_input` whose path leads to the first container past the limit.
 */
export function checkParamsDepth(params: unknown, max: number): void {
  if (typeof params !== 'object' || params === null) return;
  const open = (value: object, key: string | number): Frame =>
    Array.isArray(value) ? { value, keys: undefined, key, next: 0 } : { value: value as Record<string, unknown>, keys: Object.keys(value), key, next: 0 };
  const stack: Frame[] = [open(params, '')];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const length = frame.keys === undefined ? (frame.value as unknown[]).length : frame.keys.length;
    if (frame.next >= length) {
      stack.pop();
      continue;
    }
    const key = frame.keys === undefined ? frame.next : (frame.keys[frame.next] as string);
    frame.next += 1;
    const child = (frame.value as Record<string | number, unknown>)[key];
    if (typeof child !== 'object' || child === null) continue;
    if (stack.length >= max) {
      const path = [...stack.slice(1).map((f) => f.key), key];
      throw new GearError('invalid_input', path, `nests arrays and objects deeper than ${max} levels`);
    }
    stack.push(open(child, key));
  }
}
