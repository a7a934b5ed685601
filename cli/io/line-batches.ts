/** Complete lines of a stream, as byte ranges of one buffer (line ends excluded). */
export interface LineBatch {
  /** Number of the batch's first line (1-based, counting every line, blank ones too). */
  readonly first: number;
  readonly bytes: Buffer;
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits `bytes` into lines as node:readline does (CRLF, LF or a lone CR end a line) and returns
 * where the unfinished last line starts. Unless `final`, a CR in the last byte waits: it may be
 * the first half of a CRLF.
 */
export function splitLines(bytes: Buffer, final: boolean, starts: number[], ends: number[]): number {
  let start = 0;
  let nextCr = bytes.indexOf(CR);
  for (;;) {
    const lf = bytes.indexOf(LF, start);
    if (nextCr >= 0 && nextCr < start) nextCr = bytes.indexOf(CR, start);
    let end: number;
    let after: number;
    if (nextCr >= 0 && (lf < 0 || nextCr < lf)) {
      // A CR before the next LF: CRLF (one line end) or a lone CR.
      if (nextCr === bytes.length - 1 && !final) return start;
      end = nextCr;
      after = bytes[nextCr + 1] === LF ? nextCr + 2 : nextCr + 1;
    } else if (lf >= 0) {
      end = lf;
      after = lf + 1;
    } else {
      // No line end left: the rest is the unfinished last line (a whole line at the end of input).
      if (final && start < bytes.length) {
        starts.push(start);
        ends.push(bytes.length);
        return bytes.length;
      }
      return start;
    }
    starts.push(start);
    ends.push(end);
    start = after;
  }
}

/**
 * The lines of a byte stream in batches (one per chunk read), split and numbered exactly as
 * `readLines` (node:readline with crlfDelay Infinity) does, without decoding: the caller decodes
 * what it needs. A batch holds the complete lines of a chunk; the unfinished line at its end is
 * carried to the next chunk, so memory stays at a chunk plus the longest line.
 */
export async function* readLineBatches(input: AsyncIterable<Buffer | string>): AsyncGenerator<LineBatch> {
  let carry: Buffer | undefined;
  let first = 1;
  const batchOf = (bytes: Buffer, final: boolean): LineBatch | undefined => {
    const starts: number[] = [];
    const ends: number[] = [];
    const rest = splitLines(bytes, final, starts, ends);
    carry = rest < bytes.length ? bytes.subarray(rest) : undefined;
    if (starts.length === 0) return undefined;
    const batch = { first, bytes, starts, ends };
    first += starts.length;
    return batch;
  };
  for await (const chunk of input) {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const batch = batchOf(carry === undefined ? data : Buffer.concat([carry, data]), false);
    if (batch !== undefined) yield batch;
  }
  if (carry !== undefined) {
    const batch = batchOf(carry, true);
    if (batch !== undefined) yield batch;
  }
}

/** Lines given as strings (the bundled demo), as batches of `size` lines. */
export async function* batchesOfLines(lines: AsyncIterable<string> | Iterable<string>, size = 256): AsyncGenerator<LineBatch> {
  let pending: string[] = [];
  let first = 1;
  const flush = (): LineBatch => {
    const bytes = Buffer.from(pending.join('\n'), 'utf8');
    const starts: number[] = [];
    const ends: number[] = [];
    splitLines(bytes, true, starts, ends);
    const batch = { first, bytes, starts, ends };
    first += starts.length;
    pending = [];
    return batch;
  };
  for await (const line of lines) {
    pending.push(line);
    if (pending.length === size) yield flush();
  }
  if (pending.length > 0) yield flush();
}
