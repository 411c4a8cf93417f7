// User prompts (spec §16) against real Chromium through the server: the four alert commands,
// the unhandledPromptBehavior handlers (string and object forms, each in its own session),
// beforeunload prompts, and commands a prompt opened during (they must answer, never hang).
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import type { TestGateway } from '../helpers/gateway.ts';
import { closeSessionFixture, openSessionFixture } from '../helpers/fixture.ts';
import type { Session } from '../helpers/client.ts';
import { eventually, type PageServer } from '../helpers/pages.ts';

let gw: TestGateway;
let pages: PageServer;
/** The default session: unhandledPromptBehavior "dismiss and notify". */
let s: Session;

before(async () => {
  // Debug logs say when a prompt opens: tests wait for that, not for time to pass.
  ({ gw, pages, s } = await openSessionFixture(['--log-level', 'debug']));
});

/** Resolves once the gateway logs a user prompt opening in `window` after `since` (an output length). */
function promptOpened(window: string, since: number): Promise<void> {
  return eventually(
    () => gw.output().slice(since).split('\n').some((line) => line.includes('"user prompt opened"') && line.includes(`"window":"${window}"`)),
    `no user prompt opened in ${window}`,
  );
}

after(() => closeSessionFixture({ gw, pages, s }));

/** A hang (waiting on a dialog, or the 300 s page load timeout) fails the test instead. */
const LIMIT = { timeout: 30_000 };

type DialogType = 'alert' | 'confirm' | 'prompt';

/** A page that registers a beforeunload handler; it shows the prompt once it had a user gesture. */
const BEFORE_UNLOAD = `<button id="b">press</button>
<script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });</script>`;

/**
 * Open a dialog the way the WPT fixture does: from a timer, after the (async) script returned.
 * The page keeps the dialog's answer in window.dialog_return_value.
 */
async function createDialog(session: Session, type: DialogType, text: string): Promise<void> {
  await session.post('/execute/async', {
    script: `setTimeout(() => {
      window.dialog_return_value = arguments[0] === 'prompt' ? window.prompt(arguments[1], '') : window[arguments[0]](arguments[1]);
    }, 0);`,
    args: [type, text],
  });
  await eventually(async () => (await session.raw('GET', '/alert/text')).value === text, `no ${type} with text ${text} opened`);
}

async function noAlert(session: Session): Promise<void> {
  await session.fails('GET', '/alert/text', undefined, 'no such alert', 404);
}

/** The dialog was closed; its answer to the page (alert: undefined → null). */
async function dialogAnswer(session: Session): Promise<unknown> {
  await noAlert(session);
  return session.execute('return window.dialog_return_value');
}

/** Navigate to a page with a beforeunload handler and give it the user activation Chromium requires. */
async function armBeforeUnload(session: Session, title = 'unload'): Promise<void> {
  await session.navigate(pages.page(BEFORE_UNLOAD, title));
  await session.post(`/element/${await session.find('#b')}/click`);
}

async function stillWorks(session: Session): Promise<void> {
  assert.equal(await session.execute('return 40 + 2'), 42);
}

