// Spec §15 "Actions" (src/webdriver/actions.ts): validation of the payload, ticks, the input
// state and dispatch, against a recording stand-in for the browser and the page.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buttonBit } from '../../backends/backend.ts';
import {
  computeTickDuration,
  dispatchActions,
  extractActionSequence,
  getInputState,
  InputState,
  releaseAll,
  resetInputState,
  tiltFromAngles,
  type Action,
  type ActionsContext,
} from '../../src/webdriver/actions.ts';
import { keyboardKey, KeyLocation } from '../../src/webdriver/keys.ts';
import { WebDriverError } from '../../src/webdriver/errors.ts';

const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
const MAX = Number.MAX_SAFE_INTEGER;

function extract(actions: unknown, state = new InputState()): Action[][] {
  return extractActionSequence(state, actions);
}

function rejects(actions: unknown, state = new InputState(), code = 'invalid argument'): void {
  assert.throws(
    () => extract(actions, state),
    (e: unknown) => e instanceof WebDriverError && e.code === code && e.status === 400,
    `${JSON.stringify(actions)} should be ${code}`,
  );
}

const seq = (type: string, actions: unknown[], more: Record<string, unknown> = {}) => [{ type, id: 'x', actions, ...more }];
const pointer = (actions: unknown[], pointerType = 'mouse') => seq('pointer', actions, { parameters: { pointerType } });
const wheel = (scroll: Record<string, unknown>) => seq('wheel', [{ type: 'scroll', x: 0, y: 0, deltaX: 0, deltaY: 0, ...scroll }]);

