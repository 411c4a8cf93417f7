// Input as WebDriver BiDi actions (BiDi input.performActions): the W3C layer decides each event;
// each is one action of one tick here, from input sources that stay the same for the session
// (the mouse's replaced when Firefox holds a press the W3C layer released), so that Firefox's own
// input state (keys and buttons held) follows the W3C layer's.
import { buttonBit, type KeyInputEvent, type PointerInputEvent, type TouchInputEvent, type WheelInputEvent } from '../backend.ts';

type Source = Record<string, unknown>;

export function keyActions(event: KeyInputEvent): Source[] {
  return [{ type: 'key', id: 'wdgate-key', actions: [{ type: event.type, value: event.value }] }];
}

/** Pointer properties BiDi takes on pointerDown and pointerMove. */
function properties(event: PointerInputEvent | (TouchInputEvent['points'][number] & { pointerType?: string })): Source {
  const out: Source = {};
  for (const name of ['width', 'height', 'pressure', 'tangentialPressure', 'twist'] as const) {
    if (event[name] !== undefined) out[name] = event[name];
  }
  // BiDi takes the pen's tilt as angles too (altitude/azimuth) or tiltX/tiltY: the W3C layer gives tilts.
  if (event.tiltX !== undefined) out.tiltX = event.tiltX;
  if (event.tiltY !== undefined) out.tiltY = event.tiltY;
  return out;
}

/**
 * The mouse's buttons as Firefox holds them, kept per input source from call to call. When a
 * prompt opened on a press, the W3C layer's release never reached Firefox (the prompt refused
 * it), and Firefox would take the next press of that button as held already: no mousedown, the
 * click lost. A source holding a button the W3C layer has released is left behind, and a fresh
 * one takes its place (Firefox sends no event for that; the page sees another pointerId from
 * then on, as it would for another mouse).
 */
export class MouseSource {
  #generation = 0;
  /** The buttons (MouseEvent.buttons bits) Firefox holds for the current source. */
  #held = 0;

  /** The source to send `event` from. */
  idFor(event: PointerInputEvent): string {
    const bit = event.button === undefined ? 0 : buttonBit(event.button);
    const before = event.type === 'pointerDown' ? event.buttons & ~bit : event.type === 'pointerUp' ? event.buttons | bit : event.buttons;
    if ((this.#held & ~before) !== 0) {
      this.#generation++;
      this.#held = 0;
    }
    return this.#generation === 0 ? 'wdgate-mouse' : `wdgate-mouse-${this.#generation}`;
  }

  /** `event` was sent to Firefox (a press it took even if a prompt then opened). */
  sent(event: PointerInputEvent): void {
    const bit = event.button === undefined ? 0 : buttonBit(event.button);
    if (event.type === 'pointerDown') this.#held |= bit;
    else if (event.type === 'pointerUp') this.#held &= ~bit;
  }
}

export function pointerActions(event: PointerInputEvent, id: string): Source[] {
  const action =
    event.type === 'pointerMove'
      ? { type: 'pointerMove', x: Math.round(event.x), y: Math.round(event.y), origin: 'viewport', duration: 0, ...properties(event) }
      : { type: event.type, button: event.button ?? 0, ...(event.type === 'pointerDown' && properties(event)) };
  // A press or release where the pointer is not yet: moved there first, in the same call.
  const actions = event.type === 'pointerMove' ? [action] : [{ type: 'pointerMove', x: Math.round(event.x), y: Math.round(event.y), origin: 'viewport', duration: 0 }, action];
  return [{ type: 'pointer', id, parameters: { pointerType: event.pointerType }, actions }];
}

/**
 * Touch: one BiDi touch pointer per point, all in one tick. `down` presses the points not
 * touching before, `up` lifts the ones gone; `touching` is the window's points in contact.
 */
export function touchActions(event: TouchInputEvent, touching: Set<number>): Source[] {
  const now = new Set(event.points.map((p) => p.id));
  const sources: Source[] = [];
  for (const point of event.points) {
    const actions: Source[] = [{ type: 'pointerMove', x: Math.round(point.x), y: Math.round(point.y), origin: 'viewport', duration: 0, ...properties(point) }];
    if (!touching.has(point.id)) actions.push({ type: 'pointerDown', button: 0, ...properties(point) });
    sources.push({ type: 'pointer', id: `wdgate-touch-${point.id}`, parameters: { pointerType: 'touch' }, actions });
  }
  for (const id of touching) {
    if (!now.has(id) || event.type === 'cancel') sources.push({ type: 'pointer', id: `wdgate-touch-${id}`, parameters: { pointerType: 'touch' }, actions: [{ type: 'pointerUp', button: 0 }] });
  }
  touching.clear();
  if (event.type !== 'cancel') for (const id of now) touching.add(id);
  return sources;
}

export function wheelActions(event: WheelInputEvent): Source[] {
  return [
    {
      type: 'wheel',
      id: 'wdgate-wheel',
      actions: [{ type: 'scroll', x: Math.round(event.x), y: Math.round(event.y), deltaX: Math.round(event.deltaX), deltaY: Math.round(event.deltaY), origin: 'viewport', duration: 0 }],
    },
  ];
}
