import { isPyWhitespace } from './python-text.js';

/*
 * Building blocks for the official parsers' regex fallbacks, written as forward scans. The host
 * regexes ("?(\d+)"?\s*:\s*\{...) are searched from every position by Python's backtracking
 * engine; read this way each character is looked at a bounded number of times.
 */

const isAsciiDigit = (ch: string | undefined): boolean => ch !== undefined && ch >= '0' && ch <= '9';

/** Maximal runs of ASCII digits starting at or after `from`, in order (a match of (\d+) can only start at a run's start). */
export function* digitRuns(text: string, from = 0): Generator<{ start: number; end: number }> {
  let i = from;
  while (i < text.length) {
    if (!isAsciiDigit(text[i])) {
      i++;
      continue;
    }
    const start = i;
    while (isAsciiDigit(text[i])) i++;
    yield { start, end: i };
  }
}

/** A cursor that matches the pieces of a host regex in sequence; every method returns false on mismatch. */
export class Scan {
  constructor(
    readonly text: string,
    public at: number,
  ) {}

  /** \s* */
  ws(): true {
    while (isPyWhitespace(this.text[this.at])) this.at++;
    return true;
  }

  /** An optional character ("?). */
  optional(ch: string): true {
    if (this.text[this.at] === ch) this.at++;
    return true;
  }

  char(ch: string): boolean {
    if (this.text[this.at] !== ch) return false;
    this.at++;
    return true;
  }

  /** A literal, ASCII letters compared case-insensitively (re.IGNORECASE). */
  literal(word: string, ignoreCase: boolean): boolean {
    const got = this.text.slice(this.at, this.at + word.length);
    if (ignoreCase ? got.toLowerCase() !== word.toLowerCase() || got.length !== word.length : got !== word) return false;
    this.at += word.length;
    return true;
  }

  /** (true|false), case-insensitively: the boolean, or undefined. */
  bool(ignoreCase: boolean): boolean | undefined {
    if (this.literal('true', ignoreCase)) return true;
    if (this.literal('false', ignoreCase)) return false;
    return undefined;
  }

  /**
   * [0-9]*\.?[0-9]+ as Python matches it when what follows cannot be a digit: digits with a
   * fraction when a digit follows the dot, else the digits alone. The text of the number, or undefined.
   */
  unsignedDecimal(): string | undefined {
    const start = this.at;
    let i = start;
    while (isAsciiDigit(this.text[i])) i++;
    if (this.text[i] === '.' && isAsciiDigit(this.text[i + 1])) {
      i += 2;
      while (isAsciiDigit(this.text[i])) i++;
    } else if (i === start) {
      return undefined;
    }
    this.at = i;
    return this.text.slice(start, i);
  }

  /** [-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)? (greedy; an incomplete exponent is left unread). */
  signedNumber(): string | undefined {
    const start = this.at;
    let i = start;
    if (this.text[i] === '+' || this.text[i] === '-') i++;
    if (isAsciiDigit(this.text[i])) {
      while (isAsciiDigit(this.text[i])) i++;
      if (this.text[i] === '.') {
        i++;
        while (isAsciiDigit(this.text[i])) i++;
      }
    } else if (this.text[i] === '.' && isAsciiDigit(this.text[i + 1])) {
      i += 2;
      while (isAsciiDigit(this.text[i])) i++;
    } else {
      return undefined;
    }
    if (this.text[i] === 'e' || this.text[i] === 'E') {
      let j = i + 1;
      if (this.text[j] === '+' || this.text[j] === '-') j++;
      if (isAsciiDigit(this.text[j])) {
        while (isAsciiDigit(this.text[j])) j++;
        i = j;
      }
    }
    this.at = i;
    return this.text.slice(start, i);
  }
}

/** The position a match of "?(\d+) starting with this run begins at: the quote before it, if any and not consumed. */
export function matchStart(text: string, run: { start: number }, notBefore: number): number {
  return run.start - 1 >= notBefore && text[run.start - 1] === '"' ? run.start - 1 : run.start;
}
