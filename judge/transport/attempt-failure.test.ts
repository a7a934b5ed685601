import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffMs, parseRetryAfterMs, retryDelayMs } from './attempt-failure.js';

describe('Retry-After', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  const headers = (h: Record<string, string>): Headers => new Headers(h);
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(parseRetryAfterMs(headers({ 'retry-after-ms': '250' }), now)).toBe(250);
    expect(parseRetryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfterMs(headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfterMs(headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(parseRetryAfterMs(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(3000);
    expect(parseRetryAfterMs(headers({ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }), now)).toBe(0);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
    expect(parseRetryAfterMs(headers({}), now)).toBeUndefined();
    expect(parseRetryAfterMs(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfterMs(headers({ 'retry-after': '-3' }), now)).toBeUndefined();
    expect(parseRetryAfterMs(headers({ 'retry-after-ms': 'x', 'retry-after': '1' }), now)).toBe(1000);
  });
});

describe('backoff', () => {
  it('full jitter stays within [0, min(cap, base x 2^(retry-1))]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (retry, r) => {
        const config = { baseMs: 500, capMs: 8000, jitter: 'full' as const };
        const ceiling = Math.min(8000, 500 * 2 ** (retry - 1));
        const ms = backoffMs(retry, config, () => r);
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThan(ceiling + 1e-9);
        expect(backoffMs(retry, { ...config, jitter: 'none' })).toBe(ceiling);
      }),
    );
  });

  it('decorrelated jitter stays within [min(base, cap), min(cap, 3 x the last wait)] and reaches the cap', () => {
    const config = { baseMs: 50, capMs: 8000, answeringCapMs: 1000, jitter: 'decorrelated' as const };
    fc.assert(
      fc.property(
        fc.option(fc.double({ min: 0, max: 20_000, noNaN: true }), { nil: undefined }),
        fc.constantFrom(1000, 8000),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (last, cap, r) => {
          const ms = retryDelayMs(2, last, cap, config, () => r);
          expect(ms).toBeGreaterThanOrEqual(Math.min(50, cap));
          expect(ms).toBeLessThanOrEqual(Math.min(cap, Math.max(50, 3 * (last ?? 50))) + 1e-9);
        },
      ),
    );
    // The first retry waits 50-150 ms; waits at the top of their range reach the cap in a few steps.
    expect(retryDelayMs(1, undefined, 1000, config, () => 0)).toBe(50);
    expect(retryDelayMs(1, undefined, 1000, config, () => 0.5)).toBe(100);
    let last: number | undefined;
    const waits: number[] = [];
    for (let retry = 1; retry <= 5; retry++) waits.push((last = retryDelayMs(retry, last, 1000, config, () => 0.999999)));
    expect(waits.map(Math.round)).toEqual([150, 450, 1000, 1000, 1000]);
  });
});