describe('extract an action sequence: validation (invalid argument)', () => {
  test('actions must be an array of objects', () => {
    for (const v of [undefined, null, 'foo', true, 42, {}]) rejects(v);
    rejects([42]);
    rejects([null]);
    assert.deepEqual(extract([]), []);
  });

  test('each input source: a type none, key, pointer or wheel; a string id; an actions array of objects', () => {
    for (const type of [undefined, null, '', 'nones', 'keys', 'pointers', 'wheels', 42]) rejects([{ type, id: 'x', actions: [] }]);
    for (const type of ['none', 'key', 'pointer', 'wheel']) {
      for (const id of [undefined, null, true, 42, [], {}]) rejects([{ type, id, actions: [] }]);
      for (const actions of [undefined, null, 'foo', true, 42, {}]) rejects([{ type, id: 'x', actions }]);
      rejects([{ type, id: 'x', actions: [42] }]);
      rejects([{ type, id: 'x', actions: [{ type: 'pauses' }] }]);
      rejects([{ type, id: 'x', actions: [{ type: 42 }] }]);
      assert.deepEqual(extract([{ type, id: 'x', actions: [] }]), []);
    }
  });

  test('pointer parameters: an object whose pointerType is mouse (the default), pen or touch', () => {
    for (const parameters of [null, 'foo', true, 42, []]) rejects(seq('pointer', [], { parameters }));
    for (const pointerType of [null, true, 42, [], {}, '', 'mouses', 'pens', 'touchs']) rejects(seq('pointer', [], { parameters: { pointerType } }));
    const state = new InputState();
    extract(seq('pointer', [], { parameters: {} }), state);
    assert.deepEqual(state.sources.get('x'), { type: 'pointer', subtype: 'mouse', pressed: new Set(), x: 0, y: 0 });
  });

  test('an id keeps its type and pointerType, within a request and across requests', () => {
    rejects([
      { type: 'key', id: 'a', actions: [] },
      { type: 'pointer', id: 'a', actions: [] },
    ]);
    const state = new InputState();
    extract(pointer([], 'pen'), state);
    rejects(pointer([], 'touch'), state);
    rejects(pointer([]), state);
    rejects(seq('wheel', []), state);
    extract(pointer([], 'pen'), state);
  });

  test('pause: an optional integer duration from 0 to 2^53-1, for every source type', () => {
    for (const type of ['none', 'key', 'pointer', 'wheel']) {
      for (const duration of [null, 'foo', true, 0.1, [], {}, -1, MAX + 1]) rejects(seq(type, [{ type: 'pause', duration }]));
      assert.deepEqual(extract(seq(type, [{ type: 'pause' }, { type: 'pause', duration: 0 }, { type: 'pause', duration: MAX }])), [
        [{ id: 'x', type, subtype: 'pause' }],
        [{ id: 'x', type, subtype: 'pause', duration: 0 }],
        [{ id: 'x', type, subtype: 'pause', duration: MAX }],
      ]);
    }
    rejects(seq('none', [{ type: 'keyDown', value: 'a' }]));
  });

  test('keyDown and keyUp: a value of one code point or one grapheme cluster', () => {
    for (const type of ['keyDown', 'keyUp']) {
      for (const value of [undefined, null, true, 42, [], {}, '', 'fa', '\u0BA8\u0BBFb', '\u0BA8\u0BBF\u0BA8', '\u1100\u1161\u11A8c']) {
        rejects(seq('key', [{ type, value }]));
      }
      for (const value of ['a', '\uE050', '\u{1F604}', '\u0BA8\u0BBF', 'e\u0301', '👍🏽']) {
        assert.deepEqual(extract(seq('key', [{ type, value }])), [[{ id: 'x', type: 'key', subtype: type, value }]]);
      }
    }
    for (const type of ['', 'keyDowns', 'pointerDown', 'scroll']) rejects(seq('key', [{ type, value: 'a' }]));
  });

  test('pointerDown and pointerUp: an integer button from 0', () => {
    for (const type of ['pointerDown', 'pointerUp']) {
      for (const button of [undefined, null, 'foo', true, 0.1, [], {}, -1, MAX + 1]) rejects(pointer([{ type, button }]));
      assert.deepEqual(extract(pointer([{ type, button: 3 }], 'pen')), [[{ id: 'x', type: 'pointer', subtype: type, pointerType: 'pen', button: 3 }]]);
    }
    for (const type of ['', 'pointerDowns', 'pointerMoves', 'keyDown']) rejects(pointer([{ type, button: 0 }]));
  });

  test('pointerMove: numbers x and y; an optional integer duration; origin viewport (default), pointer or an element', () => {
    for (const v of [undefined, null, 'foo', true, [], {}, Infinity]) {
      rejects(pointer([{ type: 'pointerMove', x: v, y: 0 }]));
      rejects(pointer([{ type: 'pointerMove', x: 0, y: v }]));
    }
    for (const duration of [null, 'foo', 0.5, -1, MAX + 1]) rejects(pointer([{ type: 'pointerMove', x: 0, y: 0, duration }]));
    for (const origin of [null, true, 42, [], {}, '', 'pointers', 'viewports', { 'frame-075b-4da1-b6ba-e579c2d3230a': 'f' }, { 'shadow-6066-11e4-a52e-4f735466cecf': 's' }, { 'window-fcc6-11e5-b4f8-330a88ab9d7f': 'w' }, { [ELEMENT]: 42 }]) {
      rejects(pointer([{ type: 'pointerMove', x: 0, y: 0, origin }]));
    }
    const [[a], [b], [c]] = extract(
      pointer([
        { type: 'pointerMove', x: 1.5, y: -2 },
        { type: 'pointerMove', x: 0, y: 0, origin: 'pointer', duration: 100 },
        { type: 'pointerMove', x: 0, y: 0, origin: { [ELEMENT]: 'e1' } },
      ]),
    );
    assert.deepEqual(a, { id: 'x', type: 'pointer', subtype: 'pointerMove', pointerType: 'mouse', x: 1.5, y: -2, origin: 'viewport' });
    assert.deepEqual([b, c].map((m) => (m as { origin: unknown }).origin), ['pointer', { element: 'e1' }]);
    assert.equal((b as { duration?: number }).duration, 100);
  });

  test('pointer properties, for every pointer type and action: their types and ranges', () => {
    const cases: [string, unknown[], unknown[]][] = [
      ['width', [null, 'foo', true, 0.1, [], {}, -1, MAX + 1], [0, 1, 500]],
      ['height', [null, 'foo', true, 0.1, [], {}, -1, MAX + 1], [0, 30]],
      ['pressure', [null, 'foo', true, [], {}, -0.1, 1.1], [0, 0.5, 1]],
      ['tangentialPressure', [null, 'foo', true, [], {}, -1.1, 1.1], [-1, 0, 0.3, 1]],
      ['tiltX', [null, 'foo', true, 0.1, [], {}, -91, 91], [-90, 0, 90]],
      ['tiltY', [null, 'foo', true, 0.1, [], {}, -91, 91], [-90, 90]],
      ['twist', [null, 'foo', true, 0.1, [], {}, -1, 360], [0, 359]],
      ['altitudeAngle', [null, 'foo', true, [], {}, -0.1, Math.PI / 2 + 0.01], [0, 1.2, Math.PI / 2]],
      ['azimuthAngle', [null, 'foo', true, [], {}, -0.1, 2 * Math.PI + 0.01], [0, 6, 2 * Math.PI]],
    ];
    for (const pointerType of ['mouse', 'pen', 'touch']) {
      for (const base of [{ type: 'pointerDown', button: 0 }, { type: 'pointerUp', button: 0 }, { type: 'pointerMove', x: 0, y: 0 }]) {
        for (const [name, bad, good] of cases) {
          for (const value of bad) rejects(pointer([{ ...base, [name]: value }], pointerType));
          for (const value of good) assert.equal((extract(pointer([{ ...base, [name]: value }], pointerType))[0]![0] as never)[name], value);
        }
      }
    }
  });

  test('scroll: integers x, y, deltaX and deltaY; origin viewport or an element, never pointer', () => {
    for (const name of ['x', 'y', 'deltaX', 'deltaY']) {
      for (const value of [undefined, null, 'foo', true, 0.1, [], {}, -MAX - 1, MAX + 1]) rejects(wheel({ [name]: value }));
    }
    for (const duration of [null, 0.5, -1]) rejects(wheel({ duration }));
    for (const origin of [null, true, 42, [], {}, '', 'pointer', 'pointers', 'viewports', { 'shadow-6066-11e4-a52e-4f735466cecf': 's' }]) {
      rejects(wheel({ origin }));
    }
    assert.deepEqual(extract(wheel({ x: -MAX, y: MAX, deltaX: 5, deltaY: -10, origin: { [ELEMENT]: 'e' } })), [
      [{ id: 'x', type: 'wheel', subtype: 'scroll', x: -MAX, y: MAX, deltaX: 5, deltaY: -10, origin: { element: 'e' } }],
    ]);
    for (const type of ['', 'scrolls', 'pointerMove']) rejects(seq('wheel', [{ type, x: 0, y: 0, deltaX: 0, deltaY: 0 }]));
  });

  test('the error names where the problem is', () => {
    assert.throws(() => extract([{ type: 'key', id: 'k', actions: [{ type: 'keyDown', value: 'a' }, { type: 'keyUp', value: 'ab' }] }]), /actions\[0\]\.actions\[1\]\.value/);
  });
});

