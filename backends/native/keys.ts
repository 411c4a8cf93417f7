// Which W3C key values puppeteer's keyboard knows (its US layout); others are inserted as text.
import { _keyDefinitions } from 'puppeteer-core/internal/common/USKeyboardLayout.js';

export function isKnownKey(key: string): boolean {
  return Object.hasOwn(_keyDefinitions, key);
}

/** A named key value ("ZenkakuHankaku") the layout lacks: sent as a bare key event, never as text. */
export function isNamedKey(key: string): boolean {
  return /^[A-Z][A-Za-z0-9]+$/.test(key);
}

// ── Perform Actions (the actions chapter): Windows virtual key codes ────────────────────────
/**
 * The Windows virtual key code of a key on the US layout (KeyboardEvent.keyCode; Chromium's
 * editing shortcuts such as Control+A and Backspace go by it): by the physical key `code` when
 * that key gives `key` (plain or shifted), else by the key value; 0 if unknown.
 */
export function virtualKeyCode(key: string, code: string): number {
  const physical = code ? _keyDefinitions[code as keyof typeof _keyDefinitions] : undefined;
  if (physical) {
    if (physical.key === key && physical.keyCode !== undefined) return physical.keyCode;
    if (physical.shiftKey === key) return physical.shiftKeyCode ?? physical.keyCode ?? 0;
  }
  const byKey = Object.hasOwn(_keyDefinitions, key) ? _keyDefinitions[key as keyof typeof _keyDefinitions] : undefined;
  return byKey?.keyCode ?? 0;
}
