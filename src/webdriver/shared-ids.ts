// WebDriver BiDi names nodes by shared ids, and a session in BiDi mode has one id per node for
// both protocols: a classic command may name an element by the id a BiDi command returned
// (WebdriverIO finds elements over BiDi, then clicks them over HTTP). Before such a command runs,
// each id that is not one of ours is resolved by the backend and recorded in its document. The
// other way, a BiDi command naming a node by a classic reference ({sharedId: <ours>}) gets the
// engine's id for that node before it is sent on.
import type { Session } from './session.ts';
import { ATOM } from './page/index.ts';
import { WEB_ELEMENT_IDENTIFIER as ELEMENT_KEY, SHADOW_ROOT_IDENTIFIER as SHADOW_KEY } from './params.ts';

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

const NODE_OF = 'function (id) { return this("nodeOf", [id]).then((answer) => answer.value); }';

/**
 * A BiDi command's params with each classic reference used as a shared id replaced by the
 * engine's id for its node; undefined when there is none (the usual case: nothing to wait for).
 */
export function withEngineSharedIds(session: Session, params: Record<string, unknown>): Promise<Record<string, unknown>> | undefined {
  const browser = session.browser;
  if (!browser.sharedIdOf) return undefined;
  const references = new Set<string>();
  collectSharedIds(params, references, 0);
  if (references.size === 0) return undefined;
  const target = params.target as { context?: unknown } | undefined;
  const context = typeof target?.context === 'string' ? target.context : typeof params.context === 'string' ? params.context : undefined;
  return (async () => {
    const engineIds = new Map<string, string>();
    for (const reference of references) {
      const id = await browser.sharedIdOf!(reference, context, NODE_OF, ATOM);
      if (id) engineIds.set(reference, id);
    }
    return replaceSharedIds(params, engineIds, 0) as Record<string, unknown>;
  })();
}

function collectSharedIds(value: unknown, ids: Set<string>, depth: number): void {
  if (depth > 64 || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) return value.forEach((item) => collectSharedIds(item, ids, depth + 1));
  const record = value as Record<string, unknown>;
  if (typeof record.sharedId === 'string' && OWN_REFERENCE.test(record.sharedId)) ids.add(record.sharedId);
  for (const item of Object.values(record)) collectSharedIds(item, ids, depth + 1);
}

function replaceSharedIds(value: unknown, ids: Map<string, string>, depth: number): unknown {
  if (depth > 64 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => replaceSharedIds(item, ids, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = key === 'sharedId' && typeof item === 'string' && ids.has(item) ? ids.get(item) : replaceSharedIds(item, ids, depth + 1);
  return out;
}
