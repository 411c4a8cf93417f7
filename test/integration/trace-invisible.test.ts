// Tracing is invisible (issue 38): nothing a page or a client can observe differs between a traced
// session and an untraced one. The trace's page code runs in the gateway's own world, so a page
// that replaces addEventListener, MutationObserver and the like sees none of its calls (WPT
// execute_script/execute.py::test_override_listeners), and takes nothing (properties, user
// activation) the page could notice; and a capture never changes how a user prompt is handled (WPT
// minimize_window/user_prompts.py: an alert open when Minimize Window runs is accepted or dismissed
// as the session asked, traced or not). Each case runs a traced ("on") and an untraced session of
// the same backend and compares what the page and the client saw.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startPageServer, type PageServer } from '../helpers/pages.ts';
import type { Session } from '../helpers/client.ts';

let gw: TestGateway;
let pages: PageServer;

before(async () => {
  [gw, pages] = await Promise.all([startGateway(), startPageServer()]);
});

after(async () => {
  await gw?.stop();
  await pages?.close();
});

const BACKENDS = [
  { name: 'native Chromium', caps: {} as Record<string, unknown>, options: {} },
  { name: 'native Firefox', caps: { browserName: 'firefox' } as Record<string, unknown>, options: {} },
  { name: 'Playwright Chromium', caps: {} as Record<string, unknown>, options: { backend: 'playwright' } },
  // Playwright's own page code on Firefox calls the page's addEventListener and MutationObserver,
  // untraced as much as traced: there the trace adds nothing to what the page sees.
  { name: 'Playwright Firefox', caps: { browserName: 'firefox' } as Record<string, unknown>, options: { backend: 'playwright' }, playwrightCalls: true },
];

/**
 * A page that replaces what page code commonly uses (before anything else runs) and logs every
 * call: the WPT test's listeners, observers, the property and JSON helpers, timers, geometry,
 * canvases, style sheets' rules. What the gateway's W3C commands use shows in both sessions alike.
 */
const WATCHER = `<script>
const log = [];
const push = Array.prototype.push;
window.called = [];
window.__calls = log;
const note = (what) => push.call(log, what);
window.addEventListener = () => { push.call(window.called, 'Internal addEventListener') };
window.removeEventListener = () => { push.call(window.called, 'Internal removeEventListener') };
const wrap = (owner, name, label) => {
  const original = owner[name];
  owner[name] = function (...args) { note(label); return original.apply(this, args); };
};
wrap(EventTarget.prototype, 'addEventListener', 'EventTarget.addEventListener');
wrap(EventTarget.prototype, 'removeEventListener', 'EventTarget.removeEventListener');
wrap(Object, 'defineProperty', 'Object.defineProperty');
wrap(JSON, 'stringify', 'JSON.stringify');
wrap(Math, 'random', 'Math.random');
wrap(Date, 'now', 'Date.now');
wrap(window, 'getComputedStyle', 'getComputedStyle');
wrap(Element.prototype, 'getBoundingClientRect', 'getBoundingClientRect');
wrap(HTMLCanvasElement.prototype, 'toDataURL', 'toDataURL');
wrap(Document.prototype, 'getElementsByTagName', 'Document.getElementsByTagName');
const rules = Object.getOwnPropertyDescriptor(CSSStyleSheet.prototype, 'cssRules');
Reflect.defineProperty(CSSStyleSheet.prototype, 'cssRules', { ...rules, get() { note('cssRules'); return rules.get.call(this); } });
const Observer = window.MutationObserver;
window.MutationObserver = class extends Observer { constructor(callback) { note('MutationObserver'); super(callback); } };
</script>
<style>p { color: rgb(1, 2, 3) }</style>
<p id="out">start</p><button id="b" onclick="document.getElementById('out').textContent = 'clicked'">press</button>
<input id="i"><canvas id="c" width="10" height="10"></canvas>`;

/** The same commands in a session; then what the page logged and what it holds. */
async function drive(s: Session, url: string): Promise<{ called: string[]; calls: string[]; own: string[]; activation: boolean }> {
  await s.navigate(url);
  const button = await s.find('#b');
  await s.get(`/element/${button}/text`);
  await s.post(`/element/${button}/click`);
  const input = await s.find('#i');
  await s.post(`/element/${input}/value`, { text: 'typed' });
  await s.post(`/element/${input}/clear`);
  await s.post('/execute/sync', { script: "document.getElementById('out').textContent = 'scripted'; return null", args: [] });
  await s.get('/title');
  await s.post('/actions', { actions: [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions: [{ type: 'pointerMove', origin: { 'element-6066-11e4-a52e-4f735466cecf': button }, x: 0, y: 0 }, { type: 'pointerDown', button: 0 }, { type: 'pointerUp', button: 0 }] }] });
  await s.post('/actions', { actions: [] });
  await s.post(`/element/${await s.find('#out')}/click`);
  return (await s.post('/execute/sync', {
    script: 'return { called: window.called, calls: window.__calls.slice(), own: Object.getOwnPropertyNames(document).concat(Object.getOwnPropertySymbols(document).map(String)), activation: navigator.userActivation ? navigator.userActivation.hasBeenActive : false }',
    args: [],
  })) as { called: string[]; calls: string[]; own: string[]; activation: boolean };
}

