// Trusted input for the native backend: raw CDP Input events with exactly the key, code,
// location, buttons, click counts and modifiers W3C computed (Perform Actions, and Element
// Click and Send Keys as actions).
import type { Page } from 'puppeteer-core';
import {
  NoSuchWindowError,
  type KeyInputEvent,
  type PointerInputEvent,
  type TouchInputEvent,
  type WheelInputEvent,
} from '../backend.ts';
import { WHEEL_SETTLED } from '../shared.ts';
import { cdp } from './cdp.ts';
import { virtualKeyCode } from './keys.ts';


/**
 * A key event carries at most 3 UTF-16 units of text (Chromium's keyboard event): a longer
 * grapheme cluster (an emoji with a skin tone) is inserted as text, as an input method does.
 */
const tooLongForAKey = (text: string) => text.length > 3 && !/^[A-Za-z][A-Za-z0-9]*$/.test(text);

export async function dispatchKeyInput(page: Page, event: KeyInputEvent): Promise<void> {
  const keyCode = virtualKeyCode(event.key, event.code);
  const down = event.type === 'keyDown';
  if (tooLongForAKey(event.key)) {
    if (down && event.text) await inputCall(page, () => cdp(page).send('Input.insertText', { text: event.text }));
    return;
  }
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
