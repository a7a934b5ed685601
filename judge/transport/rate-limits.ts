import Bottleneck from 'bottleneck';

/** How often the token buckets refill (Bottleneck's heartbeat runs every 250 ms). */
const REFILL_MS = 250;

/**
 * A token bucket of `perMinute` tokens, full at start, refilled continuously (what verl's
 * RateLimitedRewardManager does with its AsyncTokenBucket), on Bottleneck's reservoir.
 */
function tokenBucket(perMinute: number): Bottleneck {
  return new Bottleneck({
    reservoir: perMinute,
    reservoirIncreaseAmount: (perMinute * REFILL_MS) / 60_000,
    reservoirIncreaseInterval: REFILL_MS,
    reservoirIncreaseMaximum: perMinute,
  });
}

/**
 * Per-endpoint requests-per-minute and tokens-per-minute limits for hosted APIs. A request is
 * charged `estimatedTokens` at admission; settle() corrects by the reply's real usage.
 */
export class EndpointRateLimits {
  private readonly rpm: Bottleneck | undefined;
  private readonly tpm: Bottleneck | undefined;
  private readonly tpmMax: number;
  private readonly charge: number;

  constructor(limits: { rpm?: number | undefined; tpm?: number | undefined }, estimatedTokens: number) {
    this.rpm = limits.rpm === undefined ? undefined : tokenBucket(limits.rpm);
    this.tpm = limits.tpm === undefined ? undefined : tokenBucket(limits.tpm);
    this.tpmMax = limits.tpm ?? 0;
    // A charge above the bucket's size would never be admitted.
    this.charge = limits.tpm === undefined ? 0 : Math.min(estimatedTokens, limits.tpm);
  }

  get limited(): boolean {
    return this.rpm !== undefined || this.tpm !== undefined;
  }

  /** Waits for a request slot and the estimated tokens; returns the tokens charged. */
  async admit(): Promise<number> {
    if (this.rpm !== undefined) await this.rpm.schedule({ weight: 1 }, () => Promise.resolve());
    if (this.tpm === undefined) return 0;
    await this.tpm.schedule({ weight: this.charge }, () => Promise.resolve());
    return this.charge;
  }

  /** The reply used `usedTokens`: take the difference to the charge (or give it back, up to the bucket's size). */
  async settle(charged: number, usedTokens: number): Promise<void> {
    if (this.tpm === undefined || charged === 0) return;
    const diff = charged - usedTokens;
    if (diff === 0) return;
    const current = (await this.tpm.currentReservoir()) ?? 0;
    await this.tpm.incrementReservoir(diff > 0 ? Math.min(diff, this.tpmMax - current) : diff);
  }

  async stop(): Promise<void> {
    await Promise.all([this.rpm?.disconnect(), this.tpm?.disconnect()]);
  }
}
