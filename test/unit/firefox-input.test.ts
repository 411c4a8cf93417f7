// The native Firefox backend's mouse source: Firefox keeps each source's pressed buttons from
// call to call, so a source holding a press the W3C layer released (its release refused by a
// prompt) is replaced before the next event.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PointerInputEvent } from '../../backends/backend.ts';
import { MouseSource } from '../../backends/firefox/input.ts';

const event = (type: PointerInputEvent['type'], buttons: number, button?: number): PointerInputEvent => ({
  type,
  pointerType: 'mouse',
  x: 10,
  y: 10,
  buttons,
  clickCount: 1,
  modifiers: 0,
  ...(button !== undefined && { button }),
});

test('a click whose events all reach Firefox keeps the source', () => {
  const mouse = new MouseSource();
  for (const e of [event('pointerMove', 0), event('pointerDown', 1, 0), event('pointerUp', 0, 0), event('pointerMove', 0)]) {
    assert.equal(mouse.idFor(e), 'wdgate-mouse');
    mouse.sent(e);
  }
});

test('a press whose release never reached Firefox: the next event comes from a fresh source', () => {
  const mouse = new MouseSource();
  const down = event('pointerDown', 1, 0);
  assert.equal(mouse.idFor(down), 'wdgate-mouse');
  mouse.sent(down);
  // The release was refused (a prompt opened on the press): idFor asked, nothing sent.
  assert.equal(mouse.idFor(event('pointerUp', 0, 0)), 'wdgate-mouse');
  // The W3C layer holds nothing now; Firefox holds the main button for the first source.
  const next = event('pointerMove', 0);
  assert.equal(mouse.idFor(next), 'wdgate-mouse-1');
  mouse.sent(next);
  assert.equal(mouse.idFor(event('pointerDown', 1, 0)), 'wdgate-mouse-1');
});

test('buttons the W3C layer still holds do not change the source (a drag, a second button)', () => {
  const mouse = new MouseSource();
  for (const e of [event('pointerDown', 1, 0), event('pointerMove', 1), event('pointerDown', 3, 2), event('pointerUp', 1, 2), event('pointerUp', 0, 0)]) {
    assert.equal(mouse.idFor(e), 'wdgate-mouse');
    mouse.sent(e);
  }
});

