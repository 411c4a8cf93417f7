// The native Firefox backend's mouse source: Firefox keeps each source's pressed buttons and
// place from call to call, so a source holding a press the W3C layer released (its release
// refused by a prompt), or already at the place the W3C layer moves to (Firefox would drop the
// move), is replaced before the event.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PointerInputEvent } from '../../backends/backend.ts';
import { MouseSource } from '../../backends/firefox/input.ts';

const event = (type: PointerInputEvent['type'], buttons: number, button?: number, x = 10, y = 10): PointerInputEvent => ({
  type,
  pointerType: 'mouse',
  x,
  y,
  buttons,
  clickCount: 1,
  modifiers: 0,
  ...(button !== undefined && { button }),
});

test('a click whose events all reach Firefox keeps the source', () => {
  const mouse = new MouseSource();
  for (const e of [event('pointerMove', 0), event('pointerDown', 1, 0), event('pointerUp', 0, 0), event('pointerMove', 0, undefined, 20, 10)]) {
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

test('a move to where the source already is (the W3C pointer was elsewhere) comes from a fresh source', () => {
  const mouse = new MouseSource();
  mouse.sent(event('pointerMove', 0, undefined, 150.4, 130));
  // Rounded as BiDi takes it: the same place.
  const again = event('pointerMove', 0, undefined, 150, 129.6);
  assert.equal(mouse.idFor(again), 'wdgate-mouse-1');
  mouse.sent(again);
  assert.equal(mouse.idFor(event('pointerDown', 1, 0, 150, 130)), 'wdgate-mouse-1');
});

test('a move in place while a button is held keeps the source (its press would be lost)', () => {
  const mouse = new MouseSource();
  mouse.sent(event('pointerDown', 1, 0));
  assert.equal(mouse.idFor(event('pointerMove', 1)), 'wdgate-mouse');
});
