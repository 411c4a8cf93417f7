// Spec §15.6.3 and §15.6.4: dispatching pointer actions (buttons with click counting, moves
// interpolated over their duration, cancel, touch contacts, pen tilt) and wheel actions.
import { buttonBit, type PointerInputProperties } from '../../backends/backend.ts';
import { error } from './errors.ts';
import {
  DOUBLE_CLICK_MS,
  MOVE_INTERVAL_MS,
  realSleep,
  type ActionsContext,
  type InputState,
  type Origin,
  type Point,
  type PointerButtonAction,
  type PointerMoveAction,
  type PointerProperties,
  type PointerSource,
  type ScrollAction,
} from './actions.ts';


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
export async function dispatchPointerButton(state: InputState, action: PointerButtonAction, source: PointerSource, ctx: ActionsContext): Promise<void> {
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
export async function dispatchPointerCancel(state: InputState, source: PointerSource, ctx: ActionsContext): Promise<void> {
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
export async function dispatchPointerMove(
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
export async function dispatchScroll(state: InputState, action: ScrollAction, tickDuration: number, ctx: ActionsContext, stop: { stopped: boolean }): Promise<{ done: Promise<void> }> {
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
