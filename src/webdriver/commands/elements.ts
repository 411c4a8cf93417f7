// Spec §12.3 "Retrieval" (finding elements, the active element, shadow roots) and §12.4
// "State". Each command is one page operation (page/find.js, page/state.js): the reference in
// the URL is resolved in the same round trip that does the work.
import { ScriptError, type AccessibleNode } from '../../../backends/backend.ts';
import { error } from '../errors.ts';
import { p } from '../params.ts';
import { callAtom, RAW_ATOM } from '../page/index.ts';
import type { Session } from '../session.ts';
import { sessionCommand } from './types.ts';

/** Spec §12.3.1 "table of location strategies". */
const LOCATION_STRATEGIES = ['css selector', 'link text', 'partial link text', 'tag name', 'xpath'] as const;

// Spec: a `using` not in the table, or a `value` that is not a string, is invalid argument.
const locator = p.object({ using: p.oneOf(...LOCATION_STRATEGIES), value: p.string });

/**
 * Spec §12.3.2-7 Find Element(s) [From Element | From Shadow Root]: "find" from the start node,
 * waiting up to the session's implicit wait timeout (polled inside the page: one round trip).
 */
function findCommand(single: boolean, from: 'document' | 'element' | 'shadow root') {
  return sessionCommand({
    params: locator,
    handler({ session, urlParams }, { using, value }) {
      // XPath knows nothing of shadow trees: chromedriver refuses it from a shadow root.
      if (from === 'shadow root' && using === 'xpath') {
        throw error('invalid argument', 'invalid locator: the xpath strategy cannot search from a shadow root');
      }
      const id = from === 'element' ? urlParams.elementId : from === 'shadow root' ? urlParams.shadowId : undefined;
      return callAtom(session, 'findElements', { from, id, using, value, implicit: session.timeouts.implicit, single });
    },
  });
}

export const findElement = findCommand(true, 'document');
export const findElements = findCommand(false, 'document');
export const findElementFromElement = findCommand(true, 'element');
export const findElementsFromElement = findCommand(false, 'element');
export const findElementFromShadowRoot = findCommand(true, 'shadow root');
export const findElementsFromShadowRoot = findCommand(false, 'shadow root');

// Spec §12.3.8 Get Active Element.
export const getActiveElement = sessionCommand({
  handler: ({ session }) => callAtom(session, 'getActiveElement'),
});

/** Page operation `op` on the element named by the URL's {elementId} (and `name` from `nameParam`). */
function elementCommand(op: string, nameParam?: string, args: Record<string, unknown> = {}) {
  return sessionCommand({
    handler: ({ session, urlParams }) =>
      callAtom(session, op, { ...args, id: urlParams.elementId, name: nameParam === undefined ? undefined : urlParams[nameParam] }),
  });
}

// Spec §12.3.9 Get Element Shadow Root.
export const getElementShadowRoot = elementCommand('getElementShadowRoot');

// Spec §12.4 Element State.
export const isElementSelected = elementCommand('isElementSelected');
export const getElementAttribute = elementCommand('getElementAttribute', 'name');
export const getElementProperty = elementCommand('getElementProperty', 'name');
export const getElementCssValue = elementCommand('getElementCssValue', 'propertyName');
export const getElementText = elementCommand('getElementText');
export const getElementTagName = elementCommand('getElementTagName');
export const getElementRect = elementCommand('getElementRect');
export const isElementEnabled = elementCommand('isElementEnabled');

// Spec §12.4.9 Get Computed Role / §12.4.10 Get Computed Label: the element's node in the
// browser's accessibility tree, as chromedriver reads it (its role; its computed name).
async function accessibleNode(session: Session, id: string): Promise<AccessibleNode> {
  const context = await session.currentContext();
  try {
    return await session.browser.accessibleNode(context, RAW_ATOM, ['resolveElement', { id }]);
  } catch (e) {
    if (!(e instanceof ScriptError)) throw e;
    // The reference did not resolve: the page atom answers the W3C error (stale or unknown).
    await callAtom(session, 'resolveElement', { id });
    throw error('unknown error', e.message);
  }
}

export const getComputedRole = sessionCommand({
  handler: async ({ session, urlParams }) => (await accessibleNode(session, urlParams.elementId!)).role,
});
export const getComputedLabel = sessionCommand({
  handler: async ({ session, urlParams }) => (await accessibleNode(session, urlParams.elementId!)).name,
});
