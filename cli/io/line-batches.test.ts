import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { readLines } from './jsonl-lines.js';
import { batchesOfLines, readLineBatches } from './line-batches.js';

/** Bytes with every kind of line end, blank lines, multi-byte and invalid UTF-8. */
const piece = fc.constantFrom('a', '{"x":1}', '\n', '\r', '\r\n', ' ', '\u00e9', '\u20ac', '\ud83d\ude00', '\ufeff', '\xff');
const streamArb = fc.tuple(fc.array(piece, { maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 10 }));

function chunked(text: string, sizes: number[]): Buffer[] {
  // '\xff' stands for an invalid byte: the text is encoded, then each 0xC3 0xBF pair becomes 0xFF.
  const encoded = Buffer.from(text, 'utf8');
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    if (encoded[i] === 0xc3 && encoded[i + 1] === 0xbf) {
      bytes.push(0xff);
      i++;
    } else bytes.push(encoded[i] as number);
  }
  const all = Buffer.from(bytes);
  const chunks: Buffer[] = [];
  for (let at = 0, k = 0; at < all.length; k++) {
    const size = sizes[k % sizes.length] as number;
    chunks.push(all.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

describe('readLineBatches splits and numbers lines as node:readline does', () => {
  it('for any bytes and any chunking (CR, LF, CRLF split across chunks, invalid UTF-8)', async () => {
    await fc.assert(
      fc.asyncProperty(streamArb, async ([pieces, sizes]) => {
        const chunks = chunked(pieces.join(''), sizes);
        const expected: [number, string][] = [];
        for await (const { number, text } of readLines(Readable.from(chunks))) expected.push([number, text]);
        const actual: [number, string][] = [];
        for await (const batch of readLineBatches(Readable.from(chunks))) {
          batch.starts.forEach((start, k) => actual.push([batch.first + k, batch.bytes.toString('utf8', start, batch.ends[k])]));
        }
        expect(actual).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('batches given lines without changing them or their numbers', async () => {
    const lines = Array.from({ length: 600 }, (_, i) => `{"i":${i},"t":"\u00e9"}`);
    const seen: string[] = [];
    let expectedFirst = 1;
    for await (const batch of batchesOfLines(lines, 256)) {
      expect(batch.first).toBe(expectedFirst);
      expectedFirst += batch.starts.length;
      batch.starts.forEach((s, k) => seen.push(batch.bytes.toString('utf8', s, batch.ends[k])));
    }
    expect(seen).toEqual(lines);
  });
});
