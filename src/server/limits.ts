// Limits on what one request may make the gateway do, checked before the work starts.

/**
 * Does this JSON text open more than `max` arrays and objects inside each other? Counted on the
 * raw text (outside strings) before parsing, so a hostile body never reaches a recursive walk.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

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
