// WebDriver BiDi names nodes by shared ids, and a session in BiDi mode has one id per node for
// both protocols: a classic command may name an element by the id a BiDi command returned
// (WebdriverIO finds elements over BiDi, then clicks them over HTTP). Before such a command runs,
// each id that is not one of ours is resolved by the backend and recorded in its document.
import type { Session } from './session.ts';
import { ATOM } from './page/index.ts';

const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';
const SHADOW_KEY = 'shadow-6066-11e4-a52e-4f735466cecf';
/** The classic layer's own references: `<document>.<n>` (page/core.js). */
const OWN_REFERENCE = /^[0-9a-f]{16}\.\d+$/;
const ADOPT = 'function (node, id) { return this("adoptSharedId", [node, id]); }';

/** Make the command's foreign element references known to their documents (BiDi sessions only). */
export async function adoptSharedIds(session: Session, urlParams: Record<string, string>, body: unknown): Promise<void> {
  if (!session.bidi || !session.browser.resolveSharedId) return;
  const ids = new Set<string>();
  for (const id of [urlParams.elementId, urlParams.shadowId]) if (id !== undefined) ids.add(id);
  collect(body, ids, 0);
  for (const id of ids) {
    if (OWN_REFERENCE.test(id) || session.adoptedSharedIds.has(id)) continue;
    // Unknown to the backend too: the command itself answers no such element.
    if (await session.browser.resolveSharedId(id, ADOPT, ATOM)) session.adoptedSharedIds.add(id);
  }
}

/** Element and shadow root references anywhere in a JSON body (Execute Script arguments, actions). */
function collect(value: unknown, ids: Set<string>, depth: number): void {
  if (depth > 64 || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) collect(item, ids, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of [ELEMENT_KEY, SHADOW_KEY]) if (typeof record[key] === 'string') ids.add(record[key] as string);
  for (const item of Object.values(record)) collect(item, ids, depth + 1);
}
