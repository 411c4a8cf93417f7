// How many contexts a pool key keeps prepared: in proportion to the recent rate of New Session.
// A context takes T seconds to prepare (a new window and its renderer); sessions that arrive at
// r per second find one ready only if about r·T are being prepared at any time (Little's law) and
// some more are ready for the next moments' arrivals: the key keeps r·(T + AHEAD) contexts
// prepared or in preparation, never fewer than its baseline (`pool.minWarm` for the default key).
// (For Poisson arrivals, r·T + 2·√(r·T) covers 97.5 % of the arrivals during one preparation:
// the same number within one, for rates of 1 to 5 a second and preparations of 0.3 to 1 s.)

/** The rate is averaged over about this long: what is called sustained churn (another browser may be launched for it). */
export const RATE_TIME_CONSTANT_MS = 10_000;
/** A faster average that the number prepared follows too, so that a suite that starts is followed within a few seconds. */
export const QUICK_TIME_CONSTANT_MS = 3_000;
/** Seconds of arrivals the key keeps ready beyond those that arrive while a context is prepared. */
export const AHEAD_SECONDS = 1;
/** A context's preparation, until one has been measured (a new page in a warm Chromium). */
const FIRST_PREPARE_MS = 250;

/**
 * Events per second, exponentially weighted over τ: each event adds 1/τ, and the sum decays by
 * e^(−Δt/τ). A steady rate λ reads λ; no events for a few τ read ≈ 0.
 */
class WeightedRate {
  #rate = 0;
  #at = 0;

  constructor(readonly tauMs: number) {}

  add(now: number): void {
    this.#rate = this.at(now) + 1000 / this.tauMs;
    this.#at = now;
  }

  at(now: number): number {
    return this.#rate * Math.exp(-(now - this.#at) / this.tauMs);
  }
}

export class Demand {
  readonly #sustained = new WeightedRate(RATE_TIME_CONSTANT_MS);
  readonly #quick = new WeightedRate(QUICK_TIME_CONSTANT_MS);
  #prepareMs = FIRST_PREPARE_MS;
  #prepared = 0;
  #lastLease = -Infinity;

  /** A New Session asked for a context at `now` (ms). */
  leased(now: number): void {
    this.#sustained.add(now);
    this.#quick.add(now);
    this.#lastLease = now;
  }

  /** A context took `ms` to prepare: the average follows the machine's load. */
  prepared(ms: number): void {
    this.#prepared++;
    // The first measures replace the guess at once; later ones move the average by a fifth.
    const weight = Math.max(0.2, 1 / this.#prepared);
    this.#prepareMs += (ms - this.#prepareMs) * weight;
  }

  /** New Sessions per second, sustained (over about RATE_TIME_CONSTANT_MS). */
  rate(now: number): number {
    return this.#sustained.at(now);
  }

  /** How long a context takes to prepare, recently (ms). */
  get prepareMs(): number {
    return this.#prepareMs;
  }

  /** When the last New Session asked (ms; -Infinity: never). */
  get lastLease(): number {
    return this.#lastLease;
  }

  /**
   * Contexts to keep prepared or in preparation for the rate alone: the sustained rate's, or the
   * quick one's while it is higher (a suite starting); rounded, so a lone session asks for none.
   */
  target(now: number): number {
    const rate = Math.max(this.#sustained.at(now), this.#quick.at(now));
    return Math.round(rate * (this.#prepareMs / 1000 + AHEAD_SECONDS));
  }
}
