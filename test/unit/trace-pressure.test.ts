// The gate for a trace's optional pictures (src/trace/pressure.ts): closed while the CPU pressure
// the kernel reports is high, open again when it falls; a slot per picture, resting after each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PictureGate } from '../../src/trace/pressure.ts';

/** A pressure file as Linux writes it, `total` µs of stall so far; a clock the test turns. */
function machine() {
  const dir = mkdtempSync(join(tmpdir(), 'wdgate-pressure-'));
  const file = join(dir, 'cpu.pressure');
  let stalledUs = 0;
  let now = 1000;
  const write = () => writeFileSync(file, `some avg10=0.00 avg60=0.00 avg300=0.00 total=${stalledUs}\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n`);
  write();
  return {
    sources: [join(dir, 'absent'), file],
    clock: () => now,
    /** `ms` pass, a task waiting for a CPU during `share` of them. */
    pass(ms: number, share: number) {
      now += ms;
      stalledUs += ms * 1000 * share;
      write();
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

test('pictures are let through while the CPU pressure is low, not while tasks wait for a CPU most of the time', async () => {
  const m = machine();
  try {
    const gate = new PictureGate({ slots: 2, sources: m.sources, sampleMs: 100, now: m.clock });
    await gate.sample(); // the baseline
    m.pass(500, 0.1);
    await gate.sample();
    assert.equal(gate.busy, false);
    const release = gate.acquire();
    assert.ok(release, 'a slot while the machine has room');
    release();
    m.pass(500, 0.9);
    await gate.sample();
    assert.equal(gate.busy, true);
    assert.equal(gate.acquire(), undefined, 'no picture while the machine is busy');
    m.pass(500, 0.2);
    await gate.sample();
    assert.equal(gate.busy, false);
    assert.ok(gate.acquire(), 'open again');
    // After a long quiet gap a reading only sets the baseline: the judgement stays as it was.
    m.pass(60_000, 0.9);
    await gate.sample();
    assert.equal(gate.busy, false);
  } finally {
    m.remove();
  }
});

test('one picture per slot at a time; a slot rests nine times as long as its picture took, then serves again', async () => {
  const m = machine();
  try {
    const gate = new PictureGate({ slots: 1, sources: m.sources, sampleMs: 100, now: m.clock });
    await gate.sample();
    const first = gate.acquire();
    assert.ok(first);
    assert.equal(gate.acquire(), undefined, 'the only slot is taken');
    m.pass(50, 0); // the picture takes 50 ms
    first();
    first(); // twice is once
    m.pass(449, 0);
    assert.equal(gate.acquire(), undefined, 'resting (450 ms)');
    m.pass(2, 0);
    const next = gate.acquire();
    assert.ok(next, 'served again once rested');
    next();
  } finally {
    m.remove();
  }
});