for (const backend of BACKENDS) {
  test(`${backend.name}: a page that replaces addEventListener and the like sees the same calls, traced or not (none from the trace), and holds nothing more`, async () => {
    const url = pages.page(WATCHER, 'watcher');
    const seen = [];
    for (const trace of ['off', 'on']) {
      const s = await gw.client.newSession({ ...backend.caps, 'wdgate:options': { ...backend.options, trace } });
      try {
        seen.push(await drive(s, url));
      } finally {
        await s.end();
      }
    }
    const [untraced, traced] = seen as [Awaited<ReturnType<typeof drive>>, Awaited<ReturnType<typeof drive>>];
    assert.deepEqual(traced, untraced);
    // The trace captured (the session's trace has the page's snapshots), and called none of what the page replaced.
    assert.ok(!traced.own.some((p) => /wdgate_trace/.test(p)), JSON.stringify(traced));
    if (!('playwrightCalls' in backend)) assert.ok(!traced.calls.includes('MutationObserver'), JSON.stringify(traced));
  });
}

test('native Chromium, Playwright Chromium: the page replacing addEventListener and removeEventListener sees no call at all (WPT test_override_listeners), traced', async () => {
  for (const options of [{}, { backend: 'playwright' }]) {
    const s = await gw.client.newSession({ 'wdgate:options': { ...options, trace: 'on' } });
    try {
      await s.navigate(pages.page(`<script>called = []; window.addEventListener = () => { called.push('Internal addEventListener') }; window.removeEventListener = () => { called.push('Internal removeEventListener') }</script>`, 'override'));
      assert.equal(await s.post('/execute/sync', { script: 'return !window.onunload', args: [] }), true);
      assert.deepEqual(await s.post('/execute/sync', { script: 'return called', args: [] }), []);
    } finally {
      await s.end();
    }
  }
});

/**
 * WPT minimize_window/user_prompts.py: with unhandledPromptBehavior accept or dismiss, a dialog
 * opened by an asynchronous script is open when Minimize Window comes; it is handled (closed, its
 * value the page's), the window is minimized. What the client sees: each command's answer.
 */
async function promptThenMinimize(s: Session, type: 'alert' | 'confirm' | 'prompt'): Promise<unknown[]> {
  const seen: unknown[] = [];
  const answer = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await s.raw(method, path, body);
    // (A window's place on the screen is each window's own: its size is compared.)
    const value = res.value && typeof res.value === 'object' && 'x' in res.value ? { width: res.value.width, height: res.value.height } : res.value;
    seen.push({ path, status: res.status, value });
  };
  await s.navigate(pages.page('<p>prompts</p>', 'prompts'));
  await answer('POST', '/execute/sync', { script: 'return document.hidden', args: [] });
  await answer('POST', '/execute/async', {
    script: `const [type, text] = arguments; setTimeout(() => { window.dialog_return_value = type === 'prompt' ? window[type](text, '') : window[type](text); }, 0);`,
    args: [type, type],
  });
  await answer('POST', '/window/minimize', {});
  await answer('GET', '/alert/text');
  await answer('POST', '/execute/sync', { script: 'return window.dialog_return_value', args: [] });
  await answer('POST', '/execute/sync', { script: 'return document.hidden', args: [] });
  return seen;
}

// (Playwright's Chromium keeps a minimized window's document visible, traced or not: test/helpers/gaps.ts, WINDOW_STATE.)
for (const backend of [{ ...BACKENDS[0]!, hides: true }, { ...BACKENDS[2]!, hides: false }]) {
  test(`${backend.name}: a dialog open when Minimize Window runs is handled as the session asked, traced or not (WPT minimize_window/user_prompts)`, async () => {
    for (const behavior of ['accept', 'dismiss'] as const) {
      for (const type of ['alert', 'confirm', 'prompt'] as const) {
        const seen = [];
        for (const trace of ['off', 'on']) {
          const s = await gw.client.newSession({ ...backend.caps, unhandledPromptBehavior: behavior, 'wdgate:options': { ...backend.options, trace } });
          try {
            seen.push(await promptThenMinimize(s, type));
          } finally {
            await s.end();
          }
        }
        assert.deepEqual(seen[1], seen[0], `${behavior} ${type}: traced as untraced`);
        // And as the spec says: minimized, the dialog handled with the page's value.
        const [, , minimize, text, value, hidden] = seen[1] as Array<{ status: number; value: unknown }>;
        assert.equal(minimize!.status, 200, `${behavior} ${type}: ${JSON.stringify(seen[1])}`);
        assert.equal(text!.status, 404);
        assert.deepEqual(value!.value, type === 'alert' ? null : type === 'confirm' ? behavior === 'accept' : behavior === 'accept' ? '' : null);
        assert.equal(hidden!.value, backend.hides);
      }
    }
  });
}
