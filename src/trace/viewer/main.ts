// The trace viewer's page: opens a trace (a kept session's from the gateway, the file show-trace
// serves, or one chosen or dropped), lists its steps, its screenshots along a filmstrip, and shows
// the chosen step's page Before, as it acted (the element outlined, the pointer's point marked) and
// After it (screenshot, DOM snapshot in a sandboxed frame, the video at that moment), its call, the
// session's errors, the console and network of its time (a request's headers, timings and body),
// and the session's metadata. Bundled with esbuild (./page.ts); everything from the trace is put in
// as text, never as markup, except the snapshot, which only the sandboxed frame renders.
import { PHASES, markSnapshot, percentBox, phaseOf, type Phase, type PhaseView } from './captures.ts';
import { LAST, openComparison } from './compare.ts';
import { fetchFromGateway, LoadError } from './fetching.ts';
import { renderStrip, type Strip } from './filmstrip.ts';
import { duration, elementTarget, locators, mimeOf, openingStep, paramsSummary, readTrace, snapshotDocument, snapshotHtml, stepWindow, traceStart, TraceError, videoTime, within, type NetworkEntry, type Trace, type TraceStep } from './model.ts';
import { element, renderErrors, renderMetadata, renderRequest } from './panels.ts';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

let trace: Trace | undefined;
let selected = 0;
/** Before, action or after: kept from step to step, as a reader compares them. */
let phase: Phase = 'after';
let strip: Strip | undefined;
/** The requests the network tab lists now (a row's index into it). */
let listed: NetworkEntry[] = [];
/** What found each element the open trace's steps address. */
let found: ReturnType<typeof locators> = new Map();
/** blob: URLs of the open trace's files, made when first shown, revoked with the trace. */
let urls = new Map<string, string>();

function fileUrl(path: string): string | undefined {
  const bytes = trace?.files[path];
  if (!bytes) return undefined;
  let url = urls.get(path);
  if (!url) urls.set(path, (url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mimeOf(path) }))));
  return url;
}

function say(text: string, isError = false): void {
  $('message').textContent = text;
  $('message').className = isError ? 'error' : '';
  $('message').hidden = false;
}

function open(bytes: Uint8Array, source: string): void {
  let next: Trace;
  try {
    next = readTrace(bytes);
  } catch (e) {
    if (!(e instanceof TraceError)) throw e;
    return say(`${source}: ${e.message}`, true);
  }
  for (const url of urls.values()) URL.revokeObjectURL(url);
  urls = new Map();
  $('playwright').hidden = $('compare-last').hidden = true;
  trace = next;
  const { session } = trace;
  document.title = `${session.name ?? session.id} · wdgate trace`;
  $('title').textContent = session.name ?? session.id;
  $('title').title = `session ${session.id}`;
  const result = session.result ?? 'unknown';
  const badge = element('span', result, `badge ${result}`);
  if (session.resultReason) badge.title = session.resultReason;
  $('result').replaceChildren(badge);
  $('about').textContent = [
    session.build && `build ${session.build}`,
    [session.browserName, session.browserVersion].filter(Boolean).join(' '),
    session.backend,
    session.principal,
    session.startedAt && new Date(session.startedAt).toLocaleString(),
    duration(session.durationMs),
  ]
    .filter(Boolean)
    .join(' · ');
  $('message').hidden = true;
  $('viewer').hidden = false;
  (document.querySelector('[data-tab="video"]') as HTMLElement).hidden = !trace.video;
  const video = $<HTMLVideoElement>('video');
  if (trace.video) video.src = fileUrl(trace.video)!;
  else video.removeAttribute('src');
  found = locators(trace.steps);
  $('steps').replaceChildren(...trace.steps.map(stepItem));
  strip = renderStrip($('filmstrip'), trace, fileUrl, (n, chosen) => select(n, chosen));
  const errors = renderErrors($('errors'), trace, (n) => select(n));
  $('errors-count').textContent = errors ? `(${errors})` : '';
  renderMetadata($('metadata'), trace);
  selected = -1;
  listed = [];
  const first = openingStep(trace);
  if (first === undefined) say('This trace has no steps.');
  else select(first);
}

