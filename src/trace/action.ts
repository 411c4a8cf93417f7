// What a classic command is about to act on, for its step's action view (docs/traces.md,
// "Before, action, after"): Element Click, Element Send Keys and Element Clear address an element
// by its URL; Perform Actions a pointer's element origin, and its pointer goes down somewhere.
// Pure: the command's own page calls note where each element was right before they acted
// (src/webdriver/notes.ts, one round trip: nobody asks the page again) and these rules turn the
// notes into the step's `action`.
import { WEB_ELEMENT_IDENTIFIER as ELEMENT } from '../webdriver/params.ts';
import type { PageNotes } from '../webdriver/notes.ts';
// The trace format's own types, as the viewer reads them.
import type { ActionCapture } from './viewer/model.ts';

export type { ActionCapture, Capture } from './viewer/model.ts';

/** Where the pointer goes down: relative to the element's in-view center point, or in the viewport. */
export type PointerDown = { origin: 'element'; x: number; y: number } | { origin: 'viewport'; x: number; y: number };

/** What the command acts on: the element (a web element reference), and where its pointer goes down. */
export interface ActionPlan {
  element?: string;
  pointerDown?: PointerDown;
}

/** The web element identifier (spec §12.1). */

/**
 * The plan of a classic command, or undefined for one that acts on nothing we can show. `inFrame`:
 * the current browsing context is a frame (a viewport point is then in its viewport, whose place
 * in the window is not known here: no point).
 */
export function actionPlan(name: string, urlParams: Record<string, string>, params: unknown, inFrame: boolean): ActionPlan | undefined {
  const element = urlParams.elementId;
  switch (name) {
    case 'elementClick':
      return element ? { element, pointerDown: { origin: 'element', x: 0, y: 0 } } : undefined;
    case 'elementSendKeys':
    case 'elementClear':
      return element ? { element } : undefined;
    case 'performActions':
      return pointerPlan(params, inFrame);
    default:
      return undefined;
  }
}

/**
 * Perform Actions: the pointer sources' actions tick by tick (spec: a tick is every source's action
 * at one index), following where each pointer is, until the first pointerDown. Its element is the
 * element origin it moved to last (none when it moved to viewport coordinates); without a
 * pointerDown, the last element origin moved to, with no point.
 */
function pointerPlan(params: unknown, inFrame: boolean): ActionPlan | undefined {
  const sources = (params as { actions?: unknown } | null)?.actions;
  if (!Array.isArray(sources)) return undefined;
  const pointers = sources.filter((s): s is { actions: unknown[] } => isObject(s) && s.type === 'pointer' && Array.isArray(s.actions));
  const where = pointers.map((): (PointerDown & { element?: string }) | undefined => undefined);
  let lastElement: string | undefined;
  const ticks = Math.max(0, ...pointers.map((p) => p.actions.length));
  for (let tick = 0; tick < ticks; tick++) {
    for (let i = 0; i < pointers.length; i++) {
      const action = pointers[i]!.actions[tick];
      if (!isObject(action)) continue;
      if (action.type === 'pointerMove') {
        const x = finite(action.x);
        const y = finite(action.y);
        const origin = action.origin;
        const at = where[i];
        if (isObject(origin) && typeof origin[ELEMENT] === 'string') {
          lastElement = origin[ELEMENT];
          where[i] = { origin: 'element', x, y, element: lastElement };
        } else if (origin === 'pointer') {
          where[i] = at && { ...at, x: at.x + x, y: at.y + y };
        } else if (origin === undefined || origin === 'viewport') {
          where[i] = { origin: 'viewport', x, y };
        } else where[i] = undefined;
      } else if (action.type === 'pointerDown') {
        const at = where[i];
        if (!at || (at.origin === 'viewport' && inFrame)) return lastElement ? { element: lastElement } : undefined;
        const pointerDown: PointerDown = { origin: at.origin, x: at.x, y: at.y };
        return at.origin === 'element' ? { element: at.element, pointerDown } : { pointerDown };
      }
    }
  }
  return lastElement ? { element: lastElement } : undefined;
}

/** Where an element was right before a command acted on it (the page's notes). */
export type ActionTarget = NonNullable<NonNullable<PageNotes['targets']>[string]>;

/**
 * An element's path from <html> (its position among its parent's element children at each
 * level, from 1) as a CSS selector: the snapshot keeps every element in its place (one it drops
 * leaves an empty <template>), so the selector finds it in the snapshot's document.
 */
export function selectorOfPath(path: readonly number[]): string {
  return ['html', ...path.map((k) => `:nth-child(${k})`)].join(' > ');
}

/**
 * The step's action from the plan and the page's notes: the element (its selector in the
 * snapshot), where the pointer went down, and the viewport both are in.
 */
export function actionCapture(plan: ActionPlan, notes: PageNotes | undefined): ActionCapture | undefined {
  const viewport = notes?.viewport;
  if (!viewport) return undefined;
  const target = plan.element ? (notes.targets?.[plan.element] ?? null) : null;
  const capture: ActionCapture = { viewport };
  if (plan.element && target) {
    capture.element = { ...(target.path && { selector: selectorOfPath(target.path) }), box: target.box };
  }
  const down = plan.pointerDown;
  if (down?.origin === 'viewport') capture.point = { x: down.x, y: down.y };
  else if (down && target) capture.point = { x: target.center.x + down.x, y: target.center.y + down.y };
  return capture.element || capture.point ? capture : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const finite = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
