// Element Click and Element Send Keys as actions (src/webdriver/element-input.ts): the events a
// backend is asked to dispatch, recorded by a fake browser.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NoSuchWindowError, type DrivenBrowser, type KeyInputEvent, type PointerInputEvent } from '../../backends/backend.ts';
import { clickAt, typeText } from '../../src/webdriver/element-input.ts';

function fakeBrowser(options: { failOn?: (event: KeyInputEvent | PointerInputEvent) => Error | undefined; handles?: string[] } = {}) {
  const events: (KeyInputEvent | PointerInputEvent)[] = [];
  const record = async (_window: string, event: KeyInputEvent | PointerInputEvent) => {
    const failure = options.failOn?.(event);
    if (failure) throw failure;
    events.push(event);
  };
  const browser = {
    dispatchKeyInput: record,
    dispatchPointerInput: record,
    windowHandles: async () => options.handles ?? ['w'],
  } as unknown as DrivenBrowser;
  return { browser, events };
}

const keyLog = (events: (KeyInputEvent | PointerInputEvent)[]) =>
  (events as KeyInputEvent[]).map((e) => `${e.type === 'keyDown' ? '+' : '-'}${e.key}${e.text ? `(${JSON.stringify(e.text)})` : ''}`);

describe('Element Send Keys as key actions', () => {
  test('each character is pressed and released, typing itself', async () => {
    const { browser, events } = fakeBrowser();
    await typeText(browser, 'w', 'ab');
    assert.deepEqual(keyLog(events), ['+a("a")', '-a', '+b("b")', '-b']);
  });

  test('modifiers are sticky, Shift gives the shifted character, and what is held is released at the end', async () => {
    const { browser, events } = fakeBrowser();
    await typeText(browser, 'w', '\uE008a\uE008b\uE009c');
    assert.deepEqual(keyLog(events), ['+Shift', '+A("A")', '-A', '-Shift', '+b("b")', '-b', '+Control', '+c', '-c', '-Control']);
  });

  test('the NULL key releases every modifier held', async () => {
    const { browser, events } = fakeBrowser();
    await typeText(browser, 'w', '\uE008\uE00Ax\uE000y');
    assert.deepEqual(keyLog(events), ['+Shift', '+Alt', '+X', '-X', '-Shift', '-Alt', '+y("y")', '-y']);
  });

  test('a line break (\\n, \\r or \\r\\n) is Enter and a tab is Tab, as chromedriver types them', async () => {
    const { browser, events } = fakeBrowser();
    await typeText(browser, 'w', 'a\nb\r\nc\td');
    assert.deepEqual(keyLog(events), ['+a("a")', '-a', '+Enter("\\r")', '-Enter', '+b("b")', '-b', '+Enter("\\r")', '-Enter', '+c("c")', '-c', '+Tab', '-Tab', '+d("d")', '-d']);
    // The main Enter key, not the numpad's.
    const enter = (events as KeyInputEvent[]).find((e) => e.key === 'Enter')!;
    assert.deepEqual([enter.code, enter.location], ['Enter', 0]);
  });

  test('a failure midway (a prompt opened on a key) releases what is held, and is the answer', async () => {
    const { browser, events } = fakeBrowser({ failOn: (e) => ((e as KeyInputEvent).key === 'X' && e.type === 'keyDown' ? new Error('prompt') : undefined) });
    await assert.rejects(typeText(browser, 'w', '\uE008x'), /prompt/);
    assert.deepEqual(keyLog(events), ['+Shift', '-Shift']);
  });
});

describe('Element Click as pointer actions', () => {
  test('a new mouse moves to the point, presses and releases the main button: one click', async () => {
    const { browser, events } = fakeBrowser();
    await clickAt(browser, 'w', { x: 120, y: 45 });
    const pointer = events as PointerInputEvent[];
    assert.deepEqual(
      pointer.map((e) => [e.type, e.x, e.y, e.button, e.buttons, e.clickCount, e.pointerType]),
      [
        ['pointerMove', 120, 45, undefined, 0, 0, 'mouse'],
        ['pointerDown', 120, 45, 0, 1, 1, 'mouse'],
        ['pointerUp', 120, 45, 0, 0, 1, 'mouse'],
      ],
    );
  });

  test('a click that closes its own window is a click; another no such window is not', async () => {
    const closing = fakeBrowser({ failOn: (e) => (e.type === 'pointerUp' ? new NoSuchWindowError('gone') : undefined), handles: [] });
    await clickAt(closing.browser, 'w', { x: 1, y: 1 });
    const open = fakeBrowser({ failOn: (e) => (e.type === 'pointerUp' ? new NoSuchWindowError('gone') : undefined), handles: ['w'] });
    await assert.rejects(clickAt(open.browser, 'w', { x: 1, y: 1 }), NoSuchWindowError);
  });
});
