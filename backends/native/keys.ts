// Which W3C key values puppeteer's keyboard knows (its US layout); others are inserted as text.
import { _keyDefinitions } from 'puppeteer-core/internal/common/USKeyboardLayout.js';

export function isKnownKey(key: string): boolean {
  return Object.hasOwn(_keyDefinitions, key);
}

/** A named key value ("ZenkakuHankaku") the layout lacks: sent as a bare key event, never as text. */
export function isNamedKey(key: string): boolean {
  return /^[A-Z][A-Za-z0-9]+$/.test(key);
}