describe('ticks', () => {
  test('actions are grouped by their index across sources; shorter sequences leave gaps', () => {
    const ticks = extract([
      { type: 'key', id: 'k', actions: [{ type: 'keyDown', value: 'a' }, { type: 'keyUp', value: 'a' }] },
      { type: 'pointer', id: 'p', actions: [{ type: 'pointerMove', x: 1, y: 2 }, { type: 'pointerDown', button: 0 }, { type: 'pointerUp', button: 0 }] },
    ]);
    assert.deepEqual(
      ticks.map((tick) => tick.map((a) => `${a.id}:${a.subtype}`)),
      [['k:keyDown', 'p:pointerMove'], ['k:keyUp', 'p:pointerDown'], ['p:pointerUp']],
    );
  });

  test('a tick lasts as long as its longest pause, pointer move or scroll', () => {
    const [tick] = extract([
      { type: 'none', id: 'n', actions: [{ type: 'pause', duration: 50 }] },
      { type: 'pointer', id: 'p', actions: [{ type: 'pointerMove', x: 1, y: 2, duration: 200 }] },
      { type: 'wheel', id: 'w', actions: [{ type: 'scroll', x: 0, y: 0, deltaX: 0, deltaY: 1, duration: 120 }] },
      { type: 'key', id: 'k', actions: [{ type: 'keyDown', value: 'a' }] },
    ]);
    assert.equal(computeTickDuration(tick!), 200);
    assert.equal(computeTickDuration([]), 0);
  });
});

