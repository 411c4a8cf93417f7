// Which picture and DOM a step shows Before, as it acted (Action) and After it (docs/traces.md,
// "Before, action, after"), the session's screenshots along its timeline (the filmstrip), and how
// the element a command addressed and its pointer's point are drawn over them. Pure: it runs in the
// viewer's page and in the unit tests alike.
import type { ActionCapture, Box, Capture, TraceStep, Viewport } from './model.ts';

export type Phase = 'before' | 'action' | 'after';
export const PHASES: readonly Phase[] = ['before', 'action', 'after'];

/** A file shown for a step, and whose capture it is: the step itself (`from` = its n, `phase`), or an earlier one. */
export interface Shown {
  path: string;
  from: number;
  phase: Phase;
}

/** What a step shows in one phase. */
export interface PhaseView {
  screenshot?: Shown;
  snapshot?: Shown;
  viewport?: Viewport;
  element?: ActionCapture['element'];
  point?: { x: number; y: number };
  /** Why there is no picture: the page was captured (its DOM) after the latest picture, without one. */
  missing?: string;
}

/**
 * Whether a step leaves the page as the capture before it found it: a marker or a client's event,
 * or a classic command with no capture of its own and no reason for lacking one (the recorder
 * captures after every classic command that can change the page, or says why it could not). A
 * BiDi message or a forwarded request may have changed the page unseen; a failed capture too.
 */
function leavesPage(step: TraceStep): boolean {
  if (step.kind === 'marker' || step.kind === 'event') return true;
  return step.kind === 'command' && !step.screenshot && !step.snapshot && step.captureError === undefined;
}

/**
 * The page before a step ran: its own `before` capture, else the after capture of the nearest
 * earlier step when no step between could have changed the page (an after capture is taken once
 * the page settled, right before the session's next command runs: it is that command's before).
 */
export function beforeOf(steps: readonly TraceStep[], n: number): PhaseView {
  const at = steps.findIndex((s) => s.n === n);
  const step = steps[at];
  if (!step) return {};
  if (step.before && (step.before.screenshot || step.before.snapshot)) return own(step.before, n, 'before');
  for (let i = at - 1; i >= 0; i--) {
    const earlier = steps[i]!;
    if (earlier.screenshot || earlier.snapshot) return after(earlier);
    if (!leavesPage(earlier)) return {};
  }
  return {};
}

/**
 * The page after a step: its own capture, else (a step that changed nothing) the latest before it,
 * field by field — but no picture older than the latest DOM when that capture went without one
 * (it would show another page): then `missing` says why.
 */
export function afterOf(steps: readonly TraceStep[], n: number): PhaseView {
  const view: PhaseView = {};
  for (let i = steps.findIndex((s) => s.n === n); i >= 0 && !(view.screenshot && view.snapshot); i--) {
    const step = steps[i]!;
    if (!view.screenshot && view.missing === undefined && step.screenshot) view.screenshot = { path: step.screenshot, from: step.n, phase: 'after' };
    if (!view.snapshot && step.snapshot) view.snapshot = { path: step.snapshot, from: step.n, phase: 'after' };
    if (!view.screenshot && step.snapshot && step.noScreenshot !== undefined && view.snapshot?.from === step.n) view.missing = step.noScreenshot;
    if (!view.viewport && (step.screenshot || step.snapshot) && step.viewport) view.viewport = step.viewport;
    if (view.missing !== undefined) break;
  }
  return view;
}

/** The page as the command acted: its action capture (each file absent: the before's), with the element and the point. */
export function actionOf(steps: readonly TraceStep[], n: number): PhaseView {
  const step = steps.find((s) => s.n === n);
  const action = step?.action;
  if (!action) return {};
  const before = beforeOf(steps, n);
  return {
    screenshot: action.screenshot ? { path: action.screenshot, from: n, phase: 'action' } : before.screenshot,
    snapshot: action.snapshot ? { path: action.snapshot, from: n, phase: 'action' } : before.snapshot,
    ...((action.viewport ?? before.viewport) && { viewport: action.viewport ?? before.viewport }),
    ...(action.element && { element: action.element }),
    ...(action.point && { point: action.point }),
  };
}

export function phaseOf(steps: readonly TraceStep[], n: number, phase: Phase): PhaseView {
  return phase === 'before' ? beforeOf(steps, n) : phase === 'action' ? actionOf(steps, n) : afterOf(steps, n);
}

function own(capture: Capture, n: number, phase: Phase): PhaseView {
  return {
    ...(capture.screenshot && { screenshot: { path: capture.screenshot, from: n, phase } }),
    ...(capture.snapshot && { snapshot: { path: capture.snapshot, from: n, phase } }),
    ...(capture.viewport && { viewport: capture.viewport }),
  };
}

const after = (step: TraceStep): PhaseView => own(step, step.n, 'after');

// ── The filmstrip ────────────────────────────────────────────────────────────────────────────

/** A screenshot of the session at its time: a step's before and action captures at its start, its after capture at its end. */
export interface FilmFrame {
  path: string;
  at: number;
  n: number;
  phase: Phase;
}

