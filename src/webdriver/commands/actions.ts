// Spec §15.7 "Perform Actions" and §15.8 "Release Actions". The actions themselves (validation,
// input state, dispatch by ticks) are in ../actions.ts; this wires them to the session: its
// input state per top-level window, the page's geometry (page/actions.js) and the browser.
import type { BrowsingContext } from '../../../backends/backend.ts';
import {
  dispatchActions,
  extractActionSequence,
  getInputState,
  releaseAll,
  resetInputState,
  type ActionsContext,
  type Point,
  type ViewportSize,
} from '../actions.ts';
import { toTopLevelViewport } from '../frames.ts';
import { callAtomIn } from '../page/index.ts';
import { p } from '../params.ts';
import type { Session } from '../session.ts';
import { sessionCommand } from './types.ts';

/**
 * The page side of dispatching in the current browsing context. The viewport and the frame
 * offset are asked once per command, and only by actions that need them.
 */
function actionsContext(session: Session, context: BrowsingContext): ActionsContext {
  let viewport: Promise<ViewportSize> | undefined;
  let offset: Promise<Point> | undefined;
  return {
    browser: session.browser,
    window: context.window,
    viewport: () => (viewport ??= callAtomIn<ViewportSize>(session, context, 'actionsViewport')),
    async elementCenter(id) {
      const center = await callAtomIn<Point & { viewport: ViewportSize }>(session, context, 'actionsElementOrigin', { id });
      viewport = Promise.resolve(center.viewport);
      return center;
    },
    // Frames: their coordinates are their own viewport's; input goes to the top-level one.
    offset: () =>
      (offset ??=
        context.frames.length === 0
          ? Promise.resolve({ x: 0, y: 0 })
          : toTopLevelViewport(session, context, { x: 0, y: 0, width: 0, height: 0 }, false).then(({ x, y }) => ({ x, y }))),
  };
}

/** After input, like chromedriver: wait for a navigation it started (a link clicked, a form submitted). */
async function awaitNavigation(session: Session, window: string): Promise<void> {
  await session.browser.waitForPendingNavigation(window, session.pageLoadStrategy, session.timeouts.pageLoad);
}

// ── Perform Actions (spec §15.7) ─────────────────────────────────────────────────────────────

export const performActions = sessionCommand({
  // `actions` is checked by extractActionSequence (spec: "If actions is not a List, invalid argument").
  params: p.object({ actions: p.any }),
  async handler({ session }, { actions }) {
    // no such window if the current browsing context (or its top level) is closed.
    const context = await session.currentContext();
    const state = getInputState(session, context.window);
    const actionsByTick = extractActionSequence(state, actions);
    // Click counting starts afresh with each call, as chromedriver does (the spec leaves it open,
    // w3c/webdriver#1772): Selenium's doubleClick() right after a click() is one double click.
    for (const source of state.sources.values()) if (source.type === 'pointer') source.lastPress = undefined;
    await dispatchActions(state, actionsByTick, actionsContext(session, context));
    await awaitNavigation(session, context.window);
    return null;
  },
});

// ── Release Actions (spec §15.8) ─────────────────────────────────────────────────────────────

export const releaseActions = sessionCommand({
  // Spec: Release Actions does not handle user prompts.
  handlesUserPrompts: false,
  async handler({ session }) {
    const context = await session.currentContext();
    const state = getInputState(session, context.window);
    // Spec: undo what is held (keyUp, pointerUp) in reverse order, in one tick, then forget it all.
    try {
      await releaseAll(state, actionsContext(session, context));
    } finally {
      resetInputState(session, context.window);
    }
    return null;
  },
});
