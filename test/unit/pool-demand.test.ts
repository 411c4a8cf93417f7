// How many contexts the pool prepares ahead (src/pool/demand.ts) and how it counts New Session's
// wait (src/pool/waits.ts): pure arithmetic on given times.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AHEAD_SECONDS, Demand, QUICK_TIME_CONSTANT_MS, RATE_TIME_CONSTANT_MS } from '../../src/pool/demand.ts';
import { LeaseWaits, WAIT_BUCKETS } from '../../src/pool/waits.ts';

/** New Sessions every `everyMs` from `from` for `forMs`; the time of the last. */
function arrivals(demand: Demand, from: number, everyMs: number, forMs: number): number {
  let t = from;
  for (; t < from + forMs; t += everyMs) demand.leased(t);
  return t - everyMs;
}

describe('the New Session rate the pool prepares for', () => {
  test('a steady rate reads as itself once it has lasted a few time constants', () => {
    const demand = new Demand();
    const last = arrivals(demand, 0, 250, 5 * RATE_TIME_CONSTANT_MS); // 4 a second
    assert.ok(Math.abs(demand.rate(last) - 4) < 0.3, String(demand.rate(last)));
  });

  test('it follows a suite that starts within seconds, and falls to nothing when it stops', () => {
    const demand = new Demand();
    const last = arrivals(demand, 0, 250, RATE_TIME_CONSTANT_MS);
    assert.ok(demand.rate(last) > 2, String(demand.rate(last))); // 1 − 1/e of 4
    assert.ok(demand.rate(last + 5 * RATE_TIME_CONSTANT_MS) < 0.05);
    assert.equal(demand.target(last + 5 * RATE_TIME_CONSTANT_MS), 0);
  });

  test('a lone New Session asks for nothing prepared ahead; a steady rate for rate × (preparation + ahead)', () => {
    const lone = new Demand();
    lone.leased(1000);
    assert.equal(lone.target(1000), 0);

    const steady = new Demand();
    const last = arrivals(steady, 0, 250, 5 * RATE_TIME_CONSTANT_MS);
    steady.prepared(500);
    const expected = Math.round(steady.rate(last) * (0.5 + AHEAD_SECONDS));
    assert.equal(steady.target(last), expected);
    assert.ok(expected >= 5 && expected <= 7, String(expected)); // ≈ 4 × 1.5
  });

  test('a suite that starts: the number prepared follows a quicker average than the sustained rate', () => {
    const demand = new Demand();
    demand.prepared(500);
    const last = arrivals(demand, 0, 250, QUICK_TIME_CONSTANT_MS); // 3 s at 4 a second
    assert.ok(demand.rate(last) < 1.2, String(demand.rate(last))); // sustained: 4 × (1 − e^−0.3)
    assert.ok(demand.target(last) >= 4, String(demand.target(last))); // quick: 4 × (1 − 1/e) ≈ 2.5, × 1.5 s
  });

  test('the preparation time follows the machine: the first measures replace the guess, later ones move it by a fifth', () => {
    const demand = new Demand();
    demand.prepared(800);
    assert.equal(demand.prepareMs, 800);
    demand.prepared(400);
    assert.equal(demand.prepareMs, 600);
    for (let i = 0; i < 50; i++) demand.prepared(100);
    assert.ok(demand.prepareMs < 101, String(demand.prepareMs));
  });

  test('when the last New Session came', () => {
    const demand = new Demand();
    assert.equal(demand.lastLease, -Infinity);
    demand.leased(1234);
    assert.equal(demand.lastLease, 1234);
  });
});

describe("New Session's wait for a context", () => {
  test('buckets are cumulative, in seconds; the percentiles are of the last waits, in ms', () => {
    const waits = new LeaseWaits();
    assert.deepEqual({ p50: waits.summary().p50Ms, p99: waits.summary().p99Ms, count: waits.summary().count }, { p50: null, p99: null, count: 0 });
    for (const ms of [0.4, 2, 3, 40, 700]) waits.add(ms);
    const summary = waits.summary();
    assert.equal(summary.count, 5);
    assert.ok(Math.abs(summary.sumSeconds - 0.7454) < 1e-9);
    const at = (le: number) => summary.buckets.find((b) => b.le === le)!.count;
    assert.deepEqual([at(0.001), at(0.0025), at(0.005), at(0.05), at(0.5), at(1), at(30)], [1, 2, 3, 4, 4, 5, 5]);
    assert.deepEqual(summary.buckets.map((b) => b.le), [...WAIT_BUCKETS]);
    assert.equal(summary.p50Ms, 3);
    assert.equal(summary.p99Ms, 700);
  });

  test('a wait past the last bucket counts only in the total (+Inf)', () => {
    const waits = new LeaseWaits();
    waits.add(45_000);
    assert.equal(waits.summary().buckets.at(-1)!.count, 0);
    assert.equal(waits.summary().count, 1);
  });

  test('the percentiles are of the last 200 waits', () => {
    const waits = new LeaseWaits();
    for (let i = 0; i < 200; i++) waits.add(1000);
    for (let i = 0; i < 200; i++) waits.add(1);
    assert.equal(waits.summary().p99Ms, 1);
    assert.equal(waits.summary().count, 400);
  });
});
