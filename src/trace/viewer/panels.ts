// The viewer's Errors, Metadata and request-detail panels (what facts.ts and model.ts say, as DOM).
// Everything from the trace goes in as text, never as markup.
import { errorsOf, metadataOf } from './facts.ts';
import { duration, type NetworkEntry, type Trace } from './model.ts';

export const element = <K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
};

/** The Errors tab: each error with its step; choosing one selects its step. Returns how many there are. */
export function renderErrors(into: HTMLElement, trace: Trace, select: (n: number) => void): number {
  const items = errorsOf(trace);
  into.replaceChildren(
    ...(items.length
      ? items.map((item) => {
          const row = element('div', undefined, `error-item ${item.kind}`);
          if (item.n !== undefined) row.dataset.n = String(item.n);
          const step = item.n !== undefined ? trace.steps.find((s) => s.n === item.n) : undefined;
          const where = element('span', step ? `step ${step.n + 1} · ${step.name}` : '', 'where');
          row.append(element('div', item.title, 'title'), where, element('pre', item.message));
          if (item.n !== undefined) row.onclick = () => select(item.n!);
          return row;
        })
      : [element('p', 'No errors: no command failed, no page threw, the browser stayed.', 'empty')]),
  );
  return items.length;
}

/** The Metadata tab. */
export function renderMetadata(into: HTMLElement, trace: Trace): void {
  const dl = element('dl');
  for (const [label, value] of metadataOf(trace)) {
    const dd = element('dd');
    if (value.includes('\n')) dd.append(element('pre', value));
    else dd.textContent = value;
    dl.append(element('dt', label), dd);
  }
  into.replaceChildren(dl);
}

/** A request's details: its headers (as the trace kept them: credentials hidden), timings and body. */
export function renderRequest(into: HTMLElement, r: NetworkEntry): void {
  const section = (title: string, ...content: HTMLElement[]) => {
    const s = element('section');
    s.append(element('h3', title), ...content);
    return s;
  };
  const table = (rows: Array<[string, string]>) => {
    if (!rows.length) return element('p', 'none', 'empty');
    const t = element('table', undefined, 'pairs');
    for (const [name, value] of rows) {
      const tr = element('tr');
      tr.append(element('th', name), element('td', value));
      t.append(tr);
    }
    return t;
  };
  const timings = Object.entries(r.timings)
    .filter(([, v]) => typeof v === 'number' && v >= 0)
    .map(([k, v]) => [k, duration(v)] as [string, string]);
  const general: Array<[string, string]> = [
    ['URL', r.url],
    ['Method', r.method],
    ['Status', r.status ? `${r.status} ${r.statusText}`.trim() : 'no response'],
    ...(r.error ? [['Error', r.error] as [string, string]] : []),
    ['Type', [r.type, r.mimeType].filter(Boolean).join(' · ')],
    ['Started', new Date(r.startedAt).toISOString()],
    ['Duration', duration(r.durationMs)],
  ];
  const body =
    r.body !== undefined
      ? element('pre', r.body, 'body-text')
      : element('p', 'Not kept: a trace keeps text response bodies up to 64 KiB, from native Chromium and Playwright backends.', 'empty');
  const close = element('button', '×', 'close');
  close.title = 'close';
  close.onclick = () => (into.hidden = true);
  into.replaceChildren(close, section('General', table(general)), section('Timings', table(timings)), section('Request headers', table(r.requestHeaders.map((h) => [h.name, h.value]))), section('Response headers', table(r.responseHeaders.map((h) => [h.name, h.value]))), section('Response body', body));
  into.hidden = false;
}
