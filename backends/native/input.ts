// Trusted input for the native backend: puppeteer's keyboard and mouse for Element Click and
// Send Keys, raw CDP Input events for Perform Actions (exact key, code, location, buttons).
import type { KeyInput, Page } from 'puppeteer-core';
import {
  NoSuchWindowError,
  type KeyInputEvent,
  type MouseEventParams,
  type PointerInputEvent,
  type TouchInputEvent,
  type WheelInputEvent,
} from '../backend.ts';
import { WHEEL_SETTLED } from '../shared.ts';
import { cdp } from './cdp.ts';
import { isKnownKey, isNamedKey, virtualKeyCode } from './keys.ts';

/** Where the mouse is, per page (puppeteer tracks it too, but privately). */
const pointers = new WeakMap<Page, { x: number; y: number }>();

export async function keyDown(page: Page, key: string): Promise<void> {
  if (isKnownKey(key)) await page.keyboard.down(key as KeyInput);
  else if (isNamedKey(key)) await cdp(page).send('Input.dispatchKeyEvent', { type: 'rawKeyDown', key });
  else await page.keyboard.sendCharacter(key); // outside the US layout: insert the text
}

export async function keyUp(page: Page, key: string): Promise<void> {
  if (isKnownKey(key)) await page.keyboard.up(key as KeyInput);
  else if (isNamedKey(key)) await cdp(page).send('Input.dispatchKeyEvent', { type: 'keyUp', key });
}

export async function mouseEvent(page: Page, event: MouseEventParams): Promise<void> {
  const options = { button: event.button ?? 'left', clickCount: event.clickCount ?? 1 } as const;
  // Each dispatched move waits for the renderer: press and release move only when needed.
  const at = pointers.get(page);
  if (event.type === 'move' || !at || at.x !== event.x || at.y !== event.y) {
    await page.mouse.move(event.x, event.y);
    pointers.set(page, { x: event.x, y: event.y });
  }
  if (event.type === 'down') await pressButton(page, options);
  else if (event.type === 'up') await page.mouse.up(options);
}

// ── Perform Actions input (the actions chapter; spec §15) ─────────────────────────────────
// Raw CDP rather than puppeteer's keyboard and mouse, so that key, code, location, buttons,
// click counts and modifiers are exactly the ones W3C computed.

export async function dispatchKeyInput(page: Page, event: KeyInputEvent): Promise<void> {
  const keyCode = virtualKeyCode(event.key, event.code);
  const down = event.type === 'keyDown';
  await inputCall(page, () =>
    cdp(page).send('Input.dispatchKeyEvent', {
      // A keyDown with text also fires keypress and types it; a rawKeyDown fires keydown only.
      type: !down ? 'keyUp' : event.text ? 'keyDown' : 'rawKeyDown',
      key: event.key,
      code: event.code,
      location: event.location,
      modifiers: event.modifiers,
      ...(down && event.text && { text: event.text, unmodifiedText: event.text }),
      windowsVirtualKeyCode: keyCode,
      nativeVirtualKeyCode: keyCode,
      autoRepeat: down && event.repeat,
      isKeypad: event.location === 3,
    }),
  );
}

export async function dispatchPointerInput(page: Page, event: PointerInputEvent): Promise<void> {
  const type = event.type === 'pointerDown' ? 'mousePressed' : event.type === 'pointerUp' ? 'mouseReleased' : 'mouseMoved';
  // A move names the button held (a drag), as a real mouse's does.
  const button = event.button === undefined ? heldButton(event.buttons) : (MOUSE_BUTTONS[event.button] ?? 'none');
  await inputCall(page, () =>
    cdp(page).send('Input.dispatchMouseEvent', {
      type,
      x: event.x,
      y: event.y,
      modifiers: event.modifiers,
      button,
      buttons: event.buttons,
      clickCount: event.clickCount,
      pointerType: event.pointerType,
      ...(event.pressure !== undefined && { force: event.pressure }),
      ...(event.tangentialPressure !== undefined && { tangentialPressure: event.tangentialPressure }),
      ...(event.tiltX !== undefined && { tiltX: event.tiltX }),
      ...(event.tiltY !== undefined && { tiltY: event.tiltY }),
      ...(event.twist !== undefined && { twist: event.twist }),
    }),
  );
  // Element Click skips moves to where the mouse already is.
  if (event.pointerType === 'mouse') pointers.set(page, { x: event.x, y: event.y });
}

export async function dispatchTouchInput(page: Page, event: TouchInputEvent): Promise<void> {
  // CDP compares the points with the previous event's: new ones touch, missing ones lift.
  // touchEnd and touchCancel carry no points (they end every touch).
  const type =
    event.type === 'cancel' ? 'touchCancel' : event.points.length === 0 ? 'touchEnd' : event.type === 'down' ? 'touchStart' : 'touchMove';
  const touchPoints =
    type === 'touchEnd' || type === 'touchCancel'
      ? []
      : event.points.map((p) => ({
          id: p.id,
          x: p.x,
          y: p.y,
          ...(p.width !== undefined && { radiusX: p.width / 2 }),
          ...(p.height !== undefined && { radiusY: p.height / 2 }),
          ...(p.pressure !== undefined && { force: p.pressure }),
          ...(p.tangentialPressure !== undefined && { tangentialPressure: p.tangentialPressure }),
          ...(p.tiltX !== undefined && { tiltX: p.tiltX }),
          ...(p.tiltY !== undefined && { tiltY: p.tiltY }),
          ...(p.twist !== undefined && { twist: p.twist }),
        }));
  await inputCall(page, () => cdp(page).send('Input.dispatchTouchEvent', { type, touchPoints, modifiers: event.modifiers }));
}

export async function dispatchWheelInput(page: Page, event: WheelInputEvent): Promise<void> {
  const client = cdp(page);
  const { x, y, deltaX, deltaY, modifiers } = event;
  await inputCall(page, () => client.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x, y, deltaX, deltaY, modifiers, button: 'none' }));
  // The wheel event reaches the page after the call answers (through the compositor): give
  // the page two frames to handle it (a hidden page has no frames: at most 100 ms).
  await inputCall(page, () => client.send('Runtime.evaluate', { expression: WHEEL_SETTLED, awaitPromise: true }));
}
/**
 * Press a mouse button. One still held (a user prompt opened on its press, and the release
 * never came) is released first, as a user's finger would be.
 */
async function pressButton(page: Page, options: Parameters<Page['mouse']['down']>[0]): Promise<void> {
  try {
    await page.mouse.down(options);
  } catch (e) {
    if (!(e instanceof Error && /is already pressed/.test(e.message))) throw e;
    await page.mouse.up(options);
    await page.mouse.down(options);
  }
}


/** W3C button numbers → CDP's button names. */
const MOUSE_BUTTONS = ['left', 'middle', 'right', 'back', 'forward'] as const;

/** The button a move reports from the buttons held (MouseEvent.buttons bits): the main one first. */
function heldButton(buttons: number): (typeof MOUSE_BUTTONS)[number] | 'none' {
  if (buttons & 1) return 'left';
  if (buttons & 2) return 'right';
  if (buttons & 4) return 'middle';
  if (buttons & 8) return 'back';
  if (buttons & 16) return 'forward';
  return 'none';
}


/** An Input call: the window closing under it (a handler closed it) is no such window. */
async function inputCall<T>(page: Page, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (page.isClosed() || /Target closed|Session closed|No target with given id/i.test(message)) throw new NoSuchWindowError('the window was closed');
    throw e;
  }
}