// ── Dispatch, against a recording browser and page ───────────────────────────────────────────

interface Recorded {
  kind: string;
  event: Record<string, unknown>;
  at: number;
}

function harness(options: { viewport?: { width: number; height: number }; offset?: { x: number; y: number }; centers?: Record<string, { x: number; y: number }> } = {}) {
  let clock = 1000;
  const log: Recorded[] = [];
  const record = (kind: string) => async (_window: string, event: object) => {
    log.push({ kind, event: { ...event }, at: clock });
  };
  const ctx: ActionsContext = {
    browser: {
      dispatchKeyInput: record('key'),
      dispatchPointerInput: record('pointer'),
      dispatchTouchInput: record('touch'),
      dispatchWheelInput: record('wheel'),
    },
    window: 'w1',
    viewport: async () => options.viewport ?? { width: 800, height: 600 },
    elementCenter: async (id) => {
      const center = options.centers?.[id];
      if (!center) throw new WebDriverError('no such element', id);
      return center;
    },
    offset: async () => options.offset ?? { x: 0, y: 0 },
    now: () => clock,
    sleep: async (ms) => {
      clock += ms;
    },
  };
  const state = new InputState();
  const run = (actions: unknown) => dispatchActions(state, extractActionSequence(state, actions), ctx);
  return { ctx, state, log, run, advance: (ms: number) => (clock += ms), now: () => clock };
}

const key = (...actions: unknown[]) => ({ type: 'key', id: 'kb', actions });
const mouse = (...actions: unknown[]) => ({ type: 'pointer', id: 'm', actions });
const kd = (value: string) => ({ type: 'keyDown', value });
const ku = (value: string) => ({ type: 'keyUp', value });
const mv = (x: number, y: number, more: Record<string, unknown> = {}) => ({ type: 'pointerMove', x, y, ...more });
const pd = (button = 0, more: Record<string, unknown> = {}) => ({ type: 'pointerDown', button, ...more });
const pu = (button = 0) => ({ type: 'pointerUp', button });

