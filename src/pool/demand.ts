// How many contexts a pool key keeps prepared: in proportion to the recent rate of New Session.
// A context takes T seconds to prepare (a new window and its renderer); sessions that arrive at
// r per second find one ready only if about r·T are being prepared at any time (Little's law) and
// some more are ready for the next moments' arrivals: the key keeps r·(T + AHEAD) contexts
// prepared or in preparation, never fewer than its baseline (`pool.minWarm` for the default key).

/** Rates and durations are averaged over about this long: a suite that starts is followed within seconds. */
export const RATE_TIME_CONSTANT_MS = 10_000;
/** Seconds of arrivals the key keeps ready beyond those that arrive while a context is prepared. */
export const AHEAD_SECONDS = 1;
/** A context's preparation, until one has been measured (a new page in a warm Chromium). */
const FIRST_PREPARE_MS = 250;

/**
 * New Sessions per second, an exponentially weighted rate: each lease adds 1/τ, and the sum
 * decays by e^(−Δt/τ). A steady rate λ reads λ; no leases for a few τ read ≈ 0.
 */
export class Demand {
  #rate = 0;
  #at = 0;
  #prepareMs = FIRST_PREPARE_MS;
  #prepared = 0;
  #lastLease = -Infinity;

  /** A New Session asked for a context at `now` (ms). */
  leased(now: number): void {
    this.#rate = this.rate(now) + 1000 / RATE_TIME_CONSTANT_MS;
    this.#at = now;
    this.#lastLease = now;
  }

  /** A context took `ms` to prepare: the average follows the machine's load. */
  prepared(ms: number): void {
    this.#prepared++;
    // The first measures replace the guess at once; later ones move the average by a fifth.
    const weight = Math.max(0.2, 1 / this.#prepared);
    this.#prepareMs += (ms - this.#prepareMs) * weight;
  }

  /** New Sessions per second, recently. */
  rate(now: number): number {
    return this.#rate * Math.exp(-(now - this.#at) / RATE_TIME_CONSTANT_MS);
  }

  /** How long a context takes to prepare, recently (ms). */
  get prepareMs(): number {
    return this.#prepareMs;
  }

  /** When the last New Session asked (ms; -Infinity: never). */
  get lastLease(): number {
    return this.#lastLease;
  }

  /** Contexts to keep prepared or in preparation for the rate alone (rounded: a lone session asks for none). */
  target(now: number): number {
    return Math.round(this.rate(now) * (this.#prepareMs / 1000 + AHEAD_SECONDS));
  }
}
