// Trusted input of the Playwright backend: Playwright's keyboard and mouse, with W3C's keys and
// buttons (Perform Actions, and Element Click and Send Keys as actions). Where Playwright's US
// layout has no key, Chromium gets a raw CDP key event; Firefox cannot (a declared gap).
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { NoSuchWindowError, UnsupportedPrimitiveError, type KeyInputEvent, type PointerInputEvent, type WheelInputEvent } from '../backend.ts';
import { WHEEL_SETTLED } from '../shared.ts';
import type { Engine } from './context.ts';
import { FIREFOX_GAPS, GAPS } from './gaps.ts';

const POINTER_BUTTONS = ['left', 'middle', 'right'] as const;

/** W3C key values Playwright names otherwise. */
const KEY_NAMES: Record<string, string> = { ' ': 'Space', Meta: 'Meta', OS: 'Meta' };

/** Run a call into the page unless a user prompt blocks it (the context's prompt guard). */
type Unblocked = (page: Page, work: () => Promise<void>) => Promise<void>;

export class PlaywrightInput {
  readonly #context: BrowserContext;
  readonly #engine: Engine;
  readonly #unblocked: Unblocked;
  /** Where Playwright's mouse is, per page: it presses where it is. */
  readonly #mouseAt = new WeakMap<Page, { x: number; y: number }>();
  readonly #keyboards = new WeakMap<Page, Promise<CDPSession>>();

  constructor(context: BrowserContext, engine: Engine, unblocked: Unblocked) {
    this.#context = context;
    this.#engine = engine;
    this.#unblocked = unblocked;
  }

  async key(page: Page, event: KeyInputEvent): Promise<void> {
    // A right-hand modifier is named by its code in Playwright's layout ("ShiftRight").
    const key = event.location === 2 && /^(Shift|Control|Alt|Meta)Right$/.test(event.code) ? event.code : event.key;
    const down = event.type === 'keyDown';
    await this.#input(page, async () => {
      try {
        const name = KEY_NAMES[key] ?? key;
        await (down ? page.keyboard.down(name) : page.keyboard.up(name));
        return;
      } catch (e) {
        if (!/Unknown key/.test(String(e))) throw e;
      }
      // Text outside the layout is inserted, as a user's input method would (and as native does);
      // a named key the layout lacks ("ZenkakuHankaku") is a bare key event, Chromium only.
      if (!/^[A-Z][A-Za-z0-9]+$/.test(key)) {
        if (down) await page.keyboard.insertText(key);
        return;
      }
      if (this.#engine !== 'chromium') throw new UnsupportedPrimitiveError(`${JSON.stringify(key)}: ${FIREFOX_GAPS.namedKeys}`);
      const cdp = await this.#keyboardSession(page);
      await cdp.send('Input.dispatchKeyEvent', { type: down ? 'rawKeyDown' : 'keyUp', key });
    });
  }

  async pointer(page: Page, event: PointerInputEvent): Promise<void> {
    if (event.pointerType !== 'mouse') throw new UnsupportedPrimitiveError(GAPS.penInput);
    const button = event.button === undefined ? 'left' : POINTER_BUTTONS[event.button];
    if (!button) throw new UnsupportedPrimitiveError(`mouse button ${event.button} cannot be pressed through Playwright`);
    const clickCount = event.clickCount ?? 1;
    await this.#input(page, async () => {
      // Playwright presses where its mouse is: a move only when it is elsewhere (one round trip less).
      const at = this.#mouseAt.get(page);
      if (event.type === 'pointerMove' || at?.x !== event.x || at?.y !== event.y) {
        await page.mouse.move(event.x, event.y);
        this.#mouseAt.set(page, { x: event.x, y: event.y });
      }
      if (event.type === 'pointerDown') await page.mouse.down({ button, clickCount });
      if (event.type === 'pointerUp') await page.mouse.up({ button, clickCount });
    });
  }

  async wheel(page: Page, event: WheelInputEvent): Promise<void> {
    await this.#input(page, async () => {
      await page.mouse.move(event.x, event.y);
      this.#mouseAt.set(page, { x: event.x, y: event.y });
      await page.mouse.wheel(event.deltaX, event.deltaY);
      await page.evaluate(WHEEL_SETTLED);
    });
  }

  /** Input into the page; the page closing under it (a handler closed it) is no such window, as native says. */
  async #input(page: Page, work: () => Promise<void>): Promise<void> {
    try {
      await this.#unblocked(page, work);
    } catch (e) {
      throw page.isClosed() ? new NoSuchWindowError('the window was closed') : e;
    }
  }

  #keyboardSession(page: Page): Promise<CDPSession> {
    let session = this.#keyboards.get(page);
    if (!session) {
      session = this.#context.newCDPSession(page);
      this.#keyboards.set(page, session);
    }
    return session;
  }
}
