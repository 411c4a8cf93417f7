// Spec §15 "Actions": the input state of a session (§15.3), the actions payload as typed action
// sequences (§15.5 "Processing actions") and their dispatch tick by tick (§15.6 "Dispatching
// actions"). Perform Actions and Release Actions (commands/actions.ts) wrap this; the page and
// the browser are reached through an ActionsContext, so that unit tests can stand in for them.
import {
  ModifierBit,
  type DrivenBrowser,
  type PointerInputProperties,
  type TouchInputPoint,
} from '../../backends/backend.ts';
import { error } from './errors.ts';
import { graphemeClusters, keyboardKey, shiftedKey, SPECIAL_KEYS } from './keys.ts';
import { isPlainObject } from './params.ts';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';

/** Like chromedriver: two presses of a button at one place this close together make a double click. */
export const DOUBLE_CLICK_MS = 500;
/** How often a pointer move or scroll with a duration dispatches an intermediate event. */
export const MOVE_INTERVAL_MS = 20;

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

// ── Processing actions (spec §15.5) ──────────────────────────────────────────────────────────

function invalid(message: string): never {
  throw error('invalid argument', message);
}

function isInteger(v: unknown, min: number, max: number): v is number {
  return Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
}

function isNumber(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max;
}

function integer(v: unknown, min: number, max: number, path: string): number {
  if (!isInteger(v, min, max)) invalid(`${path} must be an integer from ${min === -MAX_SAFE ? '-(2^53-1)' : min} to ${max === MAX_SAFE ? '2^53-1' : max}`);
  return v;
}

function optionalInteger(v: unknown, min: number, max: number, path: string): number | undefined {
  return v === undefined ? undefined : integer(v, min, max, path);
}

function optionalNumber(v: unknown, min: number, max: number, path: string): number | undefined {
  if (v === undefined) return undefined;
  if (!isNumber(v, min, max)) invalid(`${path} must be a number from ${min} to ${max}`);
  return v;
}

/** Spec "is element origin": an object representing a web element (not a frame, window or shadow root). */
function elementOrigin(v: unknown, path: string): { element: string } | undefined {
  if (!isPlainObject(v) || !Object.hasOwn(v, ELEMENT_KEY)) return undefined;
  const id = v[ELEMENT_KEY];
  if (typeof id !== 'string') invalid(`${path}.${ELEMENT_KEY} must be a string`);
  return { element: id };
}

/**
 * Spec "extract an action sequence": the payload's input source action sequences, validated
 * (invalid argument naming what is wrong), as actions grouped by tick. Input sources new to
 * the input state are added to it (spec "get or create an input source").
 */
export function extractActionSequence(state: InputState, actions: unknown): Action[][] {
  if (!Array.isArray(actions)) invalid('actions must be an array');
  const byTick: Action[][] = [];
  actions.forEach((sequence, i) => {
    processInputSourceActionSequence(state, sequence, `actions[${i}]`).forEach((action, tick) => {
      (byTick[tick] ??= []).push(action);
    });
  });
  return byTick;
}

/** Spec "process an input source action sequence". */
function processInputSourceActionSequence(state: InputState, sequence: unknown, path: string): Action[] {
  if (!isPlainObject(sequence)) invalid(`${path} must be an object`);
  const type = sequence.type;
  if (type !== 'none' && type !== 'key' && type !== 'pointer' && type !== 'wheel') {
    invalid(`${path}.type must be one of "none", "key", "pointer", "wheel"`);
  }
  const id = sequence.id;
  if (typeof id !== 'string') invalid(`${path}.id must be a string`);
  let pointerType: PointerType | undefined;
  if (type === 'pointer') pointerType = processPointerParameters(sequence.parameters, `${path}.parameters`);
  state.getOrCreate(type, id, pointerType, path);
  const items = sequence.actions;
  if (!Array.isArray(items)) invalid(`${path}.actions must be an array`);
  return items.map((item, i) => {
    const at = `${path}.actions[${i}]`;
    if (!isPlainObject(item)) invalid(`${at} must be an object`);
    switch (type) {
      case 'none':
        return processNullAction(id, item, at);
      case 'key':
        return processKeyAction(id, item, at);
      case 'pointer':
        return processPointerAction(id, pointerType!, item, at);
      case 'wheel':
        return processWheelAction(id, item, at);
    }
  });
}

