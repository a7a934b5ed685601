/*
 * Python's json.loads, read iteratively in one pass. The hosts parse judge output with it, so gear
 * must accept and refuse the same texts and get the same values:
 * - NaN, Infinity and -Infinity are numbers (callers refuse non-finite ones as credit);
 * - a key repeated in an object keeps its first position and its last value (a dict built from
 *   the pairs), and is recorded;
 * - no trailing commas, no comments, no single quotes, no Python literals (True/False/None);
 * - only " \t\n\r" around tokens; control characters inside strings are an error.
 * Nesting is bounded (MAX_JSON_DEPTH): no stack is used for it, and any later walk over a value is
 * bounded by it too. Python's own scanner raises RecursionError near 1000 levels, which its callers
 * do not catch; gear reads such output as unparsable instead.
 */

export type PyValue = null | boolean | number | string | PyValue[] | PyDict;

/** A JSON object as Python's dict of it: insertion order of first occurrence, last value wins. */
export class PyDict extends Map<string, PyValue> {
  /** Keys that occurred more than once in the text. */
  repeated: Set<string> | undefined;
}

export const MAX_JSON_DEPTH = 512;

export type PyJsonResult = { readonly ok: true; readonly value: PyValue } | { readonly ok: false; readonly tooDeep: boolean };

const INVALID: PyJsonResult = { ok: false, tooDeep: false };
const TOO_DEEP: PyJsonResult = { ok: false, tooDeep: true };

const isJsonWhitespace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

interface Frame {
  readonly container: PyValue[] | PyDict;
  /** The key the next value of an object goes under. */
  key: string;
}

/** json.loads(text): the value, or why not. */
export function pyJsonLoads(text: string): PyJsonResult {
  const n = text.length;
  let i = 0;
  const stack: Frame[] = [];

  const skip = (): void => {
    while (i < n && isJsonWhitespace(text.charCodeAt(i))) i++;
  };

  const readString = (): string | undefined => {
    // text[i] === '"'
    i++;
    let out = '';
    let chunk = i;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(chunk, i);
        i++;
        return out;
      }
      if (c < 0x20) return undefined;
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(chunk, i);
      const e = text[i + 1];
      const simple = e === undefined ? undefined : ESCAPES[e];
      if (simple !== undefined) {
        out += simple;
        i += 2;
      } else if (e === 'u') {
        const hex = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
        out += String.fromCharCode(parseInt(hex, 16));
        i += 6;
      } else {
        return undefined;
      }
      chunk = i;
    }
    return undefined;
  };

  const readNumber = (): number | undefined => {
    const start = i;
    if (text[i] === '-') i++;
    if (text.startsWith('Infinity', i)) {
      i += 8;
      return text[start] === '-' ? -Infinity : Infinity;
    }
    if (text[i] === '0') i++;
    else if (isDigit(text.charCodeAt(i))) while (isDigit(text.charCodeAt(i))) i++;
    else return undefined;
    if (text[i] === '.' && isDigit(text.charCodeAt(i + 1))) {
      i++;
      while (isDigit(text.charCodeAt(i))) i++;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      let j = i + 1;
      if (text[j] === '+' || text[j] === '-') j++;
      if (isDigit(text.charCodeAt(j))) {
        while (isDigit(text.charCodeAt(j))) j++;
        i = j;
      }
    }
    return Number(text.slice(start, i));
  };

  /** `"key" :` at i (after whitespace), leaving i after the colon. */
  const readKey = (): string | undefined => {
    skip();
    if (text[i] !== '"') return undefined;
    const key = readString();
    if (key === undefined) return undefined;
    skip();
    if (text[i] !== ':') return undefined;
    i++;
    return key;
  };

  for (;;) {
    // Read one value at i: a scalar, an empty container, or open a container and read its first element.
    skip();
    let value: PyValue;
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      skip();
      if (text[i] === (c === '{' ? '}' : ']')) {
        i++;
        value = c === '{' ? new PyDict() : [];
      } else {
        if (stack.length >= MAX_JSON_DEPTH) return TOO_DEEP;
        let key = '';
        if (c === '{') {
          const k = readKey();
          if (k === undefined) return INVALID;
          key = k;
        }
        stack.push({ container: c === '{' ? new PyDict() : [], key });
        continue;
      }
    } else if (c === '"') {
      const s = readString();
      if (s === undefined) return INVALID;
      value = s;
    } else if (text.startsWith('true', i)) {
      i += 4;
      value = true;
    } else if (text.startsWith('false', i)) {
      i += 5;
      value = false;
    } else if (text.startsWith('null', i)) {
      i += 4;
      value = null;
    } else if (text.startsWith('NaN', i)) {
      i += 3;
      value = Number.NaN;
    } else {
      const number = readNumber();
      if (number === undefined) return INVALID;
      value = number;
    }
    // Attach the value; close every container that ends here; stop at ',' (next element) or the end.
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) {
        skip();
        return i === n ? { ok: true, value } : INVALID;
      }
      if (Array.isArray(top.container)) top.container.push(value);
      else {
        if (top.container.has(top.key)) (top.container.repeated ??= new Set()).add(top.key);
        top.container.set(top.key, value);
      }
      skip();
      const next = text[i];
      if (next === ',') {
        i++;
        if (!Array.isArray(top.container)) {
          const k = readKey();
          if (k === undefined) return INVALID;
          top.key = k;
        }
        break;
      }
      if (next !== (Array.isArray(top.container) ? ']' : '}')) return INVALID;
      i++;
      stack.pop();
      value = top.container;
    }
  }
}

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

export function isPyDict(value: PyValue | undefined): value is PyDict {
  return value instanceof PyDict;
}

/** Python's repr-like rendering of a value for a detail message, cut to `max` characters. */
export function describePyValue(value: PyValue | undefined, max = 40): string {
  let s: string;
  if (value === undefined) s = 'nothing';
  else if (value === null) s = 'null';
  else if (typeof value === 'number') s = Number.isNaN(value) ? 'NaN' : String(value);
  else if (typeof value === 'string') s = JSON.stringify(value);
  else if (typeof value === 'boolean') s = String(value);
  else if (Array.isArray(value)) s = `an array of ${value.length}`;
  else s = `an object with ${value.size} keys`;
  return s.length > max ? `${s.slice(0, max)}...` : s;
}

