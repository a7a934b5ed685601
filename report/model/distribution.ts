import type { Distribution, Histogram } from './report-model.js';

/** Quantile by linear interpolation between order statistics (R's type 7, numpy's default). */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo] as number;
  return lo === hi ? a : a + (at - lo) * ((sorted[hi] as number) - a);
}

/** Counts in `bins` equal bins over [lo, hi]; the maximum falls in the last bin. */
export function histogram(values: readonly number[], lo: number, hi: number, bins: number): Histogram {
  const step = hi > lo ? (hi - lo) / bins : 1;
  const counts = new Array<number>(hi > lo ? bins : 1).fill(0);
  for (const v of values) {
    const k = Math.min(counts.length - 1, Math.max(0, Math.floor((v - lo) / step)));
    counts[k] = (counts[k] as number) + 1;
  }
  return { start: lo, step, counts };
}

/**
 * Mean, standard deviation (n - 1), quartiles and a histogram of `values`. `domain` fixes the
 * histogram's range so that several distributions share bins (default: the values' own range).
 */
export function describe(values: readonly number[], domain?: readonly [number, number], bins = 40): Distribution {
  const n = values.length;
  if (n === 0) {
    return { n, mean: null, sd: null, min: null, q25: null, median: null, q75: null, max: null, histogram: { start: 0, step: 1, counts: [] } };
  }
  const sorted = [...values].sort((a, b) => a - b);
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / n;
  let squares = 0;
  for (const v of values) squares += (v - mean) * (v - mean);
  const min = sorted[0] as number;
  const max = sorted[n - 1] as number;
  const [lo, hi] = domain ?? [min, max];
  return {
    n,
    mean,
    sd: n > 1 ? Math.sqrt(squares / (n - 1)) : null,
    min,
    q25: quantile(sorted, 0.25),
    median: quantile(sorted, 0.5),
    q75: quantile(sorted, 0.75),
    max,
    histogram: histogram(values, lo, hi, bins),
  };
}
