// What a test's recent runs say of it (issue 34; BrowserStack's Smart Tags are the model): flaky,
// a new failure, always failing, fixed, or stable. One verdict per test, the most telling first.
// Pure.

export type RunResult = 'passed' | 'failed' | 'skipped' | 'unknown';

/** One ended session of a test, as the index keeps it. */
export interface Run {
  id: string;
  build?: string;
  result: RunResult;
  /** Start, ms since the epoch: runs are ordered by it. */
  startedAt: number;
  /** The failure that made it fail: the W3C code and the command that answered it. */
  failure?: { code: string; command: string; message: string };
  /** A failure the client reported (no W3C failure): its reason, as reported. */
  reason?: string;
  /** Its trace is kept (a comparison can be made with it). */
  trace: boolean;
}

/** The verdicts, the most telling first (the order tests are listed in). */
export const VERDICTS = ['new failure', 'always failing', 'flaky', 'fixed', 'stable'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Runs looked at for flakiness and "always failing" (history.verdictWindow). */
export const DEFAULT_WINDOW = 10;
/** Runs before a failure in which its error must not have been seen for it to be new. */
const NEW_FAILURE_LOOKBACK = 5;

/** The error of a failed run as failures are grouped: W3C code and failing command. */
export function errorKey(run: Run): string | undefined {
  if (run.result !== 'failed') return undefined;
  return run.failure ? `${run.failure.code} in ${run.failure.command}` : 'failed (reported)';
}

/**
 * The verdict of a test over its runs (any order), as of its newest run:
 * - **flaky**, when the newest run's build both passed and failed (a retry passed: that says more
 *   than whether the error is new);
 * - **new failure**: the newest run failed, and its error (code and command) is not among the
 *   errors of the 5 runs before it;
 * - **flaky**: within the window, one build both passed and failed, or the result flipped between
 *   consecutive runs more often than half the window's pairs;
 * - **always failing**: the newest run failed, and so did every run since the test last passed
 *   (two at least): it fails every time now;
 * - **flaky** too: the newest run failed alone, after a pass, with an error seen before (the
 *   same failure comes and goes);
 * - **fixed**: the newest run passed, the one before failed;
 * - **stable**: it passes.
 * A test whose newest run failed is never stable. Runs that were skipped or ended without a
 * result do not count.
 */
export function verdictOf(all: readonly Run[], window = DEFAULT_WINDOW): Verdict {
  const runs = all.filter((run) => run.result === 'passed' || run.result === 'failed').sort((a, b) => a.startedAt - b.startedAt);
  const newest = runs.at(-1);
  if (!newest) return 'stable';
  if (newest.build !== undefined && new Set(runs.filter((run) => run.build === newest.build).map((run) => run.result)).size > 1) return 'flaky';
  if (newest.result === 'failed') {
    const before = runs.slice(-1 - NEW_FAILURE_LOOKBACK, -1);
    const key = errorKey(newest);
    if (!before.some((run) => errorKey(run) === key)) return 'new failure';
  }
  const recent = runs.slice(-window);
  if (isFlaky(recent)) return 'flaky';
  if (newest.result === 'failed') return runs.at(-2)?.result === 'failed' ? 'always failing' : 'flaky';
  if (recent.at(-2)?.result === 'failed') return 'fixed';
  return 'stable';
}

function isFlaky(runs: readonly Run[]): boolean {
  const byBuild = new Map<string, Set<RunResult>>();
  for (const run of runs) {
    if (run.build === undefined) continue;
    const results = byBuild.get(run.build) ?? new Set();
    results.add(run.result);
    byBuild.set(run.build, results);
  }
  if ([...byBuild.values()].some((results) => results.size > 1)) return true;
  let flips = 0;
  for (let i = 1; i < runs.length; i++) if (runs[i]!.result !== runs[i - 1]!.result) flips++;
  return runs.length > 2 && flips > (runs.length - 1) / 2;
}
