// Two runs compared inside the gateway (the compare API, a failed session's transcript.md): the
// pure comparison (./align.ts) run a slice at a time, other sessions' commands running between
// slices, and given up past a deadline.
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { comparing, type Comparison, type RunTrace } from './align.ts';

/** Most time the comparison holds the gateway's thread before letting other work run (ms). */
const SLICE_MS = 10;

/** compareRuns, sharing the thread; undefined once `deadline` (ms since the epoch) has passed. */
export async function compareWithin(failed: RunTrace, passed: RunTrace, deadline: number): Promise<Comparison | undefined> {
  const steps = comparing(failed, passed);
  let slice = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - slice < SLICE_MS) continue;
    await yieldToOthers();
    if (Date.now() > deadline) return undefined;
    slice = performance.now();
  }
}
