import type { ChatMessage } from './chat-call.js';
import type { AttemptResult, JudgeEndpoint } from './judge-endpoint.js';
import { PrefixAffinity, type AffinityOutcome, type PrefixAffinityConfig, type PrefixAffinityStats, type PrefixKey } from './prefix-affinity.js';

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
  /** The call's prefix key (`prefixKey()`): routed by prefix affinity when that is on. */
  readonly prefix?: PrefixKey | undefined;
}

interface Waiter extends SlotRequest {
  readonly seq: number;
}

interface Deferred {
  readonly waiter: Waiter;
  /** Blocks of its prefix known on its preferred endpoint: what moving it elsewhere loses. */
  readonly blocks: number;
  /** Its preferred endpoint is full, or out of balance with the others. */
  readonly why: 'full' | 'unbalanced';
}

/** Where a waiter goes, and why; or that it waits for its preferred endpoint's next slot. */
type Pick = { readonly endpoint: JudgeEndpoint; readonly how: AffinityOutcome } | { readonly wait: number; readonly why: 'full' | 'unbalanced' } | undefined;

/**
 * Least-outstanding routing with a waiting line. A waiter gets the endpoint with the fewest
 * outstanding requests (ties: least recently used) among those that accept traffic and have a
 * free slot; when none has, it waits for a slot, an ejection's end or a Retry-After's end.
 * With prefix affinity (prefix-affinity.ts), a waiter whose prefix was sent to an endpoint that
 * is still usable and in balance goes there, or waits for its next slot; a slot left free after
 * that goes to the waiting call with the least cached prefix to lose (a free slot never idles
 * while calls wait).
 */
export class EndpointRouter {
  private readonly waiters: Waiter[] = [];
  private seq = 0;
  private order = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private pumping = false;
  private pumpAgain = false;
  /**
   * Set while calls arrive in one turn of the event loop: slots are not given to calls away from
   * their preferred endpoint until the turn ends, so a burst (a response's criteria, a batch of
   * rows) is all in line before one of its calls is moved to an idle endpoint.
   */
  private burst: NodeJS.Immediate | undefined;

  private readonly affinity: PrefixAffinity<JudgeEndpoint> | undefined;

  constructor(
    readonly endpoints: readonly JudgeEndpoint[],
    private readonly now: () => number,
    affinity?: PrefixAffinityConfig,
  ) {
    // One endpoint has nothing to choose between.
    this.affinity = affinity?.enabled === true && endpoints.length >= 2 ? new PrefixAffinity(affinity, endpoints) : undefined;
  }

  /** The prefix key of a call's messages; undefined when prefix affinity is off. */
  prefixKey(messages: readonly ChatMessage[]): PrefixKey | undefined {
    return this.affinity?.keyOf(messages);
  }

