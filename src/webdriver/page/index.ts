// The gateway side of the page atoms: assembles the page files into one function, calls it in
// the current browsing context (one round trip), and turns its answers into W3C errors.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import type { BrowsingContext } from '../../../backends/backend.ts';
import { error, isErrorCode, WebDriverError } from '../errors.ts';
import { argumentReferences, resolveWindowRefs, type WindowRef } from '../frames.ts';
import type { Session } from '../session.ts';
import type { PageNotes } from '../notes.ts';

const DIR = fileURLToPath(new URL('.', import.meta.url));

/** core.js first (the shared helpers), then every other page file, in name order. */
function loadParts(): string {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.js') && f !== 'core.js')
    .sort();
  return ['core.js', ...files].map((f) => readFileSync(DIR + f, 'utf8')).join('\n');
}

/**
 * A function declaration, minified once at start: it travels with every page operation, so its
 * size is paid on each call (in the pipe and in the renderer's compiler).
 */
function minified(declaration: string): string {
  const { code } = transformSync(`var wdgateAtom = ${declaration};`, { minify: true, target: 'es2022', legalComments: 'none' });
  return code.trim().replace(/^var wdgateAtom=/, '').replace(/;$/, '');
}

/** The one function every page operation goes through. Constant, so V8 caches its compilation. */
export const ATOM = minified(`async function (wdgateOp, wdgateArgs, wdgateUserFunction) {
'use strict';
const OPS = Object.create(null);
${loadParts()}
return run(wdgateOp, wdgateArgs);
}`);

/**
 * A declaration answering an op's raw value (a node, say) instead of its JSON answer, for
 * backend primitives that need a handle on a page object (setFileInputFiles). A failing op
 * throws (a ScriptError): check the element with callAtom first.
 */
export const RAW_ATOM = `async function (wdgateOp, wdgateArgs) {
const answer = await (${ATOM})(wdgateOp, wdgateArgs);
if (answer.error !== undefined) throw new Error(answer.error + ': ' + answer.message);
return answer.value;
}`;

/** A page operation: the installed atom (bound as `this`) runs it. */
const OP_CALL = 'function (op, args) { return this(op, args); }';

/** Execute Script's declaration: the user's body is a sloppy-mode function outside our scope. */
/**
 * The user's script as a function the atom calls. Execute Script's body is always an async
 * function's (its result is awaited anyway); Execute Async Script's only when it uses `await`,
 * so that a plain body keeps the spec's rule that only the callback or a returned thenable
 * settles it.
 */
function executeDeclaration(body: string, async: boolean): string {
  const kind = !async || /\bawait\b/.test(body) ? 'async function' : 'function';
  return `function (wdgateOp, wdgateArgs) {
return this(wdgateOp, wdgateArgs, ${kind} () {
${body}
});
}`;
}

interface AtomResult {
  value?: unknown;
  error?: string;
  message?: string;
  data?: { foreignDocument?: string };
  doc?: string;
  /** Frames: WindowProxy objects in `value` (page/core.js), for the gateway to make references of. */
  windows?: WindowRef[];
  /** What the op saw as it ran, when asked (page/core.js, noteTarget). */
  notes?: Omit<PageNotes, 'at'>;
}

/** A command's notes, call by call: an element's place is the one before the command's first look at it (before it scrolled). */
function mergeNotes(into: PageNotes, from: Omit<PageNotes, 'at'>): void {
  if (from.viewport !== undefined) into.viewport ??= from.viewport;
  if (from.pageChanged) into.pageChanged = true;
  for (const [id, target] of Object.entries(from.targets ?? {})) {
    into.targets ??= {};
    into.targets[id] ??= target;
  }
}

/** The browsing context a document belongs to: its frame id, or the window handle at the top. */
const contextId = (context: BrowsingContext): string => context.frames.at(-1) ?? context.window;

const CONTEXT_GONE = /Execution context was destroyed|Cannot find context|Inspected target navigated/i;

/**
 * Run `declaration` with the atom bound to it (installed once per document by the backend).
 * `retry`: the op is idempotent. `userActivation`: a user's script, which may need it.
 */
async function call(session: Session, context: BrowsingContext, declaration: string, op: string, args: unknown, retry: boolean, userActivation = false): Promise<unknown> {
  let result: AtomResult;
  // An observer keeps the session's content: the op notes what it saw as it ran (page/core.js).
  const notes = session.notes;
  if (notes) notes.at ??= Date.now();
  const sent = notes && typeof args === 'object' && args !== null ? { ...args, notes: true } : args;
  try {
    result = (await session.browser.callFunction(context, declaration, [op, sent], { library: ATOM, userActivation })) as AtomResult;
  } catch (e) {
    // The document was replaced under the call (a navigation): an idempotent op tries again.
    if (retry && e instanceof Error && CONTEXT_GONE.test(e.message)) return call(session, context, declaration, op, args, false);
    throw e;
  }
  if (notes && result?.notes) mergeNotes(notes, result.notes);
  if (result?.doc) session.knownDocuments.set(result.doc, contextId(context));
  if (result?.error === undefined) {
    if (result?.windows) return resolveWindowRefs(session, context, result.value ?? null, result.windows);
    return result?.value ?? null;
  }
  const foreign = result.data?.foreignDocument;
  // Stale only for a former document of this browsing context: another frame's or window's
  // reference is unknown here (no such element, as WPT expects).
  if (foreign && session.knownDocuments.get(foreign) === contextId(context)) {
    const shadow = result.error === 'no such shadow root';
    throw error(
      shadow ? 'detached shadow root' : 'stale element reference',
      `the ${shadow ? 'shadow root' : 'element'}'s document is no longer the current document of this browsing context`,
    );
  }
  throw isErrorCode(result.error) ? new WebDriverError(result.error, result.message ?? '') : error('unknown error', result.message ?? String(result.error));
}

/** Run page operation `op` (from a page/*.js file) in the session's current browsing context. */
export async function callAtom<T = unknown>(session: Session, op: string, args: unknown = {}): Promise<T> {
  return (await call(session, await session.currentContext(), OP_CALL, op, args, true)) as T;
}

/** Run page operation `op` in a given browsing context (frames: an ancestor of the current one, say). */
export async function callAtomIn<T = unknown>(session: Session, context: BrowsingContext, op: string, args: unknown = {}): Promise<T> {
  return (await call(session, context, OP_CALL, op, args, true)) as T;
}

/** Spec "execute a function body" with deserialized arguments, JSON-cloned result. */
export async function executeInPage(
  session: Session,
  body: string,
  args: unknown[],
  async: boolean,
  timeoutMs: number | null,
): Promise<unknown> {
  const context = await session.currentContext();
  // Frames: web frame / web window references among the arguments, located for the page.
  const references = await argumentReferences(session, context, args);
  const run = call(session, context, executeDeclaration(body, async), 'executeScript', { args, async, references }, false, true);
  // null: no timeout. Past 2^31-1 ms Node timers fire at once, and no script runs that long.
  if (timeoutMs === null || timeoutMs > 2 ** 31 - 1) return run;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error('script timeout', `script did not complete within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
    run.catch(() => {}); // a late failure of an abandoned script is nobody's
  }
}
