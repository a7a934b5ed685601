/** A top-level member of a one-line JSON object: its key and the byte range of its raw value. */
export interface RawMember {
  readonly key: string;
  readonly start: number;
  readonly end: number;
}

/**
 * Given a key and the byte where its value starts, the end of that value when the caller already
 * knows its bytes (e.g. the rubric of the previous line, compared in place), else -1.
 */
export type KnownValue = (bytes: Buffer, key: string, start: number, end: number) => number;

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** JSON's whitespace (JSON.parse accepts no other). */
const isJsonSpace = (c: number | undefined): boolean => c === SPACE || c === TAB || c === LF || c === CR;

function skipWhitespace(bytes: Buffer, i: number, end: number): number {
  while (i < end && isJsonSpace(bytes[i])) i++;
  return i;
}

/** The byte after the closing quote of the string opening at `open`, or -1. */
function stringEnd(bytes: Buffer, open: number, end: number): number {
  let from = open + 1;
  for (;;) {
    const close = bytes.indexOf(QUOTE, from);
    if (close < 0 || close >= end) return -1;
    let backslashes = 0;
    while (bytes[close - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return close + 1;
    from = close + 1;
  }
}

/**
 * The byte after the value starting at `start` (string, object, array: by quotes and bracket
 * depth; anything else: up to the next delimiter), or -1. The value itself is not validated.
 */
export function valueEnd(bytes: Buffer, start: number, end: number): number {
  const c = bytes[start];
  if (c === QUOTE) return stringEnd(bytes, start, end);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (let i = start; i < end; i++) {
      const s = bytes[i];
      if (s === QUOTE) {
        const after = stringEnd(bytes, i, end);
        if (after < 0) return -1;
        i = after - 1;
      } else if (s === OPEN_BRACE || s === OPEN_BRACKET) {
        depth++;
      } else if ((s === CLOSE_BRACE || s === CLOSE_BRACKET) && --depth === 0) {
        return i + 1;
      }
    }
    return -1;
  }
  let i = start;
  while (i < end) {
    const d = bytes[i];
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isJsonSpace(d)) break;
    i++;
  }
  return i > start ? i : -1;
}

/** A key as JSON.parse reads it, when it is plain ASCII without escapes or control characters. */
function plainKey(bytes: Buffer, start: number, end: number): string | undefined {
  for (let i = start; i < end; i++) {
    const c = bytes[i] as number;
    if (c < 0x20 || c >= 0x80 || c === BACKSLASH) return undefined;
  }
  return bytes.toString('latin1', start, end);
}

/**
 * The members of the JSON object in bytes [start, end) (one JSONL line), without parsing their
 * values, or undefined when the line is not an object whose structure this scanner can vouch for
 * (non-ASCII or escaped keys, a structural error, trailing text): the caller then runs JSON.parse
 * on the line, which says exactly what is wrong. The structure between members is checked here;
 * each value's text must still be checked by the caller (JSON.parse of the span, or identity with
 * bytes parsed before).
 */
export function scanObjectMembers(bytes: Buffer, start: number, end: number, known?: KnownValue): RawMember[] | undefined {
  let i = skipWhitespace(bytes, start, end);
  if (bytes[i] !== OPEN_BRACE || i >= end) return undefined;
  i = skipWhitespace(bytes, i + 1, end);
  const members: RawMember[] = [];
  if (bytes[i] === CLOSE_BRACE && i < end) return skipWhitespace(bytes, i + 1, end) === end ? members : undefined;
  for (;;) {
    if (i >= end || bytes[i] !== QUOTE) return undefined;
    const keyEnd = stringEnd(bytes, i, end);
    if (keyEnd < 0) return undefined;
    const key = plainKey(bytes, i + 1, keyEnd - 1);
    if (key === undefined) return undefined;
    i = skipWhitespace(bytes, keyEnd, end);
    if (i >= end || bytes[i] !== COLON) return undefined;
    const valueStart = skipWhitespace(bytes, i + 1, end);
    if (valueStart >= end) return undefined;
    let valueStop = known === undefined ? -1 : known(bytes, key, valueStart, end);
    if (valueStop < 0) valueStop = valueEnd(bytes, valueStart, end);
    if (valueStop < 0) return undefined;
    members.push({ key, start: valueStart, end: valueStop });
    i = skipWhitespace(bytes, valueStop, end);
    if (i >= end) return undefined;
    const c = bytes[i];
    if (c === COMMA) {
      i = skipWhitespace(bytes, i + 1, end);
      continue;
    }
    if (c !== CLOSE_BRACE) return undefined;
    return skipWhitespace(bytes, i + 1, end) === end ? members : undefined;
  }
}
