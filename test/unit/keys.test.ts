// The spec's keyboard tables (src/webdriver/keys.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { graphemeClusters, isModifierKey, KeyLocation, normalisedKeyValue, NULL_KEY, shiftedKey, SPECIAL_KEYS } from '../../src/webdriver/keys.ts';

describe('normalised key value', () => {
  test('special keys map to DOM key values', () => {
    const expected: Record<string, string> = {
      '\uE000': 'Unidentified',
      '\uE001': 'Cancel',
      '\uE002': 'Help',
      '\uE003': 'Backspace',
      '\uE004': 'Tab',
      '\uE005': 'Clear',
      '\uE006': 'Enter', // the spec's "Return": DOM has no such key value
      '\uE007': 'Enter',
      '\uE008': 'Shift',
      '\uE009': 'Control',
      '\uE00A': 'Alt',
      '\uE00B': 'Pause',
      '\uE00C': 'Escape',
      '\uE00D': ' ',
      '\uE00E': 'PageUp',
      '\uE00F': 'PageDown',
      '\uE010': 'End',
      '\uE011': 'Home',
      '\uE012': 'ArrowLeft',
      '\uE013': 'ArrowUp',
      '\uE014': 'ArrowRight',
      '\uE015': 'ArrowDown',
      '\uE016': 'Insert',
      '\uE017': 'Delete',
      '\uE018': ';',
      '\uE019': '=',
      '\uE024': '*',
      '\uE025': '+',
      '\uE026': ',',
      '\uE027': '-',
      '\uE028': '.',
      '\uE029': '/',
      '\uE03D': 'Meta',
      '\uE040': 'ZenkakuHankaku',
      '\uE050': 'Shift',
      '\uE051': 'Control',
      '\uE052': 'Alt',
      '\uE053': 'Meta',
      '\uE054': 'PageUp',
      '\uE055': 'PageDown',
      '\uE056': 'End',
      '\uE057': 'Home',
      '\uE058': 'ArrowLeft',
      '\uE059': 'ArrowUp',
      '\uE05A': 'ArrowRight',
      '\uE05B': 'ArrowDown',
      '\uE05C': 'Insert',
      '\uE05D': 'Delete',
    };
    for (const [raw, key] of Object.entries(expected)) {
      assert.equal(normalisedKeyValue(raw), key, `U+${raw.charCodeAt(0).toString(16).toUpperCase()}`);
    }
  });

  test('numpad digits and F keys', () => {
    for (let d = 0; d <= 9; d++) {
      const raw = String.fromCharCode(0xe01a + d);
      assert.equal(normalisedKeyValue(raw), String(d));
      assert.equal(SPECIAL_KEYS.get(raw)!.code, `Numpad${d}`);
      assert.equal(SPECIAL_KEYS.get(raw)!.location, KeyLocation.Numpad);
    }
    for (let n = 1; n <= 12; n++) assert.equal(normalisedKeyValue(String.fromCharCode(0xe030 + n)), `F${n}`);
  });

  test('locations: left and right modifiers, numpad navigation keys', () => {
    assert.equal(SPECIAL_KEYS.get('\uE008')!.location, KeyLocation.Left);
    assert.equal(SPECIAL_KEYS.get('\uE008')!.code, 'ShiftLeft');
    assert.equal(SPECIAL_KEYS.get('\uE050')!.location, KeyLocation.Right);
    assert.equal(SPECIAL_KEYS.get('\uE050')!.code, 'ShiftRight');
    assert.equal(SPECIAL_KEYS.get('\uE053')!.code, 'MetaRight');
    assert.equal(SPECIAL_KEYS.get('\uE05D')!.location, KeyLocation.Numpad);
    assert.equal(SPECIAL_KEYS.get('\uE012')!.location, KeyLocation.Standard);
  });

  test('the table has no gaps the spec does not have', () => {
    // U+E000–U+E029, U+E031–U+E03D, U+E040, U+E050–U+E05D: 42 + 13 + 1 + 14.
    assert.equal(SPECIAL_KEYS.size, 70);
    for (const gap of ['\uE02A', '\uE030', '\uE03E', '\uE03F', '\uE041', '\uE04F', '\uE05E']) {
      assert.equal(SPECIAL_KEYS.has(gap), false);
      assert.equal(normalisedKeyValue(gap), gap);
    }
  });

  test('ordinary characters are their own key; typed line breaks and tabs are keys', () => {
    assert.equal(normalisedKeyValue('a'), 'a');
    assert.equal(normalisedKeyValue('é'), 'é');
    assert.equal(normalisedKeyValue('\n'), 'Enter');
    assert.equal(normalisedKeyValue('\r\n'), 'Enter');
    assert.equal(normalisedKeyValue('\t'), 'Tab');
    assert.equal(NULL_KEY, '\uE000');
  });
});

describe('modifiers and shift', () => {
  test('the four modifier keys', () => {
    for (const key of ['Shift', 'Control', 'Alt', 'Meta']) assert.equal(isModifierKey(key), true);
    for (const key of ['a', 'Enter', 'CapsLock', 'Unidentified']) assert.equal(isModifierKey(key), false);
  });

  test('US layout shifted characters', () => {
    assert.equal(shiftedKey('a'), 'A');
    assert.equal(shiftedKey('z'), 'Z');
    assert.equal(shiftedKey('1'), '!');
    assert.equal(shiftedKey('0'), ')');
    assert.equal(shiftedKey('`'), '~');
    assert.equal(shiftedKey('/'), '?');
    assert.equal(shiftedKey('\\'), '|');
    assert.equal(shiftedKey("'"), '"');
    // Already shifted, non-ASCII and named keys stay.
    assert.equal(shiftedKey('A'), 'A');
    assert.equal(shiftedKey('é'), 'é');
    assert.equal(shiftedKey('Enter'), 'Enter');
  });
});

describe('grapheme clusters', () => {
  test('one key press per user-perceived character', () => {
    assert.deepEqual(graphemeClusters('ab'), ['a', 'b']);
    assert.deepEqual(graphemeClusters('e\u0301x'), ['e\u0301', 'x']);
    assert.deepEqual(graphemeClusters('👍🏽日本'), ['👍🏽', '日', '本']);
    assert.deepEqual(graphemeClusters('a\uE008b\uE000'), ['a', '\uE008', 'b', '\uE000']);
    assert.deepEqual(graphemeClusters(''), []);
  });
});
