// Two runs of one test side by side (issue 34): `/ui/trace?session=FAILED&compare=PASSED`. The
// gateway's comparison (GET /wdgate/sessions/{id}/compare?with=, src/trace/runs/align.ts) gives
// the steps aligned and the first difference; both traces are fetched as the viewer fetches one.
// The view opens at the first difference, highlighted, with its text; choosing a pair shows both
// runs' page Before or After their steps (screenshot, or DOM snapshot in a sandboxed frame); a step
// without a partner is a gap; up and down move along the pairs. Everything from the traces goes in
// as text, never as markup, except the snapshots, which only the sandboxed frames render.
import { phaseOf, type Phase, type PhaseView } from './captures.ts';
import { fetchFromGateway, LoadError } from './fetching.ts';
import { duration, elementTarget, locators, mimeOf, paramsSummary, readTrace, snapshotDocument, snapshotHtml, TraceError, type Trace } from './model.ts';
import { differencePair, openingPair, readComparison, type Comparison } from './pairs.ts';
import { element } from './panels.ts';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

interface Side {
  /** 'failed' or 'passed': the section of the page it fills. */
  name: 'failed' | 'passed';
  id: string;
  trace: Trace;
  found: ReturnType<typeof locators>;
  /** blob: URLs of its pictures, made when first shown. */
  urls: Map<string, string>;
}

interface View {
  comparison: Comparison;
  sides: [Side, Side];
  /** The pair shown. */
  selected: number;
  /** The pair of the first difference. */
  first: number | undefined;
  picture: 'screenshot' | 'snapshot';
  phase: Phase;
}

let view: View | undefined;

/** `compare=last`: the run to compare with is the test's last pass, as the gateway finds it. */
export const LAST = 'last';

/**
 * Fetch the comparison and both traces, then show them side by side at the first difference.
 * `passed` is a session id, or `last`: the gateway's choice, the test's last pass before `failed`.
 */
export async function openComparison(failed: string, passed: string, say: (text: string, isError?: boolean) => void): Promise<void> {
  say(passed === LAST ? `Loading session ${failed} and its test's last pass to compare them…` : `Loading sessions ${failed} and ${passed} to compare them…`);
  const base = (id: string) => `/wdgate/sessions/${encodeURIComponent(id)}`;
  const trace = (id: string) =>
    fetchFromGateway(`${base(id)}/trace`, `The trace of session ${id}`)
      .then((reply) => reply.arrayBuffer())
      .then((bytes) => {
        try {
          return readTrace(new Uint8Array(bytes));
        } catch (e) {
          throw e instanceof TraceError ? new TraceError(`session ${id}: ${e.message}`) : e;
        }
      });
  const compare = (query: string) => fetchFromGateway(`${base(failed)}/compare${query}`, 'The comparison').then(async (reply) => readComparison(await reply.json()));
  let comparison: Comparison;
  let traces: [Trace, Trace];
  try {
    if (passed === LAST) {
      // Which run that is, the comparison says: the traces are fetched after it.
      comparison = await compare('');
      if (comparison.with === null) return say(`Nothing to compare: ${comparison.summary}.`, true);
      passed = comparison.with;
      traces = await Promise.all([trace(failed), trace(passed)]);
    } else {
      [comparison, ...traces] = await Promise.all([compare(`?with=${encodeURIComponent(passed)}`), trace(failed), trace(passed)]);
    }
  } catch (e) {
    if (e instanceof LoadError || e instanceof TraceError) return say(e.message, true);
    throw e;
  }
  if (comparison.with === null) return say(`Nothing to compare: ${comparison.summary}.`, true);
  const side = (name: Side['name'], id: string, t: Trace): Side => ({ name, id, trace: t, found: locators(t.steps), urls: new Map() });
  show(comparison, [side('failed', failed, traces[0]), side('passed', passed, traces[1])]);
}