/** Spec "process pointer parameters": the pointerType, mouse unless told. */
function processPointerParameters(parameters: unknown, path: string): PointerType {
  if (parameters === undefined) return 'mouse';
  if (!isPlainObject(parameters)) invalid(`${path} must be an object`);
  const pointerType = parameters.pointerType === undefined ? 'mouse' : parameters.pointerType;
  if (pointerType !== 'mouse' && pointerType !== 'pen' && pointerType !== 'touch') {
    invalid(`${path}.pointerType must be one of "mouse", "pen", "touch"`);
  }
  return pointerType;
}

/** Spec "process a pause action". */
function processPause(id: string, type: SourceType, item: Record<string, unknown>, path: string): PauseAction {
  const duration = optionalInteger(item.duration, 0, MAX_SAFE, `${path}.duration`);
  return { id, type, subtype: 'pause', ...(duration !== undefined && { duration }) };
}

function subtypeOf(item: Record<string, unknown>, allowed: readonly string[], path: string): string {
  if (typeof item.type !== 'string' || !allowed.includes(item.type)) {
    invalid(`${path}.type must be one of ${allowed.map((t) => `"${t}"`).join(', ')}`);
  }
  return item.type;
}

/** Spec "process a null action". */
function processNullAction(id: string, item: Record<string, unknown>, path: string): Action {
  subtypeOf(item, ['pause'], path);
  return processPause(id, 'none', item, path);
}

/** Spec "process a key action". */
function processKeyAction(id: string, item: Record<string, unknown>, path: string): Action {
  const subtype = subtypeOf(item, ['keyDown', 'keyUp', 'pause'], path);
  if (subtype === 'pause') return processPause(id, 'key', item, path);
  const value = item.value;
  // One code point or one grapheme cluster ("\u0BA8\u0BBF" is one key; "fa" two).
  if (typeof value !== 'string' || graphemeClusters(value).length !== 1) {
    invalid(`${path}.value must be a string of one character (one code point or grapheme cluster)`);
  }
  return { id, type: 'key', subtype: subtype as KeyAction['subtype'], value };
}

/** Spec "process a pointer action". */
function processPointerAction(id: string, pointerType: PointerType, item: Record<string, unknown>, path: string): Action {
  const subtype = subtypeOf(item, ['pause', 'pointerUp', 'pointerDown', 'pointerMove', 'pointerCancel'], path);
  switch (subtype) {
    case 'pause':
      return processPause(id, 'pointer', item, path);
    case 'pointerCancel':
      return { id, type: 'pointer', subtype, pointerType };
    case 'pointerMove': {
      // Spec "process a pointer move action".
      const duration = optionalInteger(item.duration, 0, MAX_SAFE, `${path}.duration`);
      const origin = item.origin === undefined ? 'viewport' : item.origin;
      let parsedOrigin: Origin;
      if (origin === 'viewport' || origin === 'pointer') parsedOrigin = origin;
      else parsedOrigin = elementOrigin(origin, `${path}.origin`) ?? invalid(`${path}.origin must be "viewport", "pointer" or a web element reference`);
      // Coordinates may be fractional (CSS pixels).
      const x = item.x;
      const y = item.y;
      if (!isNumber(x, -Infinity, Infinity)) invalid(`${path}.x must be a number`);
      if (!isNumber(y, -Infinity, Infinity)) invalid(`${path}.y must be a number`);
      return {
        id,
        type: 'pointer',
        subtype,
        pointerType,
        x,
        y,
        ...(duration !== undefined && { duration }),
        origin: parsedOrigin,
        ...processPointerProperties(item, path),
      };
    }
    default: {
      // Spec "process a pointer up or pointer down action".
      const button = integer(item.button, 0, MAX_SAFE, `${path}.button`);
      return { id, type: 'pointer', subtype: subtype as PointerButtonAction['subtype'], pointerType, button, ...processPointerProperties(item, path) };
    }
  }
}

/** Spec "process pointer properties" (the Pointer Events attributes), for every pointer type. */
function processPointerProperties(item: Record<string, unknown>, path: string): PointerProperties {
  const props: PointerProperties = {
    width: optionalInteger(item.width, 0, MAX_SAFE, `${path}.width`),
    height: optionalInteger(item.height, 0, MAX_SAFE, `${path}.height`),
    pressure: optionalNumber(item.pressure, 0, 1, `${path}.pressure`),
    tangentialPressure: optionalNumber(item.tangentialPressure, -1, 1, `${path}.tangentialPressure`),
    tiltX: optionalInteger(item.tiltX, -90, 90, `${path}.tiltX`),
    tiltY: optionalInteger(item.tiltY, -90, 90, `${path}.tiltY`),
    twist: optionalInteger(item.twist, 0, 359, `${path}.twist`),
    altitudeAngle: optionalNumber(item.altitudeAngle, 0, Math.PI / 2, `${path}.altitudeAngle`),
    azimuthAngle: optionalNumber(item.azimuthAngle, 0, 2 * Math.PI, `${path}.azimuthAngle`),
  };
  for (const key of Object.keys(props) as (keyof PointerProperties)[]) if (props[key] === undefined) delete props[key];
  return props;
}

