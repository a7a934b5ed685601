import { GearError } from '../../core/index.js';

/**
 * The `float64-base64` wire encoding of a score vector: the IEEE-754 little-endian bytes of each
 * float64, base64-encoded (RFC 4648, with padding). Exact by construction, and cheaper than
 * formatting and parsing a GRPO step's thousands of decimal floats on both sides. Short strings
 * are coded by hand because Buffer's base64 is a native call each, which costs more than a short
 * vector's coding; long ones go through Buffer.
 */
export const WireEncodingValues = ['json', 'float64-base64'] as const;
export type WireEncoding = (typeof WireEncodingValues)[number];

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const SEXTET = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) SEXTET[ALPHABET.charCodeAt(i)] = i;

let scratch = new DataView(new ArrayBuffer(1024));

function scratchOf(bytes: number): DataView {
  if (scratch.byteLength < bytes) scratch = new DataView(new ArrayBuffer(bytes * 2));
  return scratch;
}

const MESSAGE = 'must be base64 (RFC 4648, padded) of little-endian float64 values, 8 bytes each (encoding float64-base64)';

/** @throws GearError `invalid_input` at `at` unless the text is canonical base64 of whole float64s. */
export function decodeFloat64Base64(text: unknown, at: readonly (string | number)[]): Float64Array {
  if (typeof text !== 'string' || text.length % 4 !== 0) throw new GearError('invalid_input', at, MESSAGE);
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const byteLength = (text.length / 4) * 3 - pad;
  if (byteLength % 8 !== 0) throw new GearError('invalid_input', at, MESSAGE);
  if (text.length > NATIVE_FROM) return decodeNative(text, byteLength, at);
  const view = scratchOf(byteLength + 3);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    const a = sextet(text, i);
    const b = sextet(text, i + 1);
    const c = last && pad === 2 ? 0 : sextet(text, i + 2);
    const d = last && pad >= 1 ? 0 : sextet(text, i + 3);
    if ((a | b | c | d) < 0) throw new GearError('invalid_input', at, MESSAGE);
    const triple = (a << 18) | (b << 12) | (c << 6) | d;
    view.setUint8(o++, triple >>> 16);
    view.setUint8(o++, (triple >>> 8) & 0xff);
    view.setUint8(o++, triple & 0xff);
  }
  const out = new Float64Array(byteLength / 8);
  for (let k = 0; k < out.length; k++) out[k] = view.getFloat64(k * 8, true);
  return out;
}

const NATIVE_FROM = 512;

function decodeNative(text: string, byteLength: number, at: readonly (string | number)[]): Float64Array {
  const bytes = Buffer.from(text, 'base64');
  // Buffer.from skips characters outside the alphabet: re-encoding must give the same text back.
  if (bytes.byteLength !== byteLength || bytes.toString('base64') !== text) throw new GearError('invalid_input', at, MESSAGE);
  const out = new Float64Array(byteLength / 8);
  new Uint8Array(out.buffer).set(bytes);
  if (BIG_ENDIAN) for (let k = 0; k < out.length; k++) out[k] = bytes.readDoubleLE(k * 8);
  return out;
}

const BIG_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[0] !== 0;

function sextet(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code < 128 ? (SEXTET[code] as number) : -1;
}

export function encodeFloat64Base64(values: ArrayLike<number>): string {
  const byteLength = values.length * 8;
  if (byteLength > NATIVE_FROM) {
    const bytes = Buffer.allocUnsafe(byteLength);
    for (let k = 0; k < values.length; k++) bytes.writeDoubleLE(values[k] as number, k * 8);
    return bytes.toString('base64');
  }
  const view = scratchOf(byteLength + 2);
  for (let k = 0; k < values.length; k++) view.setFloat64(k * 8, values[k] as number, true);
  let out = '';
  for (let i = 0; i < byteLength; i += 3) {
    const remaining = byteLength - i;
    const triple = (view.getUint8(i) << 16) | ((remaining > 1 ? view.getUint8(i + 1) : 0) << 8) | (remaining > 2 ? view.getUint8(i + 2) : 0);
    out += ALPHABET[triple >>> 18]! + ALPHABET[(triple >>> 12) & 63]!;
    out += remaining > 1 ? ALPHABET[(triple >>> 6) & 63]! : '=';
    out += remaining > 2 ? ALPHABET[triple & 63]! : '=';
  }
  return out;
}