describe('keyboard dispatch', () => {
  test('the action\'s key value; key, code and location from the spec tables; text for printable keys; repeat; keyUp only when held', async () => {
    const h = harness();
    await h.run([key(kd('a'), kd('a'), ku('a'), ku('a'), kd('\uE050'), kd('\uE01B'), ku('\uE01B'), ku('\uE050'), kd('\uE007'), kd('\uE004'), kd('é'))]);
    assert.deepEqual(
      h.log.map((r) => r.event),
      [
        { type: 'keyDown', value: 'a', key: 'a', code: 'KeyA', location: 0, modifiers: 0, text: 'a', repeat: false },
        { type: 'keyDown', value: 'a', key: 'a', code: 'KeyA', location: 0, modifiers: 0, text: 'a', repeat: true },
        { type: 'keyUp', value: 'a', key: 'a', code: 'KeyA', location: 0, modifiers: 0, text: '', repeat: false },
        { type: 'keyDown', value: '\uE050', key: 'Shift', code: 'ShiftRight', location: 2, modifiers: 8, text: '', repeat: false },
        // Shift held: the modifier is set; a special key (the numpad's 1) keeps its value.
        { type: 'keyDown', value: '\uE01B', key: '1', code: 'Numpad1', location: 3, modifiers: 8, text: '1', repeat: false },
        { type: 'keyUp', value: '\uE01B', key: '1', code: 'Numpad1', location: 3, modifiers: 8, text: '', repeat: false },
        { type: 'keyUp', value: '\uE050', key: 'Shift', code: 'ShiftRight', location: 2, modifiers: 0, text: '', repeat: false },
        { type: 'keyDown', value: '\uE007', key: 'Enter', code: 'NumpadEnter', location: 1, modifiers: 0, text: '\r', repeat: false },
        { type: 'keyDown', value: '\uE004', key: 'Tab', code: 'Tab', location: 0, modifiers: 0, text: '', repeat: false },
        { type: 'keyDown', value: 'é', key: 'é', code: '', location: 0, modifiers: 0, text: 'é', repeat: false },
      ],
    );
  });

  test('Shift held: a character key gives its shifted character, code unchanged, on keydown and keyup', async () => {
    const h = harness();
    await h.run([key(kd('\uE008'), kd('b'), kd('1'), ku('b'), ku('\uE008'), ku('1'))]);
    assert.deepEqual(
      h.log.map((r) => `${r.event.type} ${r.event.key} ${r.event.code} ${JSON.stringify(r.event.text)}`),
      ['keyDown Shift ShiftLeft ""', 'keyDown B KeyB "B"', 'keyDown ! Digit1 "!"', 'keyUp B KeyB ""', 'keyUp Shift ShiftLeft ""', 'keyUp 1 Digit1 ""'],
    );
  });

  test('Control, Alt and Meta make shortcuts (no text); modifiers of every key source combine', async () => {
    const h = harness();
    await h.run([
      { type: 'key', id: 'k1', actions: [kd('\uE009'), { type: 'pause' }] },
      { type: 'key', id: 'k2', actions: [kd('\uE00A'), kd('a')] },
    ]);
    const last = h.log.at(-1)!.event;
    assert.deepEqual([last.key, last.modifiers, last.text], ['a', 1 | 2, '']);
  });

  test('the key table: codes of printable keys plain or shifted', () => {
    assert.deepEqual(keyboardKey('a'), { key: 'a', code: 'KeyA', location: KeyLocation.Standard });
    assert.equal(keyboardKey('A').code, 'KeyA');
    assert.equal(keyboardKey('@').code, 'Digit2');
    assert.equal(keyboardKey('"').code, 'Quote');
    assert.equal(keyboardKey(',').code, 'Comma');
    assert.equal(keyboardKey(' ').code, 'Space');
    assert.equal(keyboardKey('\u2603').code, '');
    assert.deepEqual(keyboardKey('\uE00D'), { key: ' ', code: 'Space', location: 0 });
    assert.deepEqual(keyboardKey('\uE053'), { key: 'Meta', code: 'MetaRight', location: 2 });
    // Raw keys are taken as given (Send Keys' typed-newline rule does not apply).
    assert.equal(keyboardKey('\n').key, '\n');
  });
});

