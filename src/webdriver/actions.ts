// Spec §15 "Actions": the input state of a session (§15.3), the action objects, and their
// dispatch tick by tick (§15.6 "Dispatching actions"), with keyboard actions here and pointer and
// wheel actions in ./actions-pointer.ts; the actions payload becomes typed action sequences in
// ./actions-process.ts (§15.5). Perform Actions and Release Actions (commands/actions.ts) wrap
// this; the page and the browser are reached through an ActionsContext, so that unit tests can
// stand in for them.
import {
  ModifierBit,
  type DrivenBrowser,
  type PointerInputProperties,
  type TouchInputPoint,
} from '../../backends/backend.ts';
import { error } from './errors.ts';
import { graphemeClusters, keyboardKey, shiftedKey, SPECIAL_KEYS } from './keys.ts';
import { dispatchPointerButton, dispatchPointerCancel, dispatchPointerMove, dispatchScroll } from './actions-pointer.ts';

export { extractActionSequence } from './actions-process.ts';
export { tiltFromAngles } from './actions-pointer.ts';

/** Like chromedriver: two presses of a button at one place this close together make a double click. */
export const DOUBLE_CLICK_MS = 500;
/** How often a pointer move or scroll with a duration dispatches an intermediate event. */
export const MOVE_INTERVAL_MS = 20;

/** An invalid argument error naming what is wrong (processing actions, input sources). */
export function invalid(message: string): never {
  throw error('invalid argument', message);
}

// ── Action objects (spec §15.5) ──────────────────────────────────────────────────────────────

export type SourceType = 'none' | 'key' | 'pointer' | 'wheel';
export type PointerType = 'mouse' | 'pen' | 'touch';
/** Where pointer move and scroll coordinates count from; an element: its in-view center point. */
export type Origin = 'viewport' | 'pointer' | { element: string };

/**
 * Spec "process pointer properties": optional, validated, absent ones take defaults at dispatch.
 * Altitude and azimuth are turned into the backend's tilts when dispatched.
 */
export interface PointerProperties extends PointerInputProperties {
  altitudeAngle?: number;
  azimuthAngle?: number;
}

export interface PauseAction {
  id: string;
  type: SourceType;
  subtype: 'pause';
  duration?: number;
}
export interface KeyAction {
  id: string;
  type: 'key';
  subtype: 'keyDown' | 'keyUp';
  /** The raw key: one code point or grapheme cluster. */
  value: string;
}
export interface PointerButtonAction extends PointerProperties {
  id: string;
  type: 'pointer';
  subtype: 'pointerDown' | 'pointerUp';
  pointerType: PointerType;
  button: number;
}
export interface PointerMoveAction extends PointerProperties {
  id: string;
  type: 'pointer';
  subtype: 'pointerMove';
  pointerType: PointerType;
  x: number;
  y: number;
  duration?: number;
  origin: Origin;
}
export interface PointerCancelAction {
  id: string;
  type: 'pointer';
  subtype: 'pointerCancel';
  pointerType: PointerType;
}
export interface ScrollAction {
  id: string;
  type: 'wheel';
  subtype: 'scroll';
  x: number;
  y: number;
  deltaX: number;
  deltaY: number;
  duration?: number;
  origin: 'viewport' | { element: string };
}
export type Action = PauseAction | KeyAction | PointerButtonAction | PointerMoveAction | PointerCancelAction | ScrollAction;

// ── Input state (spec §15.3) ─────────────────────────────────────────────────────────────────

export interface NullSource {
  type: 'none';
}
export interface WheelSource {
  type: 'wheel';
}
export interface KeySource {
  type: 'key';
  /** Normalized key values held down. */
  pressed: Set<string>;
  alt: boolean;
  ctrl: boolean;
  meta: boolean;
  shift: boolean;
}
export interface PointerSource {
  type: 'pointer';
  subtype: PointerType;
  /** Buttons held down (W3C button numbers). */
  pressed: Set<number>;
  /** Where the pointer is, in CSS pixels of the top-level viewport. */
  x: number;
  y: number;
  /** The last press, for click counting (mouse and pen). */
  lastPress?: { button: number; x: number; y: number; time: number; count: number };
  /** A touch pointer's contact while it is down. */
  contact?: TouchInputPoint;
}
export type InputSource = NullSource | KeySource | PointerSource | WheelSource;

/** Spec "input state": the input sources of one session in one top-level browsing context. */
export class InputState {
  readonly sources = new Map<string, InputSource>();
  /** Spec "input cancel list": what undoes the keys and buttons held, in the order they were pressed. */
  readonly cancelList: Action[] = [];
  /** Ids for touch contacts (the browser tells touches apart by them). */
  #nextTouchId = 1;

  nextTouchId(): number {
    return this.#nextTouchId++;
  }

