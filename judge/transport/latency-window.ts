/** The last `capacity` latencies (ms) in a ring buffer, with nearest-rank quantiles. */
export class LatencyWindow {
  private readonly values: Float64Array;
  private count = 0;
  private next = 0;
  private sorted: Float64Array | undefined;

  constructor(capacity: number) {
    this.values = new Float64Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  add(ms: number): void {
    this.values[this.next] = ms;
    this.next = (this.next + 1) % this.values.length;
    if (this.count < this.values.length) this.count++;
    this.sorted = undefined;
  }

  /** Nearest-rank quantile, q in (0, 1]; undefined before the first sample. */
  quantile(q: number): number | undefined {
    if (this.count === 0) return undefined;
    this.sorted ??= this.values.slice(0, this.count).sort();
    const rank = Math.min(this.count, Math.max(1, Math.ceil(q * this.count)));
    return this.sorted[rank - 1];
  }
}
