// A token bucket per key: how often one principal may ask for something (New Session).

/**
 * At most `rate` events per second per key, with bursts of up to `rate` (a token bucket).
 * Keys that have been idle long enough to refill are forgotten, so the map stays small.
 */
export class RateLimit {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  constructor(readonly rate: number) {}

  /** Take one event for `key`; false if it is over the rate. */
  take(key: string, now = performance.now()): boolean {
    for (const [k, b] of this.#buckets) if (now - b.at > 1000 * 2) this.#buckets.delete(k);
    const bucket = this.#buckets.get(key) ?? { tokens: this.rate, at: now };
    bucket.tokens = Math.min(this.rate, bucket.tokens + ((now - bucket.at) / 1000) * this.rate);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
