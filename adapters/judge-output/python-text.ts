/*
 * Python's text primitives the hosts' parsers rely on, so gear reads a judge's text exactly where
 * they do: str.isspace() (also what `\s` matches in a Python str regex), str.strip(),
 * str.split(), float() of a string and Python truthiness.
 */

/** Characters for which Python's str.isspace() is true (and `\s` matches in a str pattern). */
export const PY_WHITESPACE_CLASS = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

const WHITESPACE = new RegExp(`[${PY_WHITESPACE_CLASS}]`);

export function isPyWhitespace(ch: string | undefined): boolean {
  return ch !== undefined && ch.length === 1 && WHITESPACE.test(ch);
}

/** Index of the first non-whitespace character at or after `from` (text.length if none). */
export function skipPyWhitespace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isPyWhitespace(text[i])) i++;
  return i;
}

/** str.strip() */
export function pyStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPyWhitespace(text[start])) start++;
  while (end > start && isPyWhitespace(text[end - 1])) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** str.strip(chars) */
export function pyStripChars(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start] as string)) start++;
  while (end > start && chars.includes(text[end - 1] as string)) end--;
  return text.slice(start, end);
}

/** " ".join(text.split()): runs of whitespace become one space, ends trimmed. */
export function pyCollapseWhitespace(text: string): string {
  const words: string[] = [];
  let i = 0;
  while (i < text.length) {
    i = skipPyWhitespace(text, i);
    const start = i;
    while (i < text.length && !isPyWhitespace(text[i])) i++;
    if (i > start) words.push(text.slice(start, i));
  }
  return words.join(' ');
}

const FLOAT_LITERAL = /^[+-]?(?:(?:\d(?:_?\d)*)(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const SPECIAL = /^[+-]?(?:inf|infinity|nan)$/i;

/**
 * float(text) for a str: surrounding whitespace ignored, digit underscores allowed, "inf" and
 * "nan" in any case; undefined where Python raises ValueError. (ASCII digits only: Python also
 * reads other Unicode decimal digits.)
 */
export function pyFloatOfString(text: string): number | undefined {
  const s = pyStrip(text);
  if (FLOAT_LITERAL.test(s)) return Number(s.replaceAll('_', ''));
  if (SPECIAL.test(s)) {
    const negative = s.startsWith('-');
    if (/nan$/i.test(s)) return Number.NaN;
    return negative ? -Infinity : Infinity;
  }
  return undefined;
}
