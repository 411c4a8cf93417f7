// Windows virtual key codes of the US layout, from puppeteer's key table.
import { _keyDefinitions } from 'puppeteer-core/internal/common/USKeyboardLayout.js';

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