describe('the alert commands', () => {
  test('no prompt open: each answers no such alert', LIMIT, async () => {
    await s.navigate(pages.page('<p>quiet</p>'));
    await s.fails('POST', '/alert/dismiss', {}, 'no such alert', 404);
    await s.fails('POST', '/alert/accept', {}, 'no such alert', 404);
    await s.fails('GET', '/alert/text', undefined, 'no such alert', 404);
    await s.fails('POST', '/alert/text', { text: 'x' }, 'no such alert', 404);
  });

  test('Send Alert Text checks its text first: invalid argument', LIMIT, async () => {
    for (const body of [null, {}, { text: null }, { text: 42 }, { text: true }, { text: [] }, { text: {} }]) {
      await s.fails('POST', '/alert/text', body, 'invalid argument', 400);
    }
    await s.navigate(pages.page('<script>window.result = prompt("Name?", "def");</script>'));
    await s.fails('POST', '/alert/text', { text: 7 }, 'invalid argument', 400);
    assert.equal(await s.get('/alert/text'), 'Name?'); // still open
    await s.post('/alert/dismiss');
  });

  test('Get Alert Text: the message of an alert, a confirm and a prompt (not its default)', LIMIT, async () => {
    for (const [script, text] of [
      ['alert("Hello")', 'Hello'],
      ['confirm("Sure?")', 'Sure?'],
      ['prompt("Enter Your Name: ", "Federer")', 'Enter Your Name: '],
    ] as const) {
      // The dialog opens during the load: Navigate To answers once it is open.
      await s.navigate(pages.page(`<script>${script}</script>`));
      assert.equal(await s.get('/alert/text'), text);
      assert.equal(await s.get('/alert/text'), text, 'reading the text leaves the prompt open');
      await s.post('/alert/accept');
      await noAlert(s);
    }
  });

  test('Get Alert Text of an empty message is null', LIMIT, async () => {
    await s.navigate(pages.page('<script>alert()</script>'));
    assert.equal(await s.get('/alert/text'), null);
    await s.post('/alert/accept');
  });

  test('accept and dismiss answer the page: confirm true/false, prompt text/null', LIMIT, async () => {
    await s.navigate(pages.page('<p>dialogs</p>'));
    const cases: [DialogType, string, unknown, unknown][] = [
      ['alert', 'a', null, null],
      ['confirm', 'c', true, false],
      ['prompt', 'p', '', null],
    ];
    for (const [type, text, accepted, dismissed] of cases) {
      await createDialog(s, type, text);
      assert.equal(await s.post('/alert/accept'), null);
      assert.equal(await dialogAnswer(s), accepted, `${type} accepted`);
      await createDialog(s, type, text);
      assert.equal(await s.post('/alert/dismiss'), null);
      assert.equal(await dialogAnswer(s), dismissed, `${type} dismissed`);
    }
    await stillWorks(s);
  });

  test('Send Alert Text sets what an accepted prompt answers; dismissed it is still null', LIMIT, async () => {
    for (const text of ['Federer', '', ' Fed erer ', 'Fed\terer', 'émoji 🎾']) {
      await s.navigate(pages.page('<script>window.result = prompt("Name?", "Name");</script>'));
      assert.equal(await s.post('/alert/text', { text }), null);
      assert.equal(await s.get('/alert/text'), 'Name?', 'the message is not the text field');
      await s.post('/alert/accept');
      assert.equal(await s.execute('return window.result'), text);
    }
    // Without Send Alert Text, accepting answers the prompt's default value.
    await s.navigate(pages.page('<script>window.result = prompt("Name?", "Name");</script>'));
    await s.post('/alert/accept');
    assert.equal(await s.execute('return window.result'), 'Name');
    // The last text sent wins; dismissing ignores it.
    await s.navigate(pages.page('<script>window.result = prompt("Name?", "Name");</script>'));
    await s.post('/alert/text', { text: 'first' });
    await s.post('/alert/text', { text: 'second' });
    await s.post('/alert/dismiss');
    assert.equal(await s.execute('return window.result'), null);
    await s.navigate(pages.page('<script>window.result = prompt("Name?", "Name");</script>'));
    await s.post('/alert/text', { text: 'first' });
    await s.post('/alert/text', { text: 'second' });
    await s.post('/alert/accept');
    assert.equal(await s.execute('return window.result'), 'second');
  });

  test('Send Alert Text to an alert or a confirm: element not interactable, the prompt stays', LIMIT, async () => {
    for (const type of ['alert', 'confirm']) {
      await s.navigate(pages.page(`<script>window.result = ${type}("Hello");</script>`));
      await s.fails('POST', '/alert/text', { text: 'Federer' }, 'element not interactable', 400);
      assert.equal(await s.get('/alert/text'), 'Hello');
      await s.post('/alert/accept');
      await noAlert(s);
    }
    await stillWorks(s);
  });

  test('with the current window closed: no such window', LIMIT, async () => {
    const original = await s.get('/window');
    const { handle } = await s.post('/window/new', { type: 'tab' });
    await s.post('/window', { handle });
    await s.delete('/window');
    await s.fails('GET', '/alert/text', undefined, 'no such window', 404);
    await s.fails('POST', '/alert/accept', {}, 'no such window', 404);
    await s.fails('POST', '/alert/dismiss', {}, 'no such window', 404);
    await s.fails('POST', '/alert/text', { text: 'x' }, 'no such window', 404);
    // Send Alert Text still checks its text first.
    await s.fails('POST', '/alert/text', { text: 1 }, 'invalid argument', 400);
    await s.post('/window', { handle: original });
  });
});