/** Spec "process a wheel action". */
function processWheelAction(id: string, item: Record<string, unknown>, path: string): Action {
  const subtype = subtypeOf(item, ['pause', 'scroll'], path);
  if (subtype === 'pause') return processPause(id, 'wheel', item, path);
  const duration = optionalInteger(item.duration, 0, MAX_SAFE, `${path}.duration`);
  const origin = item.origin === undefined ? 'viewport' : item.origin;
  // The pointer origin has no meaning for a wheel (w3c/webdriver#1758): invalid, as WPT expects.
  const parsedOrigin =
    origin === 'viewport' ? origin : (elementOrigin(origin, `${path}.origin`) ?? invalid(`${path}.origin must be "viewport" or a web element reference`));
  return {
    id,
    type: 'wheel',
    subtype: 'scroll',
    x: integer(item.x, -MAX_SAFE, MAX_SAFE, `${path}.x`),
    y: integer(item.y, -MAX_SAFE, MAX_SAFE, `${path}.y`),
    deltaX: integer(item.deltaX, -MAX_SAFE, MAX_SAFE, `${path}.deltaX`),
    deltaY: integer(item.deltaY, -MAX_SAFE, MAX_SAFE, `${path}.deltaY`),
    ...(duration !== undefined && { duration }),
    origin: parsedOrigin,
  };
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
async function realSleep(ms: number): Promise<void> {
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

// ── Pointer actions (spec §15.6.3) ───────────────────────────────────────────────────────────

/** W3C button number → its MouseEvent.buttons bit (main 1, secondary 2, auxiliary 4, back 8, forward 16). */
export function buttonBit(button: number): number {
  if (button === 1) return 4;
  if (button === 2) return 2;
  return button < 31 ? 2 ** button : 0;
}

function buttonsOf(pressed: Set<number>): number {
  let bits = 0;
  for (const button of pressed) bits |= buttonBit(button);
  return bits;
}

/**
 * Tilt (degrees) from altitude and azimuth angles (radians), as Pointer Events converts them.
 * A pointer standing upright (altitude π/2) has no tilt.
 */
export function tiltFromAngles(altitude: number, azimuth: number): { tiltX: number; tiltY: number } {
  const degrees = 180 / Math.PI;
  let tiltX = 0;
  let tiltY = 0;
  if (altitude === 0) {
    // Lying flat: ±90 towards the azimuth's quadrant.
    const { PI } = Math;
    if (azimuth === 0 || azimuth === 2 * PI) tiltX = 90;
    else if (azimuth === PI / 2) tiltY = 90;
    else if (azimuth === PI) tiltX = -90;
    else if (azimuth === (3 * PI) / 2) tiltY = -90;
    else if (azimuth < PI / 2) [tiltX, tiltY] = [90, 90];
    else if (azimuth < PI) [tiltX, tiltY] = [-90, 90];
    else if (azimuth < (3 * PI) / 2) [tiltX, tiltY] = [-90, -90];
    else [tiltX, tiltY] = [90, -90];
  } else if (altitude < Math.PI / 2) {
    tiltX = Math.atan(Math.cos(azimuth) / Math.tan(altitude)) * degrees;
    tiltY = Math.atan(Math.sin(azimuth) / Math.tan(altitude)) * degrees;
  }
  return { tiltX: Math.round(tiltX) || 0, tiltY: Math.round(tiltY) || 0 };
}

/** The tilt an action asks for: tiltX/tiltY as given, else from its angles, else none. */
function tiltOf(props: PointerProperties): { tiltX?: number; tiltY?: number } {
  if (props.tiltX !== undefined || props.tiltY !== undefined) return { tiltX: props.tiltX ?? 0, tiltY: props.tiltY ?? 0 };
  if (props.altitudeAngle !== undefined || props.azimuthAngle !== undefined) {
    return tiltFromAngles(props.altitudeAngle ?? Math.PI / 2, props.azimuthAngle ?? 0);
  }
  return {};
}

/**
 * The pointer properties an event carries. A mouse has its fixed ones (pressure 0.5 while a
 * button is held); pen and touch take the action's, defaulting likewise.
 */
function eventProperties(source: PointerSource, props: PointerProperties, pressed: boolean): PointerInputProperties {
  const defaultPressure = pressed ? 0.5 : 0;
  if (source.subtype === 'mouse') return { pressure: defaultPressure };
  const out: PointerInputProperties = {
    pressure: props.pressure ?? defaultPressure,
    ...tiltOf(props),
    ...(props.twist !== undefined && { twist: props.twist }),
    ...(props.tangentialPressure !== undefined && { tangentialPressure: props.tangentialPressure }),
  };
  if (source.subtype === 'touch') {
    out.width = props.width ?? 1;
    out.height = props.height ?? 1;
  }
  return out;
}

/** Click counting: a press of the same button, at the same place, soon after the last one counts on. */
function countClick(source: PointerSource, button: number, time: number): number {
  const last = source.lastPress;
  const count = last && last.button === button && last.x === source.x && last.y === source.y && time - last.time <= DOUBLE_CLICK_MS ? last.count + 1 : 1;
  source.lastPress = { button, x: source.x, y: source.y, time, count };
  return count;
}

/** Spec "dispatch a pointerDown action" and "dispatch a pointerUp action". */
async function dispatchPointerButton(state: InputState, action: PointerButtonAction, source: PointerSource, ctx: ActionsContext): Promise<void> {
  const { button } = action;
  const down = action.subtype === 'pointerDown';
  // Spec: a button already held is not pressed again; one not held is not released.
  if (down === source.pressed.has(button)) return;
  if (down) source.pressed.add(button);
  else source.pressed.delete(button);
  const modifiers = state.modifiers();

  if (source.subtype === 'touch') {
    // A finger: its first button touches, its last lifts.
    if (down && !source.contact) {
      source.contact = { id: state.nextTouchId(), x: source.x, y: source.y, ...eventProperties(source, action, true) };
      await ctx.browser.dispatchTouchInput(ctx.window, { type: 'down', points: state.contacts(), modifiers });
    } else if (!down && source.pressed.size === 0 && source.contact) {
      source.contact = undefined;
      await ctx.browser.dispatchTouchInput(ctx.window, { type: 'up', points: state.contacts(), modifiers });
    }
    return;
  }

  const now = ctx.now ?? performance.now.bind(performance);
  const clickCount = down ? countClick(source, button, now()) : source.lastPress?.button === button ? source.lastPress.count : 1;
  await ctx.browser.dispatchPointerInput(ctx.window, {
    type: down ? 'pointerDown' : 'pointerUp',
    pointerType: source.subtype,
    x: source.x,
    y: source.y,
    button,
    buttons: buttonsOf(source.pressed),
    clickCount,
    modifiers,
    ...eventProperties(source, action, source.pressed.size > 0),
  });
}

/** pointerCancel (not yet specified): a touch's contact is cancelled; a mouse or pen has nothing to cancel. */
async function dispatchPointerCancel(state: InputState, source: PointerSource, ctx: ActionsContext): Promise<void> {
  if (source.subtype !== 'touch' || !source.contact) return;
  source.pressed.clear();
  // Cancelling ends every contact of the window (CDP's touchCancel).
  for (const other of state.sources.values()) {
    if (other.type === 'pointer' && other.contact) {
      other.contact = undefined;
      other.pressed.clear();
    }
  }
  await ctx.browser.dispatchTouchInput(ctx.window, { type: 'cancel', points: [], modifiers: state.modifiers() });
}

/**
 * Spec "get coordinates relative to an origin", checked to be in the viewport (else move target
 * out of bounds); answered in top-level viewport coordinates.
 */
async function targetPoint(origin: Origin, x: number, y: number, source: PointerSource | undefined, ctx: ActionsContext): Promise<Point> {
  const offset = await ctx.offset();
  let base: Point;
  if (origin === 'viewport') base = { x: 0, y: 0 };
  else if (origin === 'pointer') base = { x: source!.x - offset.x, y: source!.y - offset.y };
  // TODO(frames): an element origin is located in the current browsing context, whose offset
  // in the top-level viewport ctx.offset() adds; nested out-of-process frames are not special-cased.
  else base = await ctx.elementCenter(origin.element);
  const target = { x: base.x + x, y: base.y + y };
  const viewport = await ctx.viewport();
  if (target.x < 0 || target.y < 0 || target.x > viewport.width || target.y > viewport.height) {
    const from = origin === 'viewport' ? 'the viewport' : origin === 'pointer' ? 'the pointer' : 'the element';
    throw error(
      'move target out of bounds',
      `move target (${target.x}, ${target.y}) relative to ${from} is out of the ${viewport.width}x${viewport.height} viewport`,
    );
  }
  return { x: target.x + offset.x, y: target.y + offset.y };
}

/**
 * Spec "dispatch a pointerMove action" / "perform a pointer move": from where the pointer is to
 * the target over the duration, with intermediate moves. Answers once the move has started;
 * `done` settles when it has ended.
 */
async function dispatchPointerMove(
  state: InputState,
  action: PointerMoveAction,
  source: PointerSource,
  tickDuration: number,
  ctx: ActionsContext,
  stop: { stopped: boolean },
): Promise<{ done: Promise<void> }> {
  const start = { x: source.x, y: source.y };
  const target = await targetPoint(action.origin, action.x, action.y, source, ctx);
  const duration = action.duration ?? tickDuration;
  const moveTo = async (x: number, y: number) => {
    // Spec: only a move that changes the position is dispatched.
    if (x === source.x && y === source.y) return;
    source.x = x;
    source.y = y;
    const modifiers = state.modifiers();
    if (source.subtype === 'touch') {
      // A finger in the air is not seen; one touching drags its contact.
      if (!source.contact) return;
      source.contact = { id: source.contact.id, x, y, ...eventProperties(source, action, true) };
      await ctx.browser.dispatchTouchInput(ctx.window, { type: 'move', points: state.contacts(), modifiers });
      return;
    }
    await ctx.browser.dispatchPointerInput(ctx.window, {
      type: 'pointerMove',
      pointerType: source.subtype,
      x,
      y,
      buttons: buttonsOf(source.pressed),
      clickCount: 0,
      modifiers,
      ...eventProperties(source, action, source.pressed.size > 0),
    });
  };
  if (duration <= 0) {
    await moveTo(target.x, target.y);
    return { done: Promise.resolve() };
  }
  const done = interpolate(duration, ctx, stop, (ratio) =>
    ratio === 1 ? moveTo(target.x, target.y) : moveTo(start.x + (target.x - start.x) * ratio, start.y + (target.y - start.y) * ratio),
  );
  return { done };
}

/** Run `step` with the elapsed share of `duration` (0 < ratio ≤ 1) every MOVE_INTERVAL_MS, ending at 1. */
async function interpolate(duration: number, ctx: ActionsContext, stop: { stopped: boolean }, step: (ratio: number) => Promise<void>): Promise<void> {
  const now = ctx.now ?? performance.now.bind(performance);
  const sleep = ctx.sleep ?? realSleep;
  const start = now();
  for (;;) {
    await sleep(Math.min(MOVE_INTERVAL_MS, Math.max(0, duration - (now() - start))));
    if (stop.stopped) return;
    const ratio = Math.min(1, (now() - start) / duration);
    await step(ratio);
    if (ratio >= 1) return;
  }
}

/** Spec "dispatch a scroll action" / "perform a scroll": the deltas, spread over the duration. */
async function dispatchScroll(state: InputState, action: ScrollAction, tickDuration: number, ctx: ActionsContext, stop: { stopped: boolean }): Promise<{ done: Promise<void> }> {
  const at = await targetPoint(action.origin, action.x, action.y, undefined, ctx);
  const duration = action.duration ?? tickDuration;
  let doneX = 0;
  let doneY = 0;
  const scrollTo = async (ratio: number) => {
    const deltaX = Math.round(action.deltaX * ratio) - doneX;
    const deltaY = Math.round(action.deltaY * ratio) - doneY;
    // Spec: a step that scrolls nothing dispatches nothing.
    if (deltaX === 0 && deltaY === 0) return;
    doneX += deltaX;
    doneY += deltaY;
    await ctx.browser.dispatchWheelInput(ctx.window, { x: at.x, y: at.y, deltaX, deltaY, modifiers: state.modifiers() });
  };
  if (duration <= 0) {
    await scrollTo(1);
    return { done: Promise.resolve() };
  }
  return { done: interpolate(duration, ctx, stop, scrollTo) };
}