/** Every screenshot of the session in time order, a picture repeated by the next one left out (nothing changed). */
export function filmstrip(steps: readonly TraceStep[]): FilmFrame[] {
  const frames: FilmFrame[] = [];
  for (const step of steps) {
    if (step.before?.screenshot) frames.push({ path: step.before.screenshot, at: step.startedAt, n: step.n, phase: 'before' });
    if (step.action?.screenshot) frames.push({ path: step.action.screenshot, at: step.startedAt, n: step.n, phase: 'action' });
    if (step.screenshot) frames.push({ path: step.screenshot, at: step.startedAt + (step.durationMs ?? 0), n: step.n, phase: 'after' });
  }
  // Stable: a step's before, action and after stay in that order.
  const sorted = frames.map((f, i) => [f, i] as const).sort((a, b) => a[0].at - b[0].at || a[1] - b[1]).map(([f]) => f);
  return sorted.filter((f, i) => i === 0 || f.path !== sorted[i - 1]!.path);
}

/** The strip's span: from the first step's start to the last one's end (at least 1 ms). */
export function timeline(steps: readonly TraceStep[]): { start: number; end: number } {
  const start = Math.min(...steps.map((s) => s.startedAt));
  const end = Math.max(...steps.map((s) => s.startedAt + (s.durationMs ?? 0)));
  if (!Number.isFinite(start)) return { start: 0, end: 1 };
  return { start, end: Math.max(end, start + 1) };
}

/**
 * Where each thumbnail goes (px from the strip's left): at its time, or right after the one before
 * it when they would overlap, so that every screenshot is seen; the strip is as wide as it takes.
 */
export function layoutStrip(frames: readonly FilmFrame[], span: { start: number; end: number }, width: number, thumb: number, gap = 2): number[] {
  const room = Math.max(1, width - thumb);
  let next = 0;
  return frames.map((f) => {
    const x = Math.max(next, ((f.at - span.start) / (span.end - span.start)) * room);
    next = x + thumb + gap;
    return Math.round(x);
  });
}

/** The step whose time holds `at` (its start up to the next one's): what a click on the timeline selects. */
export function stepAt(steps: readonly TraceStep[], at: number): number | undefined {
  let found = steps[0]?.n;
  for (const step of steps) if (step.startedAt <= at) found = step.n;
  return found;
}

// ── The element and the point, drawn ────────────────────────────────────────────────────────

/** A box over a screenshot of the viewport, in percent of the picture (it shows the viewport whole). */
export function percentBox(box: Box, viewport: Viewport): { left: number; top: number; width: number; height: number } {
  const pct = (v: number, of: number) => Math.round((v / of) * 10000) / 100;
  return { left: pct(box.x, viewport.width), top: pct(box.y, viewport.height), width: pct(box.width, viewport.width), height: pct(box.height, viewport.height) };
}

/** A marker id or a CSS selector safe to put in the snapshot's style sheet (nothing that could end the rule or the sheet). */
const SAFE_MARKER = /^[\w-]{1,100}$/;
const SAFE_SELECTOR = /^[^<{}\\;@]{1,1000}$/;

/**
 * A snapshot with the addressed element outlined (by a style rule: the snapshot frame runs no
 * script, and its document is out of the viewer's reach) and the pointer's point marked, at the
 * point's place in the document (the viewport's point plus how far it was scrolled).
 */
export function markSnapshot(html: string, view: Pick<PhaseView, 'element' | 'point' | 'viewport'>): string {
  const rules: string[] = [];
  const outline = '{ outline: 2px solid #0969da !important; outline-offset: -1px !important; background-color: rgba(111, 168, 220, .45) !important; }';
  const { element, point } = view;
  if (element?.marker && SAFE_MARKER.test(element.marker)) rules.push(`[data-wdgate-target="${element.marker}"] ${outline}`);
  // A rule of its own: a selector the viewer's browser does not read drops only that rule.
  if (element?.selector && SAFE_SELECTOR.test(element.selector)) rules.push(`${element.selector} ${outline}`);
  let out = html;
  // The document's own head comes first; its body ends last (a frame's srcdoc may hold others).
  if (rules.length) out = insertAt(out, out.search(/<\/head>/i), `<style data-wdgate-viewer>${rules.join('\n')}</style>`);
  if (point && Number.isFinite(point.x) && Number.isFinite(point.y)) {
    const x = point.x + (view.viewport?.scrollX ?? 0);
    const y = point.y + (view.viewport?.scrollY ?? 0);
    const dot = `<div data-wdgate-pointer style="position: absolute; left: ${x}px; top: ${y}px; width: 20px; height: 20px; margin: -10px 0 0 -10px; border-radius: 50%; background: rgba(244, 67, 54, .85); box-shadow: 0 0 0 3px rgba(255, 255, 255, .8); z-index: 2147483647; pointer-events: none"></div>`;
    out = insertAt(out, out.toLowerCase().lastIndexOf('</body>'), dot);
  }
  return out;
}

function insertAt(html: string, at: number, insert: string): string {
  return at >= 0 ? html.slice(0, at) + insert + html.slice(at) : html + insert;
}
