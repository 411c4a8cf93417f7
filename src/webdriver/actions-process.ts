// Spec §15.5 "Processing actions": the Perform Actions payload, checked member by member, as typed
// action sequences by tick, the input sources created or checked in the session's input state.
import { graphemeClusters } from './keys.ts';
import { isPlainObject, WEB_ELEMENT_IDENTIFIER as ELEMENT_KEY } from './params.ts';
import {
  invalid,
  type Action,
  type InputState,
  type KeyAction,
  type Origin,
  type PauseAction,
  type PointerButtonAction,
  type PointerProperties,
  type PointerType,
  type SourceType,
} from './actions.ts';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

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