function stepItem(step: TraceStep): HTMLLIElement {
  const li = element('li', undefined, step.kind);
  li.dataset.n = String(step.n);
  if (step.error) li.classList.add('error');
  const name = element('span', step.name, 'name');
  if (step.kind === 'bidi' || step.kind === 'forwarded') name.append(element('span', step.kind === 'bidi' ? 'BiDi' : 'forwarded', 'kind'));
  li.append(element('span', String(step.n + 1), 'n'), name, element('span', step.kind === 'marker' ? '' : duration(step.durationMs), 'ms'));
  const detail = step.error ? `${step.error.code}: ${step.error.message}` : (step.text ?? [elementTarget(step, found), paramsSummary(step.params)].filter(Boolean).join(' '));
  if (detail) li.append(element('span', detail, 'detail'));
  li.title = detail ? `${step.name}\n${detail}` : step.name;
  li.onclick = () => select(step.n);
  return li;
}

function select(n: number, chosen?: Phase): void {
  if (!trace) return;
  const step = trace.steps.find((s) => s.n === n);
  if (!step) return;
  if (chosen) phase = chosen;
  const changed = selected !== n;
  selected = n;
  for (const li of $('steps').children as HTMLCollectionOf<HTMLElement>) li.classList.toggle('selected', li.dataset.n === String(n));
  $('steps').querySelector('.selected')?.scrollIntoView({ block: 'nearest' });
  for (const row of $('errors').children as HTMLCollectionOf<HTMLElement>) row.classList.toggle('selected', row.dataset.n === String(n));
  showPicture(step);
  showCall(step);
  if (changed || !listed.length) showLogs();
}

/** The step's page in the phase chosen: its screenshot (the element and point drawn over it), its DOM snapshot, the video. */
function showPicture(step: TraceStep): void {
  const steps = trace!.steps;
  const views = Object.fromEntries(PHASES.map((p) => [p, phaseOf(steps, step.n, p)])) as Record<Phase, PhaseView>;
  for (const button of document.querySelectorAll<HTMLButtonElement>('#phase button')) {
    const p = button.dataset.phase as Phase;
    button.disabled = !(views[p].screenshot || views[p].snapshot);
    button.classList.toggle('active', p === phase);
  }
  const view = views[phase];
  const shot = view.screenshot;
  const img = $<HTMLImageElement>('shot');
  const url = shot && fileUrl(shot.path);
  img.hidden = !url;
  $('no-shot').hidden = Boolean(url);
  $('no-shot').textContent = view.missing
    ? `No picture of this page (${view.missing}): its DOM snapshot shows it.`
    : `No screenshot ${phase === 'before' ? 'from before' : phase === 'action' ? 'of the action of' : 'for'} this step.`;
  if (url) img.src = url;
  else img.removeAttribute('src');
  drawOverlay(phase === 'action' ? view : {});
  const snapshot = view.snapshot;
  const page = snapshot && snapshotHtml(trace!, snapshot.path);
  const frame = $<HTMLIFrameElement>('snapshot');
  const html = page !== undefined
    ? snapshotDocument(phase === 'action' ? markSnapshot(page, view) : page)
    : `<p style="font: 13px system-ui; color: #57606a">No DOM snapshot ${phase === 'before' ? 'from before' : phase === 'action' ? 'of the action of' : 'for'} this step.</p>`;
  if (frame.srcdoc !== html) frame.srcdoc = html;
  const shown = activeTab('picture') === 'snapshot' ? snapshot : shot;
  const whose = shown && (shown.from !== step.n ? `as step ${shown.from + 1} left it` : shown.phase !== phase ? `the ${shown.phase} capture` : '');
  // A page that changed by itself after the before capture and before the step acted: that capture is older than the action.
  const older = step.changedBefore && phase !== 'after' ? 'the page changed by itself after this capture, before the step acted' : '';
  $('picture-note').textContent = [step.url, whose, older].filter(Boolean).join(' · ');
  strip?.show(step.n, phase);
  const video = $<HTMLVideoElement>('video');
  if (trace!.video && video.readyState > 0) video.currentTime = videoTime(trace!, step);
  else if (trace!.video) video.onloadedmetadata = () => (video.currentTime = videoTime(trace!, trace!.steps.find((s) => s.n === selected)!));
}

