import type { AttemptResult, JudgeEndpoint } from './judge-endpoint.js';

/** A slot on one endpoint, held for one HTTP attempt. */
export interface Lease {
  readonly endpoint: JudgeEndpoint;
  /** This attempt is the breaker's half-open probe. */
  readonly probe: boolean;
  /** Gives the slot back; call exactly once. */
  release(result: AttemptResult): void;
}

export interface SlotRequest {
  /** Lower goes first: a call's start time, so retries and hedges of older calls go before new calls. */
  readonly priority: number;
  /** Endpoints to use only when no other accepts traffic (where this call already failed). */
  readonly avoid: ReadonlySet<JudgeEndpoint>;
  /** Endpoints never to use (where this call's other copy runs). */
  readonly exclude: ReadonlySet<JudgeEndpoint>;
  readonly granted: (lease: Lease) => void;
}

interface Waiter extends SlotRequest {
  readonly seq: number;
}

/**
 * Least-outstanding routing with a waiting line. A waiter gets the endpoint with the fewest
 * outstanding requests (ties: least recently used) among those that accept traffic and have a
 * free slot; when none has, it waits for a slot, an ejection's end or a Retry-After's end.
 */
export class EndpointRouter {
  private readonly waiters: Waiter[] = [];
  private seq = 0;
  private order = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private pumping = false;
  private pumpAgain = false;

  constructor(
    readonly endpoints: readonly JudgeEndpoint[],
    private readonly now: () => number,
  ) {}

  get waiting(): number {
    return this.waiters.length;
  }

  /** Queues a request for a slot; the returned function withdraws it if not yet granted. */
  request(req: SlotRequest): () => void {
    const waiter: Waiter = { ...req, seq: this.seq++ };
    // Keep the line sorted by (priority, seq): binary search for the insertion point.
    let lo = 0;
    let hi = this.waiters.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const w = this.waiters[mid] as Waiter;
      if (w.priority < waiter.priority || (w.priority === waiter.priority && w.seq < waiter.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.waiters.splice(lo, 0, waiter);
    this.pump();
    return () => {
      const i = this.waiters.indexOf(waiter);
      if (i >= 0) this.waiters.splice(i, 1);
    };
  }

  /** Hands free slots to waiters, in line order. */
  pump(): void {
    // Leases granted inside the loop can release synchronously; run one loop at a time.
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        this.pumpOnce();
      } while (this.pumpAgain);
    } finally {
      this.pumping = false;
    }
  }

  private pumpOnce(): void {
    const now = this.now();
    for (const e of this.endpoints) e.refreshLoad();
    for (let i = 0; i < this.waiters.length; ) {
      // Panic (Envoy's panic threshold, at 0 healthy): when every endpoint's breaker has it
      // ejected (or its one probe is out), requests go to them anyway, each after its own backoff.
      // Waiting for probes would stall every call behind one endpoint's flakiness: a lone
      // endpoint answering every other request with a 5xx is not dead, and it is all there is.
      const panic = !this.endpoints.some((e) => e.breakerAdmits(now));
      if (!this.endpoints.some((e) => e.hasCapacity() && (panic ? !e.resting(now) : e.acceptsTraffic(now)))) break;
      const waiter = this.waiters[i] as Waiter;
      const endpoint = this.pick(waiter, now, panic);
      if (endpoint === undefined) {
        i++;
        continue;
      }
      this.waiters.splice(i, 1);
      const order = ++this.order;
      const probe = endpoint.dispatch(now, order, panic);
      let released = false;
      waiter.granted({
        endpoint,
        probe,
        release: (result) => {
          if (released) return;
          released = true;
          endpoint.finish(probe, result, order, panic);
          this.pump();
        },
      });
    }
    this.armTimer(now);
  }

  private pick(waiter: Waiter, now: number, panic: boolean): JudgeEndpoint | undefined {
    let usable = this.endpoints.filter((e) => !waiter.exclude.has(e) && (panic ? !e.resting(now) : e.acceptsTraffic(now)));
    if (waiter.avoid.size > 0) {
      const others = usable.filter((e) => !waiter.avoid.has(e));
      if (others.length > 0) usable = others;
    }
    let best: JudgeEndpoint | undefined;
    for (const e of usable) {
      if (!e.hasCapacity()) continue;
      if (best === undefined || e.load() < best.load() || (e.load() === best.load() && e.lastUsed < best.lastUsed)) best = e;
    }
    return best;
  }

  /** Wakes the line when an ejection or a Retry-After ends while someone waits. */
  private armTimer(now: number): void {
    if (this.waiters.length === 0) {
      this.clearTimer();
      return;
    }
    let at = Infinity;
    for (const e of this.endpoints) at = Math.min(at, e.wakeAt(now) ?? Infinity);
    if (at === Infinity || at >= this.timerAt) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(0, at - now));
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  close(): void {
    this.clearTimer();
    this.waiters.length = 0;
  }
}
