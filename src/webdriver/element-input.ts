// The input of Element Click and Element Send Keys, as the spec defines it: actions of a fresh
// input source dispatched through the actions dispatcher (actions.ts), so that a backend
// implements input once (its dispatch*Input primitives) for these and for Perform Actions alike.
import { NoSuchWindowError, type DrivenBrowser } from '../../backends/backend.ts';
import { dispatchActions, extractActionSequence, InputState, releaseAll, type Action, type ActionsContext, type Point } from './actions.ts';
import { graphemeClusters, isModifierKey, normalisedKeyValue, NULL_KEY, TYPED_AS_KEYS } from './keys.ts';

/** The top-level window's context: the points given are already in its viewport, in view. */
function topLevel(browser: DrivenBrowser, window: string): ActionsContext {
  return {
    browser,
    window,
    // The point is an element's in-view center point: there is no bound it could be out of.
    viewport: async () => ({ width: Number.POSITIVE_INFINITY, height: Number.POSITIVE_INFINITY }),
    elementCenter: async () => {
      throw new Error('element input names no element origin');
    },
    offset: async () => ({ x: 0, y: 0 }),
  };
}

/** Spec Element Click, its input: a new mouse moves to `point` and clicks the main button. */
export async function clickAt(browser: DrivenBrowser, window: string, point: Point): Promise<void> {
  const state = new InputState();
  const actions = extractActionSequence(state, [
    {
      type: 'pointer',
      id: 'element click',
      parameters: { pointerType: 'mouse' },
      actions: [
        { type: 'pointerMove', x: point.x, y: point.y, origin: 'viewport' },
        { type: 'pointerDown', button: 0 },
        { type: 'pointerUp', button: 0 },
      ],
    },
  ]);
  try {
    await dispatch(state, actions, topLevel(browser, window));
  } catch (e) {
    // The click closed its own window (a link to window.close()): it was clicked.
    if (e instanceof NoSuchWindowError && !(await browser.windowHandles()).includes(window)) return;
    throw e;
  }
}

/**
 * Dispatch; if that fails midway (a prompt opened on a key or button press), what is still
 * held is released, as far as it can be: the next command starts with nothing pressed.
 */
async function dispatch(state: InputState, actions: Action[][], ctx: ActionsContext): Promise<void> {
  try {
    await dispatchActions(state, actions, ctx);
  } catch (e) {
    await releaseAll(state, ctx).catch(() => {});
    throw e;
  }
}

/**
 * Spec "dispatch actions for a string" (Element Send Keys): each grapheme cluster is pressed
 * and released by a new keyboard; modifiers are sticky (pressing one toggles it), the NULL key
 * releases them all, and whatever is still held is released at the end.
 */
export async function typeText(browser: DrivenBrowser, window: string, text: string): Promise<void> {
  const held = new Map<string, string>(); // normalised modifier → the raw key that pressed it
  const keys: { type: 'keyDown' | 'keyUp'; value: string }[] = [];
  const releaseAll = () => {
    for (const value of held.values()) keys.push({ type: 'keyUp', value });
    held.clear();
  };
  for (const raw of graphemeClusters(text)) {
    // A line break or tab in the text is the key a user presses for it (as chromedriver types them).
    const cluster = TYPED_AS_KEYS.get(raw) ?? raw;
    if (cluster === NULL_KEY) {
      releaseAll();
      continue;
    }
    const key = normalisedKeyValue(cluster);
    if (isModifierKey(key)) {
      const pressedBy = held.get(key);
      if (pressedBy !== undefined) {
        held.delete(key);
        keys.push({ type: 'keyUp', value: pressedBy });
      } else {
        held.set(key, cluster);
        keys.push({ type: 'keyDown', value: cluster });
      }
      continue;
    }
    keys.push({ type: 'keyDown', value: cluster }, { type: 'keyUp', value: cluster });
  }
  releaseAll();
  if (keys.length === 0) return;
  const state = new InputState();
  const actions = extractActionSequence(state, [{ type: 'key', id: 'send keys', actions: keys }]);
  await dispatch(state, actions, topLevel(browser, window));
}