  /**
   * Spec "get or create an input source": the same id must keep its type (and a pointer its
   * pointerType), across requests as within one.
   */
  getOrCreate(type: SourceType, id: string, pointerType: PointerType | undefined, path: string): InputSource {
    const existing = this.sources.get(id);
    if (existing) {
      if (existing.type !== type) invalid(`${path}: input source "${id}" is a ${existing.type} input source, not ${type}`);
      if (existing.type === 'pointer' && existing.subtype !== pointerType) {
        invalid(`${path}: pointer input source "${id}" has pointerType "${existing.subtype}", not "${pointerType}"`);
      }
      return existing;
    }
    const source: InputSource =
      type === 'key'
        ? { type, pressed: new Set(), alt: false, ctrl: false, meta: false, shift: false }
        : type === 'pointer'
          ? { type, subtype: pointerType!, pressed: new Set(), x: 0, y: 0 }
          : { type };
    this.sources.set(id, source);
    return source;
  }

  /** Spec "get the global key state": the modifiers held by any key input source, as bits. */
  modifiers(): number {
    let bits = 0;
    for (const source of this.sources.values()) {
      if (source.type !== 'key') continue;
      if (source.alt) bits |= ModifierBit.Alt;
      if (source.ctrl) bits |= ModifierBit.Control;
      if (source.meta) bits |= ModifierBit.Meta;
      if (source.shift) bits |= ModifierBit.Shift;
    }
    return bits;
  }

  /** Every touch contact of this top-level browsing context. */
  contacts(): TouchInputPoint[] {
    const points: TouchInputPoint[] = [];
    for (const source of this.sources.values()) if (source.type === 'pointer' && source.contact) points.push(source.contact);
    return points;
  }
}

/** Spec "input state map": per session, per top-level browsing context (window handle). */
const inputStates = new WeakMap<object, Map<string, InputState>>();

/** Spec "get the input state". */
export function getInputState(session: object, window: string): InputState {
  let map = inputStates.get(session);
  if (!map) inputStates.set(session, (map = new Map()));
  let state = map.get(window);
  if (!state) map.set(window, (state = new InputState()));
  return state;
}

/** Spec "reset the input state": the next actions start afresh. */
export function resetInputState(session: object, window: string): void {
  inputStates.get(session)?.delete(window);
}

// ── Dispatching actions (spec §15.6) ─────────────────────────────────────────────────────────

export interface Point {
  x: number;
  y: number;
}

export interface ViewportSize {
  width: number;
  height: number;
}

/** What dispatching needs of the session: the browser's input primitives and the page's geometry. */
export interface ActionsContext {
  browser: Pick<DrivenBrowser, 'dispatchKeyInput' | 'dispatchPointerInput' | 'dispatchTouchInput' | 'dispatchWheelInput'>;
  /** The top-level window input goes to. */
  window: string;
  /** The current browsing context's viewport size, in its CSS pixels. */
  viewport(): Promise<ViewportSize>;
  /** Spec "in-view center point" of an element origin, in the current browsing context's viewport. */
  elementCenter(id: string): Promise<Point>;
  /** Where the current browsing context's viewport is in the top-level one ({0, 0} at the top). */
  offset(): Promise<Point>;
  /** Clock and timer (unit tests replace them). */
  now?(): number;
  sleep?(ms: number): Promise<void>;
}

/** Node timers fire at once past 2^31-1 ms; durations may be up to 2^53-1: wait in parts. */
const MAX_TIMER_MS = 2 ** 31 - 1;
export async function realSleep(ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= MAX_TIMER_MS) {
    await new Promise<void>((resolve) => setTimeout(resolve, Math.min(left, MAX_TIMER_MS)));
  }
}

/** Spec "dispatch actions": tick by tick; a tick lasts at least its longest duration. */
export async function dispatchActions(state: InputState, actionsByTick: Action[][], ctx: ActionsContext): Promise<void> {
  const now = ctx.now ?? performance.now.bind(performance);
  const sleep = ctx.sleep ?? realSleep;
  for (const tickActions of actionsByTick) {
    const start = now();
    const tickDuration = computeTickDuration(tickActions);
    await dispatchTickActions(state, tickActions, tickDuration, ctx);
    const left = tickDuration - (now() - start);
    if (left > 0) await sleep(left);
  }
  pruneCancelList(state);
}

/**
 * Drop the input cancel list's entries for keys and buttons no longer held: undoing them would
 * do nothing (a keyUp or pointerUp of what is not held is not dispatched), and a long session
 * would otherwise keep one entry per key press until Release Actions.
 */
function pruneCancelList(state: InputState): void {
  const stillHeld = (action: Action): boolean => {
    const source = state.sources.get(action.id);
    if (action.subtype === 'keyUp') return source?.type === 'key' && source.pressed.has(keyboardKey(action.value).key);
    if (action.subtype === 'pointerUp') return source?.type === 'pointer' && source.pressed.has(action.button);
    return true;
  };
  const kept = state.cancelList.filter(stillHeld);
  if (kept.length !== state.cancelList.length) state.cancelList.splice(0, state.cancelList.length, ...kept);
}