/** The element's box and the pointer's point over the screenshot, where the picture is drawn (object-fit: contain). */
function drawOverlay(view: PhaseView): void {
  const img = $<HTMLImageElement>('shot');
  const box = $('shot-box');
  const point = $('shot-point');
  box.hidden = point.hidden = true;
  const viewport = view.viewport;
  if (!viewport || img.hidden) return;
  const place = () => {
    if (!img.naturalWidth) return;
    const scale = Math.min(img.clientWidth / img.naturalWidth, img.clientHeight / img.naturalHeight);
    const width = img.naturalWidth * scale;
    const height = img.naturalHeight * scale;
    const left = img.offsetLeft + (img.clientWidth - width) / 2;
    const top = img.offsetTop + (img.clientHeight - height) / 2;
    const element = view.element?.box;
    if (element) {
      const p = percentBox(element, viewport);
      Object.assign(box.style, { left: `${left + (p.left / 100) * width}px`, top: `${top + (p.top / 100) * height}px`, width: `${(p.width / 100) * width}px`, height: `${(p.height / 100) * height}px` });
      box.hidden = false;
    }
    if (view.point) {
      Object.assign(point.style, { left: `${left + (view.point.x / viewport.width) * width}px`, top: `${top + (view.point.y / viewport.height) * height}px` });
      point.hidden = false;
    }
  };
  if (img.complete && img.naturalWidth) place();
  else img.onload = place;
}

function showCall(step: TraceStep): void {
  const start = traceStart(trace!);
  const rows: Array<[string, string | HTMLElement]> = [
    ['step', `${step.n + 1} · ${step.kind}`],
    ['name', step.name],
    ['started', `+${duration(step.startedAt - start) || '0 ms'} (${new Date(step.startedAt).toLocaleTimeString()})`],
  ];
  if (step.kind !== 'marker' && step.durationMs !== undefined) rows.push(['duration', duration(step.durationMs)]);
  if (step.text) rows.push(['text', step.text]);
  if (step.element) rows.push(['element', elementTarget(step, found)!]);
  if (step.error) rows.push(['error', element('span', `${step.error.code}: ${step.error.message}`, 'error')]);
  if (step.params !== undefined) rows.push(['parameters', element('pre', JSON.stringify(step.params, null, 2))]);
  if (step.result !== undefined) rows.push(['result', element('pre', typeof step.result === 'string' ? step.result : JSON.stringify(step.result, null, 2))]);
  if (step.url) rows.push(['page', step.title ? `${step.url} (${step.title})` : step.url]);
  if (step.window) rows.push(['window', step.window]);
  const dl = element('dl');
  for (const [name, value] of rows) dl.append(element('dt', name), typeof value === 'string' ? element('dd', value) : wrap(value));
  $('call').replaceChildren(dl);
}

function wrap(child: HTMLElement): HTMLElement {
  const dd = element('dd');
  dd.append(child);
  return dd;
}

/** The console and network tabs: the selected step's time, or everything ("all steps"). */
function showLogs(): void {
  const t = trace!;
  const window = $<HTMLInputElement>('all').checked ? { from: -Infinity, to: Infinity } : stepWindow(t.steps, selected);
  const start = traceStart(t);
  const offset = (time: number) => `+${((time - start) / 1000).toFixed(3)} s`;
  const messages = within(t.console, (c) => c.timestamp, window);
  $('console-count').textContent = `(${messages.length})`;
  $('console').replaceChildren(
    ...(messages.length
      ? messages.map((c) => {
          const line = element('div', undefined, c.type === 'pageerror' ? 'pageerror' : c.level);
          line.append(element('span', offset(c.timestamp), 'time'), element('span', c.type === 'pageerror' ? 'uncaught' : c.level, 'level'), c.text);
          return line;
        })
      : [element('p', 'No console message in this step.', 'empty')]),
  );
  const requests = within(t.network, (r) => r.startedAt, window);
  listed = requests;
  $('request').hidden = true;
  $('network-count').textContent = `(${requests.length})`;
  ($('network') as HTMLTableElement).tBodies[0]!.replaceChildren(
    ...requests.map((r) => {
      const tr = element('tr', undefined, r.status >= 400 || r.status === 0 ? 'failed' : '');
      tr.onclick = () => {
        for (const row of tr.parentElement!.children) row.classList.toggle('selected', row === tr);
        renderRequest($('request'), r);
      };
      const url = element('td', r.url);
      url.title = r.url;
      tr.append(element('td', offset(r.startedAt)), element('td', r.method), url, element('td', r.status ? String(r.status) : 'failed', 'num'), element('td', r.type), element('td', r.size >= 0 ? bytes(r.size) : '', 'num'), element('td', duration(r.durationMs), 'num'));
      return tr;
    }),
  );
}

