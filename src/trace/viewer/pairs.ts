// Two runs side by side, the pure part: the compare API's answer as the viewer reads it
// (GET /wdgate/sessions/{id}/compare, src/trace/runs/against-pass.ts), the aligned pair its first difference
// is at, and the pair to open at. Pure: it runs in the viewer's page and in the unit tests alike.
import { TraceError } from './model.ts';

/** The first difference (src/trace/runs/align.ts): step numbers are the traces' `n`. */
export interface FirstDifference {
  kind: string;
  failedStep?: number;
  passedStep?: number;
  text: string;
}

/** What the viewer takes of the compare API's answer. */
export interface Comparison {
  session: string;
  with: string | null;
  firstDifference?: FirstDifference;
  summary: string;
  /** Pairs of steps (failed, passed) in order; null where one run has no partner for the other's step. */
  aligned: [number | null, number | null][];
}

const stepNumber = (v: unknown) => v === null || (typeof v === 'number' && Number.isInteger(v) && v >= 0);

/** The API's JSON (its `value`), checked: anything else is a TraceError saying what is wrong. */
export function readComparison(json: unknown): Comparison {
  const value = (json as { value?: unknown } | null)?.value as Partial<Comparison> | undefined;
  if (!value || typeof value !== 'object' || typeof value.session !== 'string' || typeof value.summary !== 'string') throw new TraceError('the comparison the gateway answered is not one this viewer reads');
  if (!Array.isArray(value.aligned) || !value.aligned.every((pair) => Array.isArray(pair) && pair.length === 2 && pair.every(stepNumber) && !(pair[0] === null && pair[1] === null))) {
    throw new TraceError('the comparison the gateway answered has no aligned steps this viewer reads');
  }
  const first = value.firstDifference;
  return {
    session: value.session,
    with: typeof value.with === 'string' ? value.with : null,
    summary: value.summary,
    aligned: value.aligned,
    ...(first && typeof first.text === 'string' && { firstDifference: first }),
  };
}

/**
 * The pair the first difference is at: its failed step with its passed step; a step the failed
 * run lacks (`missing`) at the passed step's gap; a step the passed run lacks at the failed step's.
 */
export function differencePair(aligned: Comparison['aligned'], first: FirstDifference | undefined): number | undefined {
  if (!first) return undefined;
  const exact =
    first.kind === 'missing'
      ? aligned.findIndex(([f, p]) => f === null && p === first.passedStep)
      : aligned.findIndex(([f, p]) => f === (first.failedStep ?? null) && (first.passedStep === undefined || p === first.passedStep));
  if (exact >= 0) return exact;
  const near = aligned.findIndex(([f, p]) => (first.failedStep !== undefined && f === first.failedStep) || (first.passedStep !== undefined && p === first.passedStep));
  return near >= 0 ? near : undefined;
}

/** Where the side-by-side view opens: at the first difference, else the failed run's first failed step, else the first pair. */
export function openingPair(comparison: Comparison, failedWithError: ReadonlySet<number>): number {
  return differencePair(comparison.aligned, comparison.firstDifference) ?? Math.max(0, comparison.aligned.findIndex(([f]) => f !== null && failedWithError.has(f)));
}
