// Which W3C key values puppeteer's keyboard knows (its US layout); others are inserted as text.
import { _keyDefinitions } from 'puppeteer-core/internal/common/USKeyboardLayout.js';

export function isKnownKey(key: string): boolean {
  return Object.hasOwn(_keyDefinitions, key);
}