function show(comparison: Comparison, sides: [Side, Side]): void {
  const [failed, passed] = sides;
  const first = differencePair(comparison.aligned, comparison.firstDifference);
  view = { comparison, sides, selected: -1, first, picture: 'screenshot', phase: 'after' };
  const name = failed.trace.session.name ?? failed.id;
  document.title = `${name} · since the last pass · wdgate trace`;
  $('title').textContent = name;
  $('title').title = `session ${failed.id} against session ${passed.id}`;
  $('result').replaceChildren(badge(failed.trace), element('span', ' against ', 'muted'), badge(passed.trace));
  $('about').textContent = [about(failed), about(passed)].join('  ·  against  ·  ');
  $('message').hidden = true;
  $('viewer').hidden = true;
  $('compare').hidden = false;

  const banner = $('difference');
  const said = comparison.summary.charAt(0).toUpperCase() + comparison.summary.slice(1);
  banner.className = comparison.firstDifference ? 'differs' : 'alike';
  banner.replaceChildren(element('strong', 'Since the last pass: '), element('span', said, 'text'));
  if (first !== undefined) {
    const go = element('button', 'go to it', 'go');
    go.onclick = () => select(first);
    banner.append(go);
  }
  for (const s of sides) {
    const section = sideSection(s);
    const alone = section.querySelector<HTMLAnchorElement>('a.alone')!;
    alone.href = `/ui/trace?session=${encodeURIComponent(s.id)}`;
    alone.title = `session ${s.id} alone, in the viewer`;
  }
  $('pairs').replaceChildren(...comparison.aligned.map((pair, k) => pairRow(k, pair)));
  const failing = new Set(failed.trace.steps.filter((s) => s.error).map((s) => s.n));
  select(openingPair(comparison, failing));
}

const badge = (trace: Trace) => {
  const result = trace.session.result ?? 'unknown';
  return element('span', result, `badge ${result}`);
};

function about(side: Side): string {
  const { session } = side.trace;
  return [`session ${side.id}`, session.build && `build ${session.build}`, session.startedAt && new Date(session.startedAt).toLocaleString()].filter(Boolean).join(' · ');
}

const sideSection = (side: Side) => document.querySelector<HTMLElement>(`#sides [data-side="${side.name}"]`)!;

function pairRow(k: number, [f, p]: [number | null, number | null]): HTMLLIElement {
  const [failed, passed] = view!.sides;
  const li = element('li');
  li.dataset.index = String(k);
  li.append(cell(failed, f), cell(passed, p));
  if (k === view!.first) {
    li.classList.add('first');
    li.title = 'the first difference';
  }
  if (f === null || p === null) li.classList.add('unpaired');
  li.onclick = () => select(k);
  return li;
}

/** One run's step in a pair row: its number, name and what it aimed at (or its error); a gap where it has none. */
function cell(side: Side, n: number | null): HTMLElement {
  if (n === null) {
    const gap = element('div', '—', `cell ${side.name} gap`);
    gap.title = side.name === 'failed' ? 'the failed run took no step here' : 'the last pass took no step here';
    return gap;
  }
  const step = side.trace.steps.find((s) => s.n === n);
  const div = element('div', undefined, `cell ${side.name}`);
  if (!step) return div;
  if (step.error) div.classList.add('error');
  const detail = step.error ? `${step.error.code}: ${step.error.message}` : [elementTarget(step, side.found), paramsSummary(step.params)].filter(Boolean).join(' ');
  div.append(element('span', String(step.n + 1), 'n'), element('span', step.name, 'name'), element('span', detail, 'detail'));
  div.title = detail ? `${step.name}\n${detail}` : step.name;
  return div;
}

function select(k: number): void {
  if (!view || k < 0 || k >= view.comparison.aligned.length) return;
  view.selected = k;
  for (const li of $('pairs').children as HTMLCollectionOf<HTMLElement>) li.classList.toggle('selected', li.dataset.index === String(k));
  $('pairs').querySelector('.selected')?.scrollIntoView({ block: 'nearest' });
  showPair();
}

