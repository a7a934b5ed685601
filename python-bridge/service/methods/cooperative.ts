import { shuttingDown } from '../service-error.js';
import type { ServiceContext } from '../service-context.js';

/** How long a request computes before letting the event loop run (other sockets, pings, signals). */
const SLICE_MS = 10;

/**
 * Time slices for a batch: items are computed synchronously (each is bounded by the limits), and
 * between items, once a slice has run SLICE_MS, the loop yields with setImmediate so that I/O of
 * every other connection is served. A request still computing when shutdown stops waiting is
 * abandoned at its next yield and answered -32004.
 */
export class Slices {
  private started = performance.now();

  constructor(private readonly context: ServiceContext) {}

  /** True when the current slice is used up (then `await slices.next()`). */
  due(): boolean {
    return performance.now() - this.started >= SLICE_MS;
  }

  async next(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.context.abandoned) throw shuttingDown();
    this.started = performance.now();
  }
}

/** Maps items in time slices (see Slices). */
export async function mapInSlices<T, R>(context: ServiceContext, items: readonly T[], each: (item: T, index: number) => R): Promise<R[]> {
  const slices = new Slices(context);
  const out = new Array<R>(items.length);
  for (let i = 0; i < items.length; i++) {
    if (slices.due()) await slices.next();
    out[i] = each(items[i] as T, i);
  }
  return out;
}