describe('a prompt that opens during a command: the command answers, the prompt stays open', () => {
  test('Execute Script: success with null; the prompt is then open', LIMIT, async () => {
    await s.navigate(pages.page('<p>x</p>'));
    for (const type of ['alert', 'confirm', 'prompt']) {
      assert.equal(await s.execute(`window.${type}('x'); return 1;`), null);
      assert.equal(await s.get('/alert/text'), 'x');
      await s.post('/alert/accept');
    }
    await stillWorks(s);
  });

  test('Execute Script opening two prompts: the second opens once the first is accepted', LIMIT, async () => {
    assert.equal(await s.execute("alert('Hello'); alert('Bye'); return 1;"), null);
    assert.equal(await s.get('/alert/text'), 'Hello');
    await s.post('/alert/accept');
    await eventually(async () => (await s.raw('GET', '/alert/text')).value === 'Bye', 'the second alert did not open');
    await s.post('/alert/accept');
    await stillWorks(s);
  });

  test('Execute Async Script that never calls back: success with null once the prompt opens', LIMIT, async () => {
    const started = Date.now();
    assert.equal(await s.post('/execute/async', { script: "setTimeout(() => alert('later'), 10);", args: [] }), null);
    assert.ok(Date.now() - started < 20_000, 'waited for the script timeout');
    assert.equal(await s.get('/alert/text'), 'later');
    await s.post('/alert/dismiss');
  });

  test('a script a prompt cut short never runs again: not when its document goes, nor in the next one', LIMIT, async () => {
    await s.navigate(pages.page('<p>counting</p>'));
    const script = "sessionStorage.runs = Number(sessionStorage.runs || 0) + 1; setTimeout(() => window[arguments[0]]('once'), 0);";
    for (const type of ['alert', 'confirm', 'prompt']) {
      assert.equal(await s.post('/execute/async', { script, args: [type] }), null);
      await s.post('/alert/accept');
      assert.equal(await s.execute('return sessionStorage.runs'), '1');
      await s.execute('sessionStorage.runs = 0');
    }
    // A new document of the same origin (same sessionStorage): the abandoned call is over.
    await s.navigate(pages.page('<p>next</p>'));
    // A run again would show: the count grows, or its alert opens (this command then answers null).
    // Nothing to wait for but time: an absence.
    assert.equal(await s.execute('return new Promise((r) => setTimeout(() => r(sessionStorage.runs), 500))'), '0');
    await noAlert(s);
  });

  test('Element Click whose handler calls confirm(): success, then the confirm is open', LIMIT, async () => {
    await s.navigate(pages.page('<button id="b" onclick="window.r = confirm(\'sure?\')">ask</button>'));
    const b = await s.find('#b');
    assert.equal(await s.post(`/element/${b}/click`), null);
    assert.equal(await s.get('/alert/text'), 'sure?');
    await s.post('/alert/dismiss');
    assert.equal(await s.execute('return window.r'), false);
    // The session and its mouse keep working.
    await s.post(`/element/${b}/click`);
    await s.post('/alert/accept');
    assert.equal(await s.execute('return window.r'), true);
  });

  test('a prompt opened on mouse press: later clicks still work', LIMIT, async () => {
    await s.navigate(
      pages.page('<p id="p" onmousedown="alert(\'down\')">press</p><button id="b" onclick="window.c = (window.c || 0) + 1">count</button>'),
    );
    await s.post(`/element/${await s.find('#p')}/click`);
    assert.equal(await s.get('/alert/text'), 'down');
    await s.post('/alert/accept');
    const b = await s.find('#b');
    await s.post(`/element/${b}/click`);
    await s.post(`/element/${b}/click`);
    assert.equal(await s.execute('return window.c'), 2);
  });

  test('Element Send Keys whose keydown handler alerts: success, then the alert is open', LIMIT, async () => {
    await s.navigate(pages.page('<input id="i" onkeydown="if (!window.done) { window.done = true; alert(\'key \' + event.key); }">'));
    const input = await s.find('#i');
    assert.equal(await s.post(`/element/${input}/value`, { text: 'ab' }), null);
    assert.equal(await s.get('/alert/text'), 'key a');
    await s.post('/alert/accept');
    // The rest of the text was not typed.
    await s.post(`/element/${input}/value`, { text: 'cd' });
    assert.equal(await s.execute('return document.getElementById("i").value'), 'acd');
  });

  test('Navigate To a page that alerts while loading, or in its load event: it answers once the alert is open', LIMIT, async () => {
    const parsing = pages.page('<script>alert("parsing")</script><p id="after">after</p>', 'parsing');
    assert.equal(await s.navigate(parsing), null);
    assert.equal(await s.get('/alert/text'), 'parsing');
    await s.post('/alert/accept');
    assert.equal(await s.get('/url'), parsing);
    await s.find('#after'); // the rest of the page loaded once the alert was closed
    const onload = pages.page('<body onload="alert(\'loaded\')"><p>x</p></body>', 'onload');
    await s.navigate(onload);
    assert.equal(await s.get('/alert/text'), 'loaded');
    await s.post('/alert/accept');
    assert.equal(await s.get('/url'), onload);
    assert.equal(await s.get('/title'), 'onload');
  });

  test('a click that navigates to a page alerting while loading: success, the alert is open', LIMIT, async () => {
    const target = pages.page('<script>alert("arrived")</script>', 'target');
    await s.navigate(pages.page(`<a id="a" href="${target}">go</a>`));
    assert.equal(await s.post(`/element/${await s.find('#a')}/click`), null);
    await eventually(async () => (await s.raw('GET', '/alert/text')).value === 'arrived', 'the alert of the new page did not open');
    await s.post('/alert/accept');
    assert.equal(await s.get('/url'), target);
  });
});