  /** Prefix affinity's counts; undefined when it is off. */
  affinityInfo(): (PrefixAffinityStats & { readonly entries: number }) | undefined {
    return this.affinity?.info();
  }

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
    if (this.affinity !== undefined && this.burst === undefined) {
      this.burst = setImmediate(() => {
        this.burst = undefined;
        this.pump();
      });
    }
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
    const deferred: Deferred[] = [];
    const lookahead = this.affinity?.config.lookahead ?? Infinity;
    for (const e of this.endpoints) e.refreshLoad();
    for (let i = 0; i < this.waiters.length; ) {
      // Panic (Envoy's panic threshold, at 0 healthy): when every endpoint's breaker has it
      // ejected (or its one probe is out), requests go to them anyway, each after its own backoff.
      // Waiting for probes would stall every call behind one endpoint's flakiness: a lone
      // endpoint answering every other request with a 5xx is not dead, and it is all there is.
      const panic = !this.endpoints.some((e) => e.breakerAdmits(now));
      if (!this.endpoints.some((e) => e.hasCapacity() && (panic ? !e.resting(now) : e.acceptsTraffic(now)))) break;
      const waiter = this.waiters[i] as Waiter;
      const choice = this.pick(waiter, now, panic, true);
      if (choice === undefined) {
        i++;
        continue;
      }
      if ('wait' in choice) {
        // Its preferred endpoint is full or out of balance: younger calls may have the other
        // slots; which waiting call goes elsewhere is decided below.
        deferred.push({ waiter, blocks: choice.wait, why: choice.why });
        if (deferred.length >= lookahead) break;
        i++;
        continue;
      }
      this.waiters.splice(i, 1);
      this.grant(waiter, choice.endpoint, choice.how, now, panic);
    }
    // Slots still free: first to deferred calls whose prefix just went to an endpoint with room
    // (a moved call's followers), then to the one with the least known prefix to lose, oldest
    // first, least-outstanding: a new rollout's first request moves, not a started response's.
    while (this.burst === undefined && deferred.length > 0 && this.endpoints.some((e) => e.hasCapacity() && e.acceptsTraffic(now))) {
      let least: Deferred | undefined;
      for (let j = 0; j < deferred.length; ) {
        const d = deferred[j] as Deferred;
        // A grant above may have ended calls that withdrew from the line.
        const at = this.waiters.indexOf(d.waiter);
        const choice = at < 0 ? undefined : this.pick(d.waiter, now, false, true);
        if (choice === undefined || !('wait' in choice)) {
          deferred.splice(j, 1);
          if (choice !== undefined) {
            this.waiters.splice(at, 1);
            this.grant(d.waiter, choice.endpoint, choice.how, now, false);
          }
          continue;
        }
        const fresh = { waiter: d.waiter, blocks: choice.wait, why: choice.why };
        deferred[j] = fresh;
        if (least === undefined || fresh.blocks < least.blocks) least = fresh;
        j++;
      }
      if (least === undefined || !this.endpoints.some((e) => e.hasCapacity() && e.acceptsTraffic(now))) break;
      deferred.splice(deferred.indexOf(least), 1);
      const choice = this.pick(least.waiter, now, false, false);
      if (choice === undefined || 'wait' in choice) continue;
      this.waiters.splice(this.waiters.indexOf(least.waiter), 1);
      this.grant(least.waiter, choice.endpoint, least.why === 'unbalanced' ? 'unbalanced' : 'moved', now, false);
    }
    this.armTimer(now);
  }

  private grant(waiter: Waiter, endpoint: JudgeEndpoint, how: AffinityOutcome, now: number, panic: boolean): void {
    const order = ++this.order;
    const probe = endpoint.dispatch(now, order, panic);
    this.affinity?.record(waiter.prefix, endpoint, how);
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

  private pick(waiter: Waiter, now: number, panic: boolean, useAffinity: boolean): Pick {
    let usable = this.endpoints.filter((e) => !waiter.exclude.has(e) && (panic ? !e.resting(now) : e.acceptsTraffic(now)));
    if (waiter.avoid.size > 0) {
      const others = usable.filter((e) => !waiter.avoid.has(e));
      if (others.length > 0) usable = others;
    }
    let how: AffinityOutcome = 'no-key';
    // Never in panic: then every endpoint is ejected, and any answer is worth more than a cache hit.
    if (useAffinity && !panic && this.affinity !== undefined) {
      const choice = this.affinity.choose(waiter.prefix, usable);
      if (choice.kind === 'go') return { endpoint: choice.endpoint, how: 'followed' };
      if (choice.kind === 'wait') return { wait: choice.blocks, why: choice.why };
      how = choice.why;
    }
    let best: JudgeEndpoint | undefined;
    for (const e of usable) {
      if (!e.hasCapacity()) continue;
      if (best === undefined || e.load() < best.load() || (e.load() === best.load() && e.lastUsed < best.lastUsed)) best = e;
    }
    return best === undefined ? undefined : { endpoint: best, how };
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
    if (this.burst !== undefined) clearImmediate(this.burst);
    this.burst = undefined;
    this.waiters.length = 0;
  }
}
