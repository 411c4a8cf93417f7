// The spec's keyboard tables (§15.6.2 "Keyboard actions"): the WebDriver special keys
// U+E000–U+E05D with their normalised key value, code and location, and the US layout's shifted
// characters. Used by Element Send Keys (§12.5.3) and by keyboard actions.

/** KeyboardEvent.location values (UI Events). */
export const KeyLocation = { Standard: 0, Left: 1, Right: 2, Numpad: 3 } as const;
export type KeyLocation = (typeof KeyLocation)[keyof typeof KeyLocation];

export interface SpecialKey {
  /** The normalised key value: a DOM `KeyboardEvent.key`. */
  key: string;
  /** The DOM `KeyboardEvent.code` of the physical key, '' where the spec names none. */
  code: string;
  location: KeyLocation;
}

/** The NULL key: releases every modifier held by this send keys call (spec: "clear the modifier key state"). */
export const NULL_KEY = '\uE000';

const { Standard, Left, Right, Numpad } = KeyLocation;

// [raw key, key, code, location]: the spec's "normalised key value", "code" and "key location"
// tables. U+E006 is "Return" in the spec's table, but DOM has no such key value: like
// chromedriver it is Enter (the main one; U+E007 is the numpad's).
const TABLE: readonly [string, string, string, KeyLocation][] = [
  ['\uE000', 'Unidentified', '', Standard],
  ['\uE001', 'Cancel', '', Standard],
  ['\uE002', 'Help', 'Help', Standard],
  ['\uE003', 'Backspace', 'Backspace', Standard],
  ['\uE004', 'Tab', 'Tab', Standard],
  ['\uE005', 'Clear', '', Standard],
  ['\uE006', 'Enter', 'Enter', Standard],
  ['\uE007', 'Enter', 'NumpadEnter', Left], // location 1: the spec's key location table, WPT and chromedriver
  ['\uE008', 'Shift', 'ShiftLeft', Left],
  ['\uE009', 'Control', 'ControlLeft', Left],
  ['\uE00A', 'Alt', 'AltLeft', Left],
  ['\uE00B', 'Pause', 'Pause', Standard],
  ['\uE00C', 'Escape', 'Escape', Standard],
  ['\uE00D', ' ', 'Space', Standard],
  ['\uE00E', 'PageUp', 'PageUp', Standard],
  ['\uE00F', 'PageDown', 'PageDown', Standard],
  ['\uE010', 'End', 'End', Standard],
  ['\uE011', 'Home', 'Home', Standard],
  ['\uE012', 'ArrowLeft', 'ArrowLeft', Standard],
  ['\uE013', 'ArrowUp', 'ArrowUp', Standard],
  ['\uE014', 'ArrowRight', 'ArrowRight', Standard],
  ['\uE015', 'ArrowDown', 'ArrowDown', Standard],
  ['\uE016', 'Insert', 'Insert', Standard],
  ['\uE017', 'Delete', 'Delete', Standard],
  ['\uE018', ';', '', Standard], // no code: the spec's code table has no row for U+E018 (WPT, chromedriver)
  ['\uE019', '=', 'NumpadEqual', Numpad], // the numpad's = (WPT's key table, chromedriver)
  ['\uE01A', '0', 'Numpad0', Numpad],
  ['\uE01B', '1', 'Numpad1', Numpad],
  ['\uE01C', '2', 'Numpad2', Numpad],
  ['\uE01D', '3', 'Numpad3', Numpad],
  ['\uE01E', '4', 'Numpad4', Numpad],
  ['\uE01F', '5', 'Numpad5', Numpad],
  ['\uE020', '6', 'Numpad6', Numpad],
  ['\uE021', '7', 'Numpad7', Numpad],
  ['\uE022', '8', 'Numpad8', Numpad],
  ['\uE023', '9', 'Numpad9', Numpad],
  ['\uE024', '*', 'NumpadMultiply', Numpad],
  ['\uE025', '+', 'NumpadAdd', Numpad],
  ['\uE026', ',', 'NumpadComma', Numpad],
  ['\uE027', '-', 'NumpadSubtract', Numpad],
  ['\uE028', '.', 'NumpadDecimal', Numpad],
  ['\uE029', '/', 'NumpadDivide', Numpad],
  ['\uE031', 'F1', 'F1', Standard],
  ['\uE032', 'F2', 'F2', Standard],
  ['\uE033', 'F3', 'F3', Standard],
  ['\uE034', 'F4', 'F4', Standard],
  ['\uE035', 'F5', 'F5', Standard],
  ['\uE036', 'F6', 'F6', Standard],
  ['\uE037', 'F7', 'F7', Standard],
  ['\uE038', 'F8', 'F8', Standard],
  ['\uE039', 'F9', 'F9', Standard],
  ['\uE03A', 'F10', 'F10', Standard],
  ['\uE03B', 'F11', 'F11', Standard],
  ['\uE03C', 'F12', 'F12', Standard],
  ['\uE03D', 'Meta', 'MetaLeft', Left],
  ['\uE040', 'ZenkakuHankaku', '', Standard],
  ['\uE050', 'Shift', 'ShiftRight', Right],
  ['\uE051', 'Control', 'ControlRight', Right],
  ['\uE052', 'Alt', 'AltRight', Right],
  ['\uE053', 'Meta', 'MetaRight', Right],
  ['\uE054', 'PageUp', 'Numpad9', Numpad],
  ['\uE055', 'PageDown', 'Numpad3', Numpad],
  ['\uE056', 'End', 'Numpad1', Numpad],
  ['\uE057', 'Home', 'Numpad7', Numpad],
  ['\uE058', 'ArrowLeft', 'Numpad4', Numpad],
  ['\uE059', 'ArrowUp', 'Numpad8', Numpad],
  ['\uE05A', 'ArrowRight', 'Numpad6', Numpad],
  ['\uE05B', 'ArrowDown', 'Numpad2', Numpad],
  ['\uE05C', 'Insert', 'Numpad0', Numpad],
  ['\uE05D', 'Delete', 'NumpadDecimal', Numpad],
];

