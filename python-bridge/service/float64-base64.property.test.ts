import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GearError } from '../../core/index.js';
import { decodeFloat64Base64, encodeFloat64Base64 } from './float64-base64.js';

const vectors = fc.array(fc.double(), { maxLength: 200 });

describe('the float64-base64 wire encoding', () => {
  it('writes exactly what Buffer writes for the little-endian bytes, short and long', () => {
    fc.assert(
      fc.property(vectors, (values) => {
        const reference = Buffer.alloc(values.length * 8);
        values.forEach((v, k) => reference.writeDoubleLE(v, k * 8));
        expect(encodeFloat64Base64(values)).toBe(reference.toString('base64'));
      }),
      { numRuns: 300 },
    );
  });

  it('reads back every float64 bit for bit, NaN payloads and signed zeros included', () => {
    fc.assert(
      fc.property(vectors, (values) => {
        const decoded = decodeFloat64Base64(encodeFloat64Base64(values), ['p']);
        expect(decoded.length).toBe(values.length);
        values.forEach((v, k) => expect(Object.is(decoded[k], v) || (Number.isNaN(v) && Number.isNaN(decoded[k]))).toBe(true));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses any text that is not canonical base64 of whole float64s, naming the field', () => {
    fc.assert(
      fc.property(vectors, fc.nat(), fc.constantFrom('!', ' ', '\u00e9', '-', '_', '.'), (values, at, junk) => {
        const text = encodeFloat64Base64(values.length === 0 ? [0.5] : values);
        const position = at % (text.length + 1);
        const damaged = text.slice(0, position) + junk + text.slice(position);
        expect(() => decodeFloat64Base64(damaged, ['scores', 'p'])).toThrowError(
          expect.objectContaining({ code: 'invalid_input', path: ['scores', 'p'] }) as GearError,
        );
      }),
      { numRuns: 300 },
    );
    for (const text of ['AAAAAAAAAA==', 'AAAA', 'AAAAAAAAAAA']) expect(() => decodeFloat64Base64(text, ['p'])).toThrow(GearError);
  });
});
