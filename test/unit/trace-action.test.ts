// What a command acted on, for a trace step's action view (src/trace/action.ts): which commands
// address an element, where a pointer goes down, tick by tick; and how the command's page notes
// become the step's `action`. The page's half (where the element is) is test/integration/trace-actions.test.ts's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { actionCapture, actionPlan, selectorOfPath } from '../../src/trace/action.ts';

const E = 'element-6066-11e4-a52e-4f735466cecf';
const pointer = (actions: unknown[], id = 'mouse') => ({ type: 'pointer', id, parameters: { pointerType: 'mouse' }, actions });
const perform = (...sources: unknown[]) => actionPlan('performActions', {}, { actions: sources }, false);

test('Element Click, Send Keys and Clear address the element of their URL; a click goes down at its in-view center; other commands act on nothing shown', () => {
  assert.deepEqual(actionPlan('elementClick', { elementId: 'a.1' }, {}, false), { element: 'a.1', pointerDown: { origin: 'element', x: 0, y: 0 } });
  assert.deepEqual(actionPlan('elementSendKeys', { elementId: 'a.2' }, { text: 'x' }, false), { element: 'a.2' });
  assert.deepEqual(actionPlan('elementClear', { elementId: 'a.3' }, {}, true), { element: 'a.3' });
  assert.equal(actionPlan('getElementText', { elementId: 'a.1' }, {}, false), undefined);
  assert.equal(actionPlan('navigateTo', {}, { url: 'x' }, false), undefined);
});

test("Perform Actions: the pointerDown's place follows the moves (element origin plus offset, viewport, relative to the pointer); the element is the origin moved to", () => {
  assert.deepEqual(perform(pointer([{ type: 'pointerMove', origin: { [E]: 'a.1' }, x: 3, y: -2 }, { type: 'pointerDown', button: 0 }])), { element: 'a.1', pointerDown: { origin: 'element', x: 3, y: -2 } });
  assert.deepEqual(perform(pointer([{ type: 'pointerMove', x: 10, y: 20 }, { type: 'pointerMove', origin: 'pointer', x: 5, y: 5 }, { type: 'pointerDown', button: 0 }])), { pointerDown: { origin: 'viewport', x: 15, y: 25 } });
  assert.deepEqual(perform(pointer([{ type: 'pointerMove', origin: { [E]: 'a.1' } }, { type: 'pointerMove', origin: 'pointer', x: 4, y: 0 }, { type: 'pointerDown', button: 0 }])), { element: 'a.1', pointerDown: { origin: 'element', x: 4, y: 0 } });
  // Tick by tick across sources: the key source's pause does not hold the pointer back; the first pointerDown by tick wins.
  assert.deepEqual(
    perform(
      { type: 'key', id: 'kb', actions: [{ type: 'keyDown', value: 'a' }, { type: 'keyUp', value: 'a' }] },
      pointer([{ type: 'pointerMove', origin: { [E]: 'a.1' } }, { type: 'pause' }, { type: 'pointerDown', button: 0 }], 'p1'),
      pointer([{ type: 'pointerMove', origin: { [E]: 'a.2' }, x: 1, y: 1 }, { type: 'pointerDown', button: 0 }], 'p2'),
    ),
    { element: 'a.2', pointerDown: { origin: 'element', x: 1, y: 1 } },
  );
  // Moves without a press: the element, no point. A press from nowhere known: nothing.
  assert.deepEqual(perform(pointer([{ type: 'pointerMove', origin: { [E]: 'a.9' } }, { type: 'pointerMove', x: 1, y: 1 }])), { element: 'a.9' });
  assert.equal(perform(pointer([{ type: 'pointerDown', button: 0 }])), undefined);
  assert.equal(perform(pointer([{ type: 'pointerMove', origin: 'pointer', x: 1, y: 1 }, { type: 'pointerDown', button: 0 }])), undefined);
  // In a frame, a viewport point is in the frame's viewport: not shown.
  assert.equal(actionPlan('performActions', {}, { actions: [pointer([{ type: 'pointerMove', x: 1, y: 1 }, { type: 'pointerDown', button: 0 }])] }, true), undefined);
  // Malformed input is the command's to refuse: nothing here throws.
  for (const params of [null, {}, { actions: 'x' }, { actions: [null, 1, { type: 'pointer' }, { type: 'pointer', actions: [null, { type: 'pointerMove', origin: 'nowhere' }, { type: 'pointerDown' }] }] }]) {
    assert.equal(actionPlan('performActions', {}, params, false), undefined);
  }
});

test("the step's action from the command's notes: the element's selector (from its path) and box; the point from the element's center or the viewport", () => {
  const viewport = { width: 800, height: 600, scrollX: 0, scrollY: 40 };
  const target = { box: { x: 10, y: 20, width: 100, height: 30 }, center: { x: 60, y: 35 }, inView: true, path: [2, 5, 1] };
  assert.deepEqual(actionCapture({ element: 'a.1', pointerDown: { origin: 'element', x: 2, y: 3 } }, { viewport, targets: { 'a.1': target } }), {
    viewport,
    element: { selector: 'html > :nth-child(2) > :nth-child(5) > :nth-child(1)', box: target.box },
    point: { x: 62, y: 38 },
  });
  // Not in the top-level document's light DOM (a frame, a shadow root): its box only.
  assert.deepEqual(actionCapture({ element: 'a.1' }, { viewport, targets: { 'a.1': { ...target, path: undefined } } }), { viewport, element: { box: target.box } });
  assert.deepEqual(actionCapture({ pointerDown: { origin: 'viewport', x: 5, y: 6 } }, { viewport }), { viewport, point: { x: 5, y: 6 } });
  // The element not found (the command answers no such element itself), or past a frame of another origin: no action.
  assert.equal(actionCapture({ element: 'a.1', pointerDown: { origin: 'element', x: 0, y: 0 } }, { viewport }), undefined);
  assert.equal(actionCapture({ element: 'a.1', pointerDown: { origin: 'element', x: 0, y: 0 } }, { viewport, targets: { 'a.1': null } }), undefined);
  // No notes (the command failed before it looked at the page): no action.
  assert.equal(actionCapture({ pointerDown: { origin: 'viewport', x: 5, y: 6 } }, undefined), undefined);
  assert.equal(selectorOfPath([]), 'html');
});