const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

function activeTab(group: string): string | undefined {
  return (document.querySelector(`[data-group="${group}"] button.active`) as HTMLElement | null)?.dataset.tab;
}

for (const bar of document.querySelectorAll<HTMLElement>('.tabs')) {
  const pane = bar.parentElement!;
  for (const button of bar.querySelectorAll<HTMLButtonElement>('button[data-tab]')) {
    button.onclick = () => {
      for (const b of bar.querySelectorAll('button')) b.classList.toggle('active', b === button);
      for (const panel of pane.querySelectorAll<HTMLElement>('[data-panel]')) panel.hidden = panel.dataset.panel !== button.dataset.tab;
      if (trace && bar.dataset.group === 'picture') showPicture(trace.steps.find((s) => s.n === selected)!);
    };
  }
}
$<HTMLInputElement>('all').onchange = () => trace && showLogs();

for (const button of document.querySelectorAll<HTMLButtonElement>('#phase button')) button.onclick = () => trace && select(selected, button.dataset.phase as Phase);

// Up and down move between steps, left and right along the filmstrip (anywhere but where they move something else).
document.addEventListener('keydown', (event) => {
  if (!trace || !/^Arrow(Down|Up|Left|Right)$/.test(event.key) || (event.target as HTMLElement).closest('input:not([type=checkbox]), textarea, select, video')) return;
  if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
    const frame = strip?.next(event.key === 'ArrowRight' ? 1 : -1, selected, phase);
    if (frame) select(frame.n, frame.phase);
  } else {
    const at = trace.steps.findIndex((s) => s.n === selected);
    const next = trace.steps[at + (event.key === 'ArrowDown' ? 1 : -1)];
    if (next) select(next.n);
  }
  event.preventDefault();
});

// A trace chosen or dropped: read here, sent nowhere.
async function openFile(file: File): Promise<void> {
  open(new Uint8Array(await file.arrayBuffer()), file.name);
}
$<HTMLInputElement>('open').onchange = (event) => {
  const file = (event.target as HTMLInputElement).files?.[0];
  if (file) void openFile(file);
};
let dragging = 0;
document.addEventListener('dragenter', (e) => {
  e.preventDefault();
  $('drop').hidden = ++dragging === 0;
});
document.addEventListener('dragleave', () => void ($('drop').hidden = --dragging <= 0));
document.addEventListener('dragover', (e) => e.preventDefault());
document.addEventListener('drop', (e) => {
  e.preventDefault();
  dragging = 0;
  $('drop').hidden = true;
  const file = e.dataTransfer?.files[0];
  if (file) void openFile(file);
});

/**
 * The trace to open from the address: `?session=ID`, a kept session's (the gateway answers with
 * the login cookie or to loopback), or `?trace=/path`, a same-origin path (show-trace's file);
 * `?session=ID&compare=OTHER`, two kept sessions side by side.
 */
async function openFromAddress(): Promise<void> {
  const query = new URLSearchParams(location.search);
  const session = query.get('session');
  // `&compare=OTHER`: this failed run and its test's passing one, side by side (./compare.ts).
  const other = query.get('compare');
  if (session && other) return openComparison(session, other, say);
  const path = query.get('trace');
  const url = session ? `/wdgate/sessions/${encodeURIComponent(session)}/trace` : path && /^\/(?![/\\])/.test(path) ? path : undefined;
  if (!url) return;
  say(`Loading the trace${session ? ` of session ${session}` : ''}…`);
  let reply: Response;
  try {
    reply = await fetchFromGateway(url, 'The trace');
  } catch (e) {
    if (e instanceof LoadError) return say(e.message, true);
    throw e;
  }
  open(new Uint8Array(await reply.arrayBuffer()), session ? `session ${session}` : path!);
  // A kept session's trace: also as Playwright's viewer reads it (made by the gateway when asked).
  if (session) {
    const link = $<HTMLAnchorElement>('playwright');
    link.href = `${url}?format=playwright`;
    link.hidden = false;
    // A named test's failure: beside its last pass, if it had one (the gateway says so if not).
    const compare = $<HTMLAnchorElement>('compare-last');
    compare.href = `/ui/trace?session=${encodeURIComponent(session)}&compare=${LAST}`;
    compare.hidden = !(trace?.session.result === 'failed' && trace.session.name);
  }
}
void openFromAddress();