describe('pointer dispatch', () => {
  test('a click: move, down and up at the pointer with buttons, click count and modifiers', async () => {
    const h = harness();
    await h.run([key(kd('\uE008')), mouse(mv(10, 20), pd(), pu())]);
    assert.deepEqual(
      h.log.filter((r) => r.kind === 'pointer').map((r) => r.event),
      [
        { type: 'pointerMove', pointerType: 'mouse', x: 10, y: 20, buttons: 0, clickCount: 0, modifiers: 8, pressure: 0 },
        { type: 'pointerDown', pointerType: 'mouse', x: 10, y: 20, button: 0, buttons: 1, clickCount: 1, modifiers: 8, pressure: 0.5 },
        { type: 'pointerUp', pointerType: 'mouse', x: 10, y: 20, button: 0, buttons: 0, clickCount: 1, modifiers: 8, pressure: 0 },
      ],
    );
  });

  test('buttons: the MouseEvent.buttons bits; a held button is not pressed again, one not held not released', async () => {
    assert.deepEqual([0, 1, 2, 3, 4].map(buttonBit), [1, 4, 2, 8, 16]);
    const h = harness();
    await h.run([mouse(pd(2), pd(0), pd(0), pu(2), pu(2), pu(0))]);
    assert.deepEqual(
      h.log.map((r) => `${r.event.type} ${r.event.button} ${r.event.buttons}`),
      ['pointerDown 2 2', 'pointerDown 0 3', 'pointerUp 2 1', 'pointerUp 0 0'],
    );
  });

  test('click counting: the same button at the same place within 500 ms counts on', async () => {
    const h = harness();
    await h.run([mouse(mv(5, 5), pd(), pu(), pd(), pu(), pd(), pu())]);
    assert.deepEqual(
      h.log.filter((r) => r.event.type !== 'pointerMove').map((r) => r.event.clickCount),
      [1, 1, 2, 2, 3, 3],
    );
    // Too late, moved, or another button: a new first click.
    const late = harness();
    await late.run([mouse(mv(5, 5), pd(), pu(), { type: 'pause', duration: 501 }, pd(), pu(), mv(6, 5), pd(), pu(), pd(2), pu(2))]);
    assert.deepEqual(
      late.log.filter((r) => r.event.type === 'pointerDown').map((r) => r.event.clickCount),
      [1, 1, 1, 1],
    );
  });

  test('origins: viewport, pointer (relative), element (its in-view center); frame offsets are added', async () => {
    const h = harness({ offset: { x: 100, y: 50 }, centers: { e1: { x: 30, y: 40 } } });
    await h.run([mouse(mv(10, 10), mv(5, -5, { origin: 'pointer' }), mv(1, 2, { origin: { [ELEMENT]: 'e1' } }))]);
    assert.deepEqual(
      h.log.map((r) => [r.event.x, r.event.y]),
      [
        [110, 60],
        [115, 55],
        [131, 92],
      ],
    );
  });

  test('a move to where the pointer is dispatches nothing', async () => {
    const h = harness();
    await h.run([mouse(mv(0, 0), mv(3, 3), mv(3, 3), mv(0, 0, { origin: 'pointer' }))]);
    assert.equal(h.log.length, 1);
  });

  test('out of the viewport: move target out of bounds, before anything moves', async () => {
    for (const move of [mv(-1, 0), mv(0, -0.5), mv(801, 0), mv(0, 601), mv(-5, 0, { origin: 'pointer' }), mv(0, 0, { origin: { [ELEMENT]: 'far' } })]) {
      const h = harness({ centers: { far: { x: 400, y: 700 } } });
      await assert.rejects(h.run([mouse(move)]), (e: unknown) => e instanceof WebDriverError && e.code === 'move target out of bounds' && e.status === 500);
      assert.equal(h.log.length, 0);
    }
    // The edges are in.
    const h = harness();
    await h.run([mouse(mv(800, 600), mv(0, 0))]);
    assert.equal(h.log.length, 2);
  });

  test('an element origin the page does not know fails with the page error', async () => {
    const h = harness();
    await assert.rejects(h.run([mouse(mv(0, 0, { origin: { [ELEMENT]: 'gone' } }))]), (e: unknown) => e instanceof WebDriverError && e.code === 'no such element');
  });

  test('a move with a duration: intermediate positions, ending exactly at the target, the tick lasting the duration', async () => {
    const h = harness();
    const start = h.now();
    await h.run([mouse(mv(100, 0, { duration: 100 }))]);
    const xs = h.log.map((r) => r.event.x as number);
    assert.ok(xs.length >= 3, `only ${xs.length} moves`);
    assert.equal(xs.at(-1), 100);
    for (let i = 1; i < xs.length; i++) assert.ok(xs[i]! > xs[i - 1]!);
    assert.ok(h.now() - start >= 100);
  });

  test('a pause in a tick makes it last: the next tick starts after it', async () => {
    const h = harness();
    await h.run([{ type: 'none', id: 'n', actions: [{ type: 'pause', duration: 300 }] }, mouse(mv(1, 1, { duration: 0 }), mv(2, 2))]);
    assert.equal(h.log[1]!.at - h.log[0]!.at, 300);
  });

  test('a move without a duration takes its tick\'s', async () => {
    const h = harness();
    const start = h.now();
    await h.run([{ type: 'none', id: 'n', actions: [{ type: 'pause', duration: 200 }] }, mouse(mv(100, 100))]);
    assert.ok(h.log.length > 2);
    assert.deepEqual([h.log.at(-1)!.event.x, h.log.at(-1)!.at - start], [100, 200]);
  });

  test('pen: its pressure and tilt (given, or from the angles as Pointer Events converts them)', async () => {
    assert.deepEqual(tiltFromAngles(0.3, 0.2419), { tiltX: 72, tiltY: 38 });
    assert.deepEqual(tiltFromAngles(1.2, 6), { tiltX: 20, tiltY: -6 });
    assert.deepEqual(tiltFromAngles(0.5, 1.8), { tiltX: -23, tiltY: 61 });
    assert.deepEqual(tiltFromAngles(Math.PI / 2, 0), { tiltX: 0, tiltY: 0 });
    assert.deepEqual(tiltFromAngles(0, Math.PI), { tiltX: -90, tiltY: 0 });
    const h = harness();
    await h.run([
      {
        type: 'pointer',
        id: 'pen',
        parameters: { pointerType: 'pen' },
        actions: [mv(5, 5), pd(0, { pressure: 0.36, altitudeAngle: 0.3, azimuthAngle: 0.2419, twist: 86 }), mv(6, 6), pu()],
      },
    ]);
    const [, down, moved] = h.log.map((r) => r.event);
    assert.deepEqual([down!.pointerType, down!.pressure, down!.tiltX, down!.tiltY, down!.twist], ['pen', 0.36, 72, 38, 86]);
    // A move while pressed without properties: the default pressure, no tilt.
    assert.deepEqual([moved!.pressure, moved!.tiltX], [0.5, undefined]);
  });

  test('touch: a finger touches on its first button and lifts on release; every contact is sent; hovering sends nothing', async () => {
    const h = harness();
    await h.run([
      { type: 'pointer', id: 'a', parameters: { pointerType: 'touch' }, actions: [mv(10, 10), pd(0, { width: 20, height: 30, pressure: 0.7 }), mv(12, 12), pu()] },
      { type: 'pointer', id: 'b', parameters: { pointerType: 'touch' }, actions: [mv(50, 50), pd(), { type: 'pause' }, { type: 'pause' }, pu()] },
    ]);
    assert.deepEqual(
      h.log.map((r) => [r.event.type, (r.event.points as { id: number; x: number }[]).map((p) => `${p.id}@${p.x}`).join(' ')]),
      [
        ['down', '1@10'],
        ['down', '1@10 2@50'],
        ['move', '1@12 2@50'],
        ['up', '2@50'],
        ['up', ''],
      ],
    );
    const first = (h.log[0]!.event.points as Record<string, unknown>[])[0]!;
    assert.deepEqual([first.width, first.height, first.pressure], [20, 30, 0.7]);
    // Defaults for a touch: 1x1, pressure 0.5.
    const second = (h.log[1]!.event.points as Record<string, unknown>[])[1]!;
    assert.deepEqual([second.width, second.height, second.pressure], [1, 1, 0.5]);
  });
});