describe('the default handler: dismiss and notify', () => {
  test('New Session answers the capability', () => {
    assert.equal(s.capabilities.unhandledPromptBehavior, 'dismiss and notify');
  });

  for (const [type, answer] of [
    ['alert', null],
    ['confirm', false],
    ['prompt', null],
  ] as const) {
    test(`a ${type} is dismissed and the command fails with unexpected alert open and the text`, LIMIT, async () => {
      await s.navigate(pages.page('<p>x</p>', 'Foo'));
      await createDialog(s, type, `my ${type}`);
      const e = await s.fails('GET', '/title', undefined, 'unexpected alert open', 500);
      assert.deepEqual(e.data, { text: `my ${type}` });
      assert.equal(await dialogAnswer(s), answer);
      assert.equal(await s.get('/title'), 'Foo');
    });
  }

  test('the command did not run: Execute Script with a prompt open', LIMIT, async () => {
    await createDialog(s, 'alert', 'blocking');
    await s.fails('POST', '/execute/sync', { script: 'window.result = 1; return 1;', args: [] }, 'unexpected alert open', 500);
    assert.equal(await s.execute('return window.result'), null);
  });

  test('an empty message: data.text is null', LIMIT, async () => {
    await s.execute('setTimeout(() => alert(), 0)');
    await eventually(async () => (await s.raw('GET', '/alert/text')).status === 200, 'no alert opened');
    const e = await s.fails('GET', '/url', undefined, 'unexpected alert open', 500);
    assert.deepEqual(e.data, { text: null });
  });

  test('commands whose steps do not handle prompts leave it open', LIMIT, async () => {
    await createDialog(s, 'confirm', 'left open');
    const handle = await s.get('/window');
    assert.deepEqual(await s.get('/window/handles'), [handle]);
    assert.deepEqual(await s.get('/timeouts'), { script: 30_000, pageLoad: 300_000, implicit: 0 });
    await s.post('/timeouts', { implicit: 0 });
    await s.post('/window', { handle });
    assert.equal(await s.get('/alert/text'), 'left open');
    await s.post('/alert/accept');
    assert.equal(await dialogAnswer(s), true);
  });

  test('Close Window with a prompt open: dismissed, unexpected alert open, the window stays', LIMIT, async () => {
    const original = await s.get('/window');
    const { handle } = await s.post('/window/new', { type: 'tab' });
    await s.post('/window', { handle });
    await createDialog(s, 'alert', 'closing');
    await s.fails('DELETE', '/window', undefined, 'unexpected alert open', 500);
    await noAlert(s);
    assert.ok((await s.get('/window/handles')).includes(handle));
    await s.delete('/window');
    await s.post('/window', { handle: original });
  });

  test('a prompt of another window is not the current one; it is handled once that window is current', LIMIT, async () => {
    const first = await s.get('/window');
    const since = gw.output().length;
    await s.execute("setTimeout(() => { window.dialog_return_value = confirm('elsewhere'); }, 300)");
    const { handle: second } = await s.post('/window/new', { type: 'tab' });
    await s.post('/window', { handle: second });
    await promptOpened(first, since);
    await noAlert(s);
    await s.navigate(pages.page('<p>x</p>', 'second'));
    assert.equal(await s.get('/title'), 'second');
    await s.delete('/window');
    await s.post('/window', { handle: first });
    assert.equal(await s.get('/alert/text'), 'elsewhere');
    const e = await s.fails('GET', '/title', undefined, 'unexpected alert open', 500);
    assert.deepEqual(e.data, { text: 'elsewhere' });
    assert.equal(await dialogAnswer(s), false);
  });
});

