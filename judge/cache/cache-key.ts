import { createHash } from 'node:crypto';

/**
 * The content hash a judge answer is cached under: the model, the exact messages, the decoding
 * parameters and what the answer was asked to carry (schema, logprobs). Keys of objects are sorted
 * so that the same request written in another key order hits the same entry; arrays keep order
 * (message order is part of the prompt).
 */
export function judgeCacheKey(parts: Readonly<Record<string, unknown>>): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

/** JSON text already written canonically, which canonicalJson takes as it is (see messagesJson). */
export class CanonicalJsonText {
  constructor(readonly text: string) {}
}

/** JSON with object keys sorted and `undefined` members dropped, as JSON.stringify drops them. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (value instanceof CanonicalJsonText) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