describe('wheel dispatch', () => {
  test('a scroll at the origin point with the deltas; spread over its duration, summing to them', async () => {
    const h = harness({ centers: { box: { x: 100, y: 200 } } });
    await h.run([{ type: 'wheel', id: 'w', actions: [{ type: 'scroll', x: 5, y: 5, deltaX: 0, deltaY: 120, origin: { [ELEMENT]: 'box' } }] }]);
    assert.deepEqual(h.log[0]!.event, { x: 105, y: 205, deltaX: 0, deltaY: 120, modifiers: 0 });
    const slow = harness();
    await slow.run([{ type: 'wheel', id: 'w', actions: [{ type: 'scroll', x: 0, y: 0, deltaX: 30, deltaY: 100, duration: 100 }] }]);
    assert.ok(slow.log.length >= 3);
    assert.deepEqual(
      slow.log.reduce((sum, r) => [sum[0]! + (r.event.deltaX as number), sum[1]! + (r.event.deltaY as number)], [0, 0]),
      [30, 100],
    );
  });

  test('nothing to scroll dispatches nothing; a point out of the viewport is move target out of bounds', async () => {
    const h = harness();
    await h.run([{ type: 'wheel', id: 'w', actions: [{ type: 'scroll', x: 0, y: 0, deltaX: 0, deltaY: 0 }] }]);
    assert.equal(h.log.length, 0);
    await assert.rejects(h.run([{ type: 'wheel', id: 'w', actions: [{ type: 'scroll', x: 0, y: 700, deltaX: 0, deltaY: 5 }] }]), /out of the 800x600 viewport/);
  });
});