export const SPECIAL_KEYS: ReadonlyMap<string, SpecialKey> = new Map(TABLE.map(([raw, key, code, location]) => [raw, { key, code, location }]));

/** The modifier key values (spec: the keys that set altKey, ctrlKey, metaKey, shiftKey). */
const MODIFIERS = new Set(['Shift', 'Control', 'Alt', 'Meta']);

export function isModifierKey(key: string): boolean {
  return MODIFIERS.has(key);
}

/**
 * Spec "normalised key value" of one grapheme cluster of the text: the special keys by the
 * table; line breaks and tab typed as plain characters are the keys they stand for (as
 * chromedriver types them); anything else is its own key value.
 */
export function normalisedKeyValue(raw: string): string {
  return SPECIAL_KEYS.get(TYPED_AS_KEYS.get(raw) ?? raw)?.key ?? raw;
}

/** Line breaks and tab in Send Keys text: the special keys they are typed as (Enter, Tab). */
export const TYPED_AS_KEYS: ReadonlyMap<string, string> = new Map([
  ['\n', '\uE006'],
  ['\r', '\uE006'],
  ['\r\n', '\uE006'],
  ['\t', '\uE004'],
]);

// The US layout's shifted characters (the spec's code table, "alternate key" column).
const UNSHIFTED = '`1234567890-=[]\\;\',./abcdefghijklmnopqrstuvwxyz';
const SHIFTED = '~!@#$%^&*()_+{}|:"<>?ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The key value a printable US-layout key gives while Shift is held ('a' → 'A', '1' → '!'). */
export function shiftedKey(key: string): string {
  const i = key.length === 1 ? UNSHIFTED.indexOf(key) : -1;
  return i < 0 ? key : SHIFTED[i]!;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The text's extended grapheme clusters: what one key press types (spec "dispatch actions for a string"). */
export function graphemeClusters(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

// ── Keyboard actions (spec §15.6.2; the actions chapter) ─────────────────────────────────────

// The spec's code table for the keys that type characters: the US layout's physical keys,
// found by their plain or shifted character ('a' and 'A' are both KeyA, '@' is Digit2).
const US_CODES: ReadonlyMap<string, string> = (() => {
  const codes = ['Backquote', ...'1234567890'.split('').map((d) => `Digit${d}`), 'Minus', 'Equal', 'BracketLeft', 'BracketRight', 'Backslash',
    'Semicolon', 'Quote', 'Comma', 'Period', 'Slash', ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('').map((c) => `Key${c}`)];
  const map = new Map<string, string>([[' ', 'Space']]);
  codes.forEach((code, i) => {
    map.set(UNSHIFTED[i]!, code);
    map.set(SHIFTED[i]!, code);
  });
  return map;
})();

/**
 * A keyboard action's raw key (one grapheme cluster) as the key it presses: the spec's
 * "normalized key value", "code" ('' where the spec has none) and "key location". Unlike
 * Send Keys' normalisedKeyValue, the raw key is taken as given ('\n' stays '\n').
 */
export function keyboardKey(raw: string): SpecialKey {
  return SPECIAL_KEYS.get(raw) ?? { key: raw, code: US_CODES.get(raw) ?? '', location: Standard };
}