/** Both runs' pages for the chosen pair, in the picture and phase chosen. */
function showPair(): void {
  const { comparison, sides, selected, picture, phase } = view!;
  const pair = comparison.aligned[selected]!;
  const views = sides.map((side, i) => (pair[i] === null ? undefined : ({ before: phaseOf(side.trace.steps, pair[i]!, 'before'), after: phaseOf(side.trace.steps, pair[i]!, 'after') }) as Record<'before' | 'after', PhaseView>));
  for (const button of document.querySelectorAll<HTMLButtonElement>('#compare-tabs button[data-view]')) button.classList.toggle('active', button.dataset.view === picture);
  for (const button of document.querySelectorAll<HTMLButtonElement>('#compare-phase button')) {
    const p = button.dataset.phase as 'before' | 'after';
    button.disabled = !views.some((v) => v?.[p].screenshot || v?.[p].snapshot);
    button.classList.toggle('active', p === phase);
  }
  sides.forEach((side, i) => showSide(side, pair[i] ?? null, views[i]?.[phase === 'before' ? 'before' : 'after']));
}

function showSide(side: Side, n: number | null, shown: PhaseView | undefined): void {
  const { picture, phase } = view!;
  const section = sideSection(side);
  const step = n === null ? undefined : side.trace.steps.find((s) => s.n === n);
  section.classList.toggle('gap', !step);
  section.querySelector('.which')!.textContent = step ? `step ${step.n + 1} · ${step.name}` : 'no step here';
  const img = section.querySelector<HTMLImageElement>('img')!;
  const frame = section.querySelector<HTMLIFrameElement>('iframe')!;
  const empty = section.querySelector<HTMLElement>('.empty')!;
  const file = picture === 'screenshot' ? shown?.screenshot : shown?.snapshot;
  const bytes = file && side.trace.files[file.path];
  img.hidden = frame.hidden = true;
  if (picture === 'screenshot' && bytes) {
    img.src = fileUrl(side, file.path, bytes);
    img.hidden = false;
  } else if (picture === 'snapshot' && bytes) {
    const page = snapshotHtml(side.trace, file.path);
    if (page !== undefined) {
      const html = snapshotDocument(page);
      if (frame.srcdoc !== html) frame.srcdoc = html;
      frame.hidden = false;
    }
  }
  empty.hidden = !(img.hidden === false || frame.hidden === false);
  empty.textContent = !step
    ? side.name === 'failed'
      ? 'The failed run took no step here: the last pass did.'
      : 'The last pass took no step here: the failed run did.'
    : `No ${picture === 'screenshot' ? 'screenshot' : 'DOM snapshot'} ${phase === 'before' ? 'from before' : 'after'} this step.`;
  const facts: [string, string][] = [];
  if (step) {
    if (step.error) facts.push(['error', `${step.error.code}: ${step.error.message}`]);
    const url = [...side.trace.steps].reverse().find((s) => s.n <= step.n && s.url);
    if (url) facts.push(['page', url.title ? `${url.url} (${url.title})` : url.url!]);
    if (file && file.from !== step.n) facts.push(['shown', `as step ${file.from + 1} left it`]);
    if (step.durationMs !== undefined) facts.push(['took', duration(step.durationMs)]);
  }
  const dl = section.querySelector('dl')!;
  dl.replaceChildren(...facts.flatMap(([name, value]) => [element('dt', name), element('dd', value, name === 'error' ? 'error' : undefined)]));
}

function fileUrl(side: Side, path: string, bytes: Uint8Array): string {
  let url = side.urls.get(path);
  if (!url) side.urls.set(path, (url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mimeOf(path) }))));
  return url;
}

for (const button of document.querySelectorAll<HTMLButtonElement>('#compare-tabs button[data-view]')) {
  button.onclick = () => {
    if (!view) return;
    view.picture = button.dataset.view as View['picture'];
    showPair();
  };
}
for (const button of document.querySelectorAll<HTMLButtonElement>('#compare-phase button')) {
  button.onclick = () => {
    if (!view) return;
    view.phase = button.dataset.phase as Phase;
    showPair();
  };
}

// Up and down move along the pairs (anywhere but where they move something else).
document.addEventListener('keydown', (event) => {
  if (!view || (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') || (event.target as HTMLElement).closest('input:not([type=checkbox]), textarea, select, video')) return;
  select(view.selected + (event.key === 'ArrowDown' ? 1 : -1));
  event.preventDefault();
});