describe('beforeunload prompts', () => {
  test('Navigate To away from the page: the prompt is accepted, the navigation goes on', LIMIT, async () => {
    await armBeforeUnload(s);
    const target = pages.page('<p>target</p>', 'target');
    assert.equal(await s.navigate(target), null);
    assert.equal(await s.get('/url'), target);
    await noAlert(s);
  });

  test('Back, Refresh, a clicked link and a script navigation go on too', LIMIT, async () => {
    const target = pages.page('<p>target</p>', 'target');
    await s.navigate(target);
    await armBeforeUnload(s);
    await s.post('/back');
    assert.equal(await s.get('/title'), 'target');
    await armBeforeUnload(s);
    await s.post('/refresh');
    await noAlert(s);
    await s.navigate(pages.page(`${BEFORE_UNLOAD}<a id="a" href="${target}">go</a>`));
    await s.post(`/element/${await s.find('#b')}/click`);
    await s.post(`/element/${await s.find('#a')}/click`);
    assert.equal(await s.get('/title'), 'target');
    await armBeforeUnload(s);
    await s.execute('window.location.href = arguments[0];', [target]);
    await eventually(async () => (await s.get('/url')) === target, 'the script navigation did not happen');
    await noAlert(s);
  });

  test('a clicked link asks beforeunload first: the click still waits for the new document, each time (after a Back too)', LIMIT, async () => {
    // Firefox runs the page's tasks inside the prompt's loop: the click's check that no navigation
    // is pending can answer before the prompt is even reported (seen in about one click in six).
    const target = pages.page('<p>target</p>', 'target');
    for (let i = 0; i < 8; i++) {
      await s.navigate(pages.page(`${BEFORE_UNLOAD}<a id="a" href="${target}">go</a>`, `from ${i}`));
      await s.post(`/element/${await s.find('#b')}/click`);
      await s.post(`/element/${await s.find('#a')}/click`);
      assert.equal(await s.get('/title'), 'target', `click ${i}`);
      if (i % 2 === 0) {
        await s.post('/back');
        assert.equal(await s.get('/title'), `from ${i}`, `back ${i}`);
      }
    }
    await noAlert(s);
  });

  test('Close Window of such a page closes it (beforeunload does not run, as in chromedriver)', LIMIT, async () => {
    const original = await s.get('/window');
    const { handle } = await s.post('/window/new', { type: 'tab' });
    await s.post('/window', { handle });
    await armBeforeUnload(s);
    assert.deepEqual(await s.delete('/window'), [original]);
    await s.post('/window', { handle: original });
    await noAlert(s);
  });
});

