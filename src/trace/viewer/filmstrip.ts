// The filmstrip at the top of the viewer: the session's screenshots along its timeline
// (./captures.ts filmstrip, layoutStrip), each step a tick (a failed one red), the chosen step's
// time shaded; hover a picture for a larger one; a click selects its step (and that picture's
// phase). Left and right move along the strip.
import { filmstrip, layoutStrip, stepAt, timeline, type FilmFrame, type Phase } from './captures.ts';
import type { Trace } from './model.ts';
import { element } from './panels.ts';

const THUMB_WIDTH = 72;
/** The strip of the trace open now lays itself out again when the page's width changes. */
let resized: ResizeObserver | undefined;

export interface Strip {
  /** The chosen step (and phase) changed: shade its time, mark its picture. */
  show(n: number, phase: Phase): void;
  /** The picture before (-1) or after (+1) the one shown, along the strip. */
  next(direction: -1 | 1, n: number, phase: Phase): FilmFrame | undefined;
}

export function renderStrip(root: HTMLElement, trace: Trace, url: (path: string) => string | undefined, choose: (n: number, phase?: Phase) => void): Strip {
  const frames = filmstrip(trace.steps).filter((f) => url(f.path));
  const span = timeline(trace.steps);
  const track = element('div', undefined, 'track');
  const zoom = element('div', undefined, 'zoom');
  zoom.hidden = true;
  const zoomImg = element('img');
  zoomImg.alt = 'the screenshot, larger';
  zoom.append(zoomImg);
  root.replaceChildren(track, zoom);
  root.hidden = trace.steps.length === 0;
  const shade = element('div', undefined, 'span');
  track.append(shade);

  const lay = () => {
    const width = Math.max(root.clientWidth - 16, THUMB_WIDTH * 2);
    const room = Math.max(1, width - THUMB_WIDTH);
    const xs = layoutStrip(frames, span, width, THUMB_WIDTH);
    track.style.width = `${Math.max(width, (xs.at(-1) ?? 0) + THUMB_WIDTH)}px`;
    const at = (t: number) => ((t - span.start) / (span.end - span.start)) * room;
    for (const [i, img] of [...track.querySelectorAll<HTMLElement>('img.frame')].entries()) img.style.left = `${xs[i]}px`;
    for (const tick of track.querySelectorAll<HTMLElement>('.tick')) tick.style.left = `${at(Number(tick.dataset.at))}px`;
    track.dataset.room = String(room);
  };

  frames.forEach((frame) => {
    const img = element('img', undefined, `frame ${frame.phase}`);
    img.src = url(frame.path)!;
    img.alt = `step ${frame.n + 1}, ${frame.phase}`;
    img.title = `step ${frame.n + 1} · ${trace.steps.find((s) => s.n === frame.n)?.name ?? ''} · ${frame.phase}`;
    img.dataset.n = String(frame.n);
    img.dataset.phase = frame.phase;
    img.onclick = (e) => {
      e.stopPropagation();
      choose(frame.n, frame.phase);
    };
    img.onmouseenter = () => {
      zoomImg.src = img.src;
      zoom.hidden = false;
      const left = img.getBoundingClientRect().left - root.getBoundingClientRect().left;
      zoom.style.left = `${Math.max(0, Math.min(left - 140, root.clientWidth - 420))}px`;
    };
    img.onmouseleave = () => (zoom.hidden = true);
    track.append(img);
  });
  for (const step of trace.steps) {
    const tick = element('div', undefined, `tick ${step.kind}${step.error ? ' error' : ''}`);
    tick.dataset.n = String(step.n);
    tick.dataset.at = String(step.startedAt);
    tick.title = `step ${step.n + 1} · ${step.name}${step.error ? ` · ${step.error.code}` : ''}`;
    track.append(tick);
  }
  // A click on the timeline itself: the step whose time it is.
  track.onclick = (e) => {
    const room = Number(track.dataset.room) || 1;
    const x = e.clientX - track.getBoundingClientRect().left;
    const n = stepAt(trace.steps, span.start + (x / room) * (span.end - span.start));
    if (n !== undefined) choose(n);
  };
  lay();
  resized?.disconnect();
  resized = new ResizeObserver(lay);
  resized.observe(root);

  /** The picture the step shows in that phase: its own, else the last one taken by then (its start before it acts, its end after). */
  const indexOf = (n: number, phase: Phase) => {
    const own = (p: Phase) => frames.findIndex((f) => f.n === n && f.phase === p);
    const exact = own(phase);
    if (exact >= 0) return exact;
    if (phase === 'action' && own('before') >= 0) return own('before');
    const step = trace.steps.find((s) => s.n === n);
    if (!step) return -1;
    const by = phase === 'after' ? step.startedAt + (step.durationMs ?? 0) : step.startedAt;
    let found = -1;
    frames.forEach((f, i) => void (f.at <= by && (phase === 'after' || f.n !== n) && (found = i)));
    return found;
  };

  return {
    show(n, phase) {
      const step = trace.steps.find((s) => s.n === n);
      const next = trace.steps[trace.steps.findIndex((s) => s.n === n) + 1];
      const room = Number(track.dataset.room) || 1;
      if (step) {
        const x = (t: number) => ((t - span.start) / (span.end - span.start)) * room;
        const from = x(step.startedAt);
        shade.style.left = `${from}px`;
        shade.style.width = `${Math.max(3, x(next ? next.startedAt : span.end) - from)}px`;
      }
      const current = indexOf(n, phase);
      for (const [i, img] of [...track.querySelectorAll<HTMLElement>('img.frame')].entries()) img.classList.toggle('current', i === current);
      track.querySelector('img.frame.current')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      for (const tick of track.querySelectorAll<HTMLElement>('.tick')) tick.classList.toggle('selected', tick.dataset.n === String(n));
    },
    next(direction, n, phase) {
      const current = indexOf(n, phase);
      return frames[current < 0 ? (direction > 0 ? 0 : -1) : current + direction];
    },
  };
}