describe('release actions', () => {
  test('undoes what is held in reverse order: keyUp for keys, pointerUp for buttons, at the pointer', async () => {
    const h = harness();
    await h.run([key(kd('\uE009'), kd('a')), mouse(mv(7, 8), pd(2))]);
    assert.equal(h.state.cancelList.length, 3);
    h.log.length = 0;
    await releaseAll(h.state, h.ctx);
    assert.deepEqual(
      h.log.map((r) => `${r.event.type} ${r.event.key ?? r.event.button} ${r.event.x ?? ''}`),
      ['pointerUp 2 7', 'keyUp a ', 'keyUp Control '],
    );
    // Released keys leave no modifier behind.
    assert.equal(h.state.modifiers(), 0);
  });

  test('keys released by actions are not released again; nothing held: nothing dispatched', async () => {
    const h = harness();
    await h.run([key(kd('a'), ku('a'))]);
    // The cancel list keeps only what can still be undone.
    assert.equal(h.state.cancelList.length, 0);
    await h.run([key(kd('b'), kd('c'), ku('b')), mouse(pd(), pu(), pd(1))]);
    assert.deepEqual(
      h.state.cancelList.map((a) => `${a.subtype} ${'value' in a ? a.value : (a as { button: number }).button}`),
      ['keyUp c', 'pointerUp 1'],
    );
    await h.run([key(ku('c')), mouse(pu(1))]);
    h.log.length = 0;
    await releaseAll(h.state, h.ctx);
    assert.equal(h.log.length, 0);
    await releaseAll(new InputState(), h.ctx);
  });

  test('the input state is per session and window, and reset forgets it', () => {
    const session = {};
    const a = getInputState(session, 'w1');
    assert.equal(getInputState(session, 'w1'), a);
    assert.notEqual(getInputState(session, 'w2'), a);
    assert.notEqual(getInputState({}, 'w1'), a);
    resetInputState(session, 'w1');
    assert.notEqual(getInputState(session, 'w1'), a);
  });
});

describe('failures during dispatch', () => {
  test('a failing event stops the actions; what was pressed before stays in the cancel list', async () => {
    const h = harness();
    let calls = 0;
    h.ctx.browser.dispatchKeyInput = async () => {
      if (++calls === 2) throw new Error('window gone');
    };
    await assert.rejects(h.run([key(kd('a'), kd('b'), kd('c'))]), /window gone/);
    assert.equal(calls, 2);
    assert.deepEqual(
      h.state.cancelList.map((a) => (a as { value?: string }).value),
      ['a'],
    );
  });
});