/** New Session with this behavior; ended by the caller. */
async function sessionWith(behavior: unknown): Promise<Session> {
  const session = await gw.client.newSession({ unhandledPromptBehavior: behavior });
  assert.deepEqual(session.capabilities.unhandledPromptBehavior, behavior);
  return session;
}

type Outcome = { closed: unknown; notify: boolean } | 'ignored';

/** A dialog opened, then Get Title: what the handler did to it and whether the command failed. */
async function checkDialog(session: Session, type: DialogType, outcome: Outcome): Promise<void> {
  await session.navigate(pages.page('<p>x</p>', 'Foo'));
  await createDialog(session, type, `${type} text`);
  if (outcome === 'ignored') {
    const e = await session.fails('GET', '/title', undefined, 'unexpected alert open', 500);
    assert.deepEqual(e.data, { text: `${type} text` });
    assert.equal(await session.get('/alert/text'), `${type} text`, 'ignore leaves the prompt open');
    await session.post('/alert/dismiss');
    await noAlert(session);
    return;
  }
  if (outcome.notify) {
    const e = await session.fails('GET', '/title', undefined, 'unexpected alert open', 500);
    assert.deepEqual(e.data, { text: `${type} text` });
  } else {
    assert.equal(await session.get('/title'), 'Foo');
  }
  assert.equal(await dialogAnswer(session), outcome.closed, `${type}'s answer`);
}

/** Leaving a page with a beforeunload handler: accepted unless told otherwise. */
async function checkBeforeUnloadAccepted(session: Session): Promise<void> {
  await armBeforeUnload(session);
  const target = pages.page('<p>target</p>', 'target');
  assert.equal(await session.navigate(target), null);
  assert.equal(await session.get('/url'), target);
  await noAlert(session);
}

describe('unhandledPromptBehavior, string form (each in its own session)', () => {
  const accepted = { alert: null, confirm: true, prompt: '' };
  const dismissed = { alert: null, confirm: false, prompt: null };
  const cases: [string, (type: DialogType) => Outcome][] = [
    ['accept', (t) => ({ closed: accepted[t], notify: false })],
    ['accept and notify', (t) => ({ closed: accepted[t], notify: true })],
    ['dismiss', (t) => ({ closed: dismissed[t], notify: false })],
    ['dismiss and notify', (t) => ({ closed: dismissed[t], notify: true })],
    ['ignore', () => 'ignored'],
  ];
  for (const [behavior, outcome] of cases) {
    test(`"${behavior}": alert, confirm, prompt; beforeunload accepted`, LIMIT, async () => {
      const session = await sessionWith(behavior);
      try {
        for (const type of ['alert', 'confirm', 'prompt'] as const) await checkDialog(session, type, outcome(type));
        // beforeUnload is not covered by the string form: accepted (spec "get the prompt handler").
        await checkBeforeUnloadAccepted(session);
        await stillWorks(session);
      } finally {
        await session.end();
      }
    });
  }
});

