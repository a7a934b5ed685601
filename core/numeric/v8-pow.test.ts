import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { v8Pow } from './v8-pow.js';

/** Whether this Node's `**` is V8's fdlibm port: no `--use-std-math-pow` flag (Node <= 22), or off. */
function nodePowIsV8s(): boolean {
  const flags = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
  const at = flags.indexOf('--use-std-math-pow');
  if (at < 0) return true;
  return /default: --no-use-std-math-pow/.test(flags.slice(at, at + 300));
}

/** Distance in units in the last place between two finite doubles of the same sign. */
function ulps(a: number, b: number): bigint {
  const bits = new BigInt64Array(new Float64Array([a, b]).buffer);
  const d = (bits[0] as bigint) - (bits[1] as bigint);
  return d < 0n ? -d : d;
}

const bases = fc.oneof(
  fc.double({ min: 0, max: 1, noNaN: true }), // retentions, probabilities, products of factors
  fc.double({ min: 0, max: 1e300, noNaN: true }),
  fc.double({ min: 0, max: 2 ** -1000, noNaN: true }), // subnormals
  fc.double({ min: 1 - 2 ** -20, max: 1 + 2 ** -20, noNaN: true }), // near 1, where huge powers stay finite
  fc.constantFrom(0, -0, 1, 0.6, 0.2, 0.5, 2 ** -1074, 2 ** -1022),
);
const exponents = fc.oneof(
  fc.double({ min: 0, max: 8, noNaN: true }), // gammas
  fc.integer({ min: 2, max: 64 }).map((n) => 1 / n), // a geometric mean's root
  fc.double({ min: -2000, max: 2000, noNaN: true }),
  fc.double({ min: -1e300, max: 1e300, noNaN: true }), // past 2^31 and 2^64: the overflow branches
  fc.constantFrom(0, -0, 1, -1, 2, 0.5, 3, 4, 2 ** 31 + 1, 2 ** 64 + 2 ** 12),
);

describe('v8Pow', () => {
  it.runIf(nodePowIsV8s())("is this Node's ** bit for bit (its V8 runs the fdlibm port)", () => {
    fc.assert(
      fc.property(bases, exponents, (x, y) => {
        expect(Object.is(v8Pow(x, y), x ** y)).toBe(true);
      }),
      { numRuns: 20000 },
    );
  });

  it('is within one unit in the last place of any Node ** (nearly rounded, as C pow is)', () => {
    fc.assert(
      fc.property(fc.double({ min: 2 ** -100, max: 2 ** 100, noNaN: true }), fc.double({ min: -8, max: 8, noNaN: true }), (x, y) => {
        expect(ulps(v8Pow(x, y), x ** y)).toBeLessThanOrEqual(1n);
      }),
      { numRuns: 20000 },
    );
  });

  it('gives an integer power of an integer exactly where it is representable (fdlibm guarantees it)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 99 }), fc.integer({ min: 0, max: 52 }), (a, b) => {
        const exact = BigInt(a) ** BigInt(b);
        fc.pre(exact <= 2n ** 53n);
        expect(v8Pow(a, b)).toBe(Number(exact));
      }),
    );
  });

  it('takes the special values as ** does: x^0 = 1, 0^y = 0 (y > 0), 1^y = 1, x^1 = x, -0 to 0.5 is +0', () => {
    expect(v8Pow(0.3, 0)).toBe(1);
    expect(v8Pow(0, 2.5)).toBe(0);
    expect(v8Pow(0, -2.5)).toBe(Infinity);
    expect(v8Pow(1, 1e300)).toBe(1);
    expect(v8Pow(0.37, 1)).toBe(0.37);
    expect(Object.is(v8Pow(-0, 0.5), 0)).toBe(true);
    expect(v8Pow(0.5, 2000)).toBe(0); // underflow
    expect(v8Pow(2, 1024)).toBe(Infinity); // overflow
    expect(v8Pow(2, -1074)).toBe(Number.MIN_VALUE); // the smallest subnormal, exactly
  });
});