/** Spec "compute the tick duration": the longest pause, pointer move or scroll of the tick. */
export function computeTickDuration(tickActions: Action[]): number {
  let max = 0;
  for (const action of tickActions) {
    if ((action.subtype === 'pause' || action.subtype === 'pointerMove' || action.subtype === 'scroll') && action.duration !== undefined) {
      max = Math.max(max, action.duration);
    }
  }
  return max;
}

/**
 * Spec "dispatch tick actions": each action in order; pointer moves and scrolls with a duration
 * go on in the background until the tick's end. A keyDown or pointerDown adds its undoing to the
 * input cancel list.
 */
export async function dispatchTickActions(state: InputState, tickActions: Action[], tickDuration: number, ctx: ActionsContext): Promise<void> {
  const running: Promise<void>[] = [];
  const stop = { stopped: false };
  try {
    for (const action of tickActions) {
      const source = state.sources.get(action.id);
      if (!source) throw error('unknown error', `no input source "${action.id}"`);
      switch (action.subtype) {
        case 'pause':
          break;
        case 'keyDown':
        case 'keyUp':
          await dispatchKeyAction(state, action, source as KeySource, ctx);
          break;
        case 'pointerDown':
        case 'pointerUp':
          await dispatchPointerButton(state, action, source as PointerSource, ctx);
          break;
        case 'pointerMove':
          running.push((await dispatchPointerMove(state, action, source as PointerSource, tickDuration, ctx, stop)).done);
          break;
        case 'pointerCancel':
          await dispatchPointerCancel(state, source as PointerSource, ctx);
          break;
        case 'scroll':
          running.push((await dispatchScroll(state, action, tickDuration, ctx, stop)).done);
          break;
      }
      // A move still going on fails at the tick's end, not as an unhandled rejection before it.
      running.at(-1)?.catch(() => {});
      if (action.subtype === 'keyDown') state.cancelList.push({ ...action, subtype: 'keyUp' });
      if (action.subtype === 'pointerDown') state.cancelList.push({ ...action, subtype: 'pointerUp' });
    }
  } catch (e) {
    stop.stopped = true;
    await Promise.allSettled(running);
    throw e;
  }
  await Promise.all(running);
}

/** Spec "undo": Release Actions dispatches the input cancel list in reverse, in one tick. */
export async function releaseAll(state: InputState, ctx: ActionsContext): Promise<void> {
  const undo = [...state.cancelList].reverse();
  await dispatchTickActions(state, undo, 0, ctx);
}

// ── Keyboard actions (spec §15.6.2) ──────────────────────────────────────────────────────────

const MODIFIER_FLAGS = { Alt: 'alt', Control: 'ctrl', Meta: 'meta', Shift: 'shift' } as const;

/**
 * What a key types: a printable key its own character, Enter a carriage return; nothing while
 * Control, Alt or Meta is held (a shortcut, as on a real keyboard).
 */
function typedText(key: string, modifiers: number): string {
  if (modifiers & (ModifierBit.Alt | ModifierBit.Control | ModifierBit.Meta)) return '';
  if (key === 'Enter') return '\r';
  // Named keys ("Tab", "ArrowLeft", "Unidentified") are several characters; controls type nothing.
  return graphemeClusters(key).length === 1 && !/^\p{Cc}$/u.test(key) ? key : '';
}

/** Spec "dispatch a keyDown action" and "dispatch a keyUp action". */
async function dispatchKeyAction(state: InputState, action: KeyAction, source: KeySource, ctx: ActionsContext): Promise<void> {
  // `pressed` holds the normalized key value; the event's key may be its shifted character.
  const { key: normalized, code, location } = keyboardKey(action.value);
  const down = action.subtype === 'keyDown';
  // Spec keyUp: a key that is not held is not released.
  if (!down && !source.pressed.has(normalized)) return;
  const repeat = down && source.pressed.has(normalized);
  const flag = MODIFIER_FLAGS[normalized as keyof typeof MODIFIER_FLAGS];
  if (flag) source[flag] = down;
  if (down) source.pressed.add(normalized);
  else source.pressed.delete(normalized);
  const modifiers = state.modifiers();
  // With Shift held, a character key of the US layout gives its shifted character ('b' → 'B',
  // '1' → '!'), as a keyboard does and as WPT expects (release_actions, key_modifier); the code
  // stays the physical key's. The special keys (the numpad's digits too) keep their value.
  const eventKey = modifiers & ModifierBit.Shift && !SPECIAL_KEYS.has(action.value) ? shiftedKey(normalized) : normalized;
  await ctx.browser.dispatchKeyInput(ctx.window, {
    type: down ? 'keyDown' : 'keyUp',
    value: action.value,
    key: eventKey,
    code,
    location,
    modifiers,
    text: down ? typedText(eventKey, modifiers) : '',
    repeat,
  });
}
