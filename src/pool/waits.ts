// New Session's wait for a context, per pool key: a cumulative histogram (what /metrics exposes)
// and the last waits (their median and 99th percentile, for the dashboard).

/** Upper bounds (seconds) of the histogram's buckets: a lease is a millisecond, a launch a second. */
export const WAIT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;
/** How many of the last waits the percentiles are taken over. */
const RECENT = 200;

export interface WaitSummary {
  /** Median and 99th percentile of the last waits (ms); null before the first. */
  p50Ms: number | null;
  p99Ms: number | null;
  /** Waits since the key was made: count, sum (seconds), and per bucket how many took at most `le` seconds. */
  count: number;
  sumSeconds: number;
  buckets: { le: number; count: number }[];
}

export class LeaseWaits {
  readonly #counts = WAIT_BUCKETS.map(() => 0);
  #count = 0;
  #sum = 0;
  readonly #recent: number[] = [];

  add(ms: number): void {
    const seconds = ms / 1000;
    this.#count++;
    this.#sum += seconds;
    const bucket = WAIT_BUCKETS.findIndex((le) => seconds <= le);
    if (bucket >= 0) this.#counts[bucket]!++;
    this.#recent.push(ms);
    if (this.#recent.length > RECENT) this.#recent.shift();
  }

  summary(): WaitSummary {
    const sorted = [...this.#recent].sort((a, b) => a - b);
    const at = (p: number) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! * 10) / 10 : null);
    let cumulative = 0;
    return {
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      count: this.#count,
      sumSeconds: this.#sum,
      buckets: WAIT_BUCKETS.map((le, i) => ({ le, count: (cumulative += this.#counts[i]!) })),
    };
  }
}