describe('unhandledPromptBehavior, object form', () => {
  test('a handler per prompt type; unnamed types fall back to dismiss and notify', LIMIT, async () => {
    const session = await sessionWith({ alert: 'accept', confirm: 'ignore', prompt: 'dismiss and notify' });
    try {
      await checkDialog(session, 'alert', { closed: null, notify: false });
      await checkDialog(session, 'confirm', 'ignored');
      await checkDialog(session, 'prompt', { closed: null, notify: true });
      await checkBeforeUnloadAccepted(session);
    } finally {
      await session.end();
    }
    const fallback = await sessionWith({ prompt: 'accept' });
    try {
      await checkDialog(fallback, 'prompt', { closed: '', notify: false });
      await checkDialog(fallback, 'confirm', { closed: false, notify: true });
    } finally {
      await fallback.end();
    }
  });

  test('"default" covers the types not named, beforeunload included', LIMIT, async () => {
    const session = await sessionWith({ default: 'accept and notify', alert: 'dismiss' });
    try {
      await checkDialog(session, 'confirm', { closed: true, notify: true });
      await checkDialog(session, 'alert', { closed: null, notify: false });
      await checkBeforeUnloadAccepted(session);
    } finally {
      await session.end();
    }
  });

  test('beforeUnload "dismiss": the page stays, and navigations answer at once', LIMIT, async () => {
    const session = await sessionWith({ beforeUnload: 'dismiss' });
    try {
      const first = pages.page('<p>first</p>', 'first');
      await session.navigate(first);
      await armBeforeUnload(session, 'stays');
      assert.equal(await session.navigate(pages.page('<p>target</p>', 'target')), null);
      assert.equal(await session.get('/title'), 'stays');
      await session.post('/back');
      await session.post('/refresh');
      assert.equal(await session.get('/title'), 'stays');
      await noAlert(session);
      // Alerts still get the default handler.
      await checkDialog(session, 'alert', { closed: null, notify: true });
    } finally {
      await session.end();
    }
  });

  test('beforeUnload "ignore": the prompt stays open for the alert commands', LIMIT, async () => {
    const session = await sessionWith({ beforeUnload: 'ignore' });
    try {
      await armBeforeUnload(session, 'leaving');
      const target = pages.page('<p>target</p>', 'target');
      assert.equal(await session.navigate(target), null);
      assert.equal(await session.get('/alert/text'), null); // Chromium shows its own text
      const e = await session.fails('GET', '/title', undefined, 'unexpected alert open', 500);
      assert.deepEqual(e.data, { text: null });
      await session.fails('POST', '/alert/text', { text: 'x' }, 'unsupported operation', 500);
      // Dismissed: the page stays.
      await session.post('/alert/dismiss');
      assert.equal(await session.get('/title'), 'leaving');
      // Accepted: the navigation goes on.
      await session.navigate(target);
      await session.post('/alert/accept');
      await eventually(async () => (await session.get('/url')) === target, 'the navigation did not go on');
      await stillWorks(session);
    } finally {
      await session.end();
    }
  });
});

describe('other page load strategies', () => {
  test('eager: Navigate To a page alerting while loading answers once the alert is open', LIMIT, async () => {
    const session = await gw.client.newSession({ pageLoadStrategy: 'eager' });
    try {
      await session.navigate(pages.page('<script>alert("loading")</script><img src="/slow?ms=20000">'));
      assert.equal(await session.get('/alert/text'), 'loading');
      await session.post('/alert/accept');
      await stillWorks(session);
    } finally {
      await session.end();
    }
  });
});

describe('ending a session with a prompt open', () => {
  test('Delete Session does not handle it and leaves no browser behind', LIMIT, async () => {
    const session = await sessionWith('ignore');
    await createDialog(session, 'alert', 'bye');
    assert.equal(await session.end(), null);
    const other = await sessionWith('dismiss');
    await armBeforeUnload(other);
    assert.equal(await other.end(), null);
  });
});
