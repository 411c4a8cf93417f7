// A failed run against a passing run of its test, from the history on disk: the compare API's
// answer (GET /wdgate/sessions/{id}/compare), and the paragraph transcript.md ends with ("Since
// the last pass"). Both compare a slice at a time (./compare.ts), off every command's path.
import type { Logger } from '../../base/log.ts';
import type { Principal } from '../../base/principal.ts';
import { error } from '../../webdriver/errors.ts';
import type { HistoryEntry, HistoryStore } from '../store.ts';
import type { SinceLastPass } from '../transcript.ts';
import { compareWithin } from './compare.ts';
import { differenceSummary, type Difference, type RunTrace, type TestRuns } from './index.ts';
import { loadRunTrace } from './load.ts';

/** How long a failed session's entry waits for its comparison with the test's last pass (transcript.md's paragraph). */
const SINCE_DEADLINE_MS = 5000;
/** How long the compare API compares (a slice at a time, other work between). */
const COMPARE_DEADLINE_MS = 30_000;

export interface CompareAnswer {
  session: string;
  with: string | null;
  firstDifference?: Difference;
  summary: string;
  aligned: [number | null, number | null][];
  links: Record<string, string>;
}

/**
 * A failed session against a passing run of its test (`withId`, or by default the newest passing
 * run before it that has a trace): the steps aligned, the first that differs. With nothing to
 * compare (an unnamed session, no passing run kept), `with` is null and `summary` says why.
 */
export async function compareWithPass(store: HistoryStore, runs: TestRuns, id: string, principal: Principal, withId?: string): Promise<CompareAnswer> {
  const failed = store.get(id);
  if (!failed || (!principal.admin && failed.principal !== principal.name)) throw error('invalid session id', `no session ${id} in the history`);
  const otherId = withId ?? runs.lastPassedBefore(id)?.id;
  const nothing = (summary: string): CompareAnswer => ({ session: id, with: null, summary, aligned: [], links: {} });
  if (otherId === undefined) {
    const test = runs.testOf(id);
    return nothing(test ? `no earlier passing run of "${test.name}" with a trace to compare with` : `session ${id} has no name: only a named test's runs are compared`);
  }
  const passed = store.get(otherId);
  if (!passed || (!principal.admin && passed.principal !== principal.name)) throw error('invalid argument', `with: no session ${otherId} in the history`);
  const [a, b] = [store.path(id, 'trace.zip'), store.path(otherId, 'trace.zip')];
  if (!a || !b) return nothing(`${!a ? id : otherId} has no trace kept to compare`);
  const comparison = await compareWithin(await loadRunTrace(a), await loadRunTrace(b), Date.now() + COMPARE_DEADLINE_MS);
  if (!comparison) throw error('timeout', `the comparison of ${id} with ${otherId} took longer than ${COMPARE_DEADLINE_MS / 1000} s`);
  return {
    session: id,
    with: otherId,
    ...(comparison.first && { firstDifference: comparison.first }),
    summary: differenceSummary(comparison.first),
    aligned: comparison.aligned,
    links: { viewer: `/ui/trace?session=${id}&compare=${otherId}`, passed: `/wdgate/sessions/${otherId}` },
  };
}

/**
 * For a failed run of a test whose last pass kept its trace: the comparison with that pass, which
 * transcript.md ends with (docs/traces.md), made after the session ended; done within
 * SINCE_DEADLINE_MS or the paragraph is left out. Nothing to compare with (no name, no earlier
 * pass with a trace): undefined.
 */
export function sinceLastPass(store: HistoryStore, runs: TestRuns, log: Logger, entry: Omit<HistoryEntry, 'files' | 'bytes'>): ((run: RunTrace) => Promise<SinceLastPass | undefined>) | undefined {
  if (entry.result !== 'failed') return undefined;
  const passed = runs.lastPassedBeforeEnded({ ...entry, trace: true })?.id;
  const path = passed && store.path(passed, 'trace.zip');
  if (!passed || !path) return undefined;
  return async (run) => {
    const deadline = Date.now() + SINCE_DEADLINE_MS;
    const comparison = await loadRunTrace(path).then(
      (baseline) => (Date.now() > deadline ? undefined : compareWithin(run, baseline, deadline)),
      (e: Error) => e.message,
    );
    if (typeof comparison === 'object') return { session: passed, first: comparison.first };
    log.info({ event: 'comparison with the last pass left out', sessionId: entry.id, reason: comparison ?? `not done within ${SINCE_DEADLINE_MS} ms` });
    return undefined;
  };
}
