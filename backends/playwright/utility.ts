// The gateway's own world in a Playwright frame (CallOptions.isolated): Playwright's utility world,
// an isolated world (Chromium) or sandbox (Firefox over BiDi) it makes beside every document's
// main world for its own injected code. Playwright's public API evaluates only in the main world,
// where a page's scripts see and may change what runs; the utility world is reached through the
// server half of playwright-core, which runs in this process (its in-process connection's
// `toImpl`, as Playwright's own tests reach it). The members used, in one place: a server frame's
// context('utility'), a context's evaluateExpression and evaluateExpressionHandle, a handle's internalEvaluateExpression,
// asElement, _contentFrame and dispose. The server's ExecutionContext serializes arguments and
// results as a client evaluate does.
import type { Frame } from 'playwright-core';
import { UnsupportedPrimitiveError } from '../backend.ts';

interface ServerHandle {
  internalEvaluateExpression(expression: string, options: { isFunction: boolean }, arg: unknown): Promise<unknown>;
  asElement(): ServerElement | null;
  dispose(): void;
}
interface ServerElement extends ServerHandle {
  _contentFrame(): Promise<ServerFrame | null>;
}
interface ServerContext {
  evaluateExpression(expression: string, options: { isFunction: boolean }, arg?: unknown): Promise<unknown>;
  evaluateExpressionHandle(expression: string, options: { isFunction: boolean }, arg?: unknown): Promise<ServerHandle>;
}
interface ServerFrame {
  context(world: 'utility'): Promise<ServerContext>;
}

/** The server half of a client object of playwright-core (in this process). */
function serverOf<T>(client: object): T {
  const connection = (client as { _connection?: { toImpl?: (x: object) => unknown } })._connection;
  const impl = connection?.toImpl?.(client);
  if (!impl) throw new UnsupportedPrimitiveError("Playwright's utility world is not reachable (playwright-core is not in this process)");
  return impl as T;
}

export class UtilityWorld {
  /** The library installed per frame: the utility context it lives in, and its handle there. */
  readonly #libraries = new WeakMap<Frame, Map<string, { context: ServerContext; handle: Promise<ServerHandle> }>>();

  /** Call `declaration` in the frame's utility world with `this` bound to `library`; its JSON result. */
  async call(frame: Frame, library: string | undefined, declaration: string, args: unknown[]): Promise<unknown> {
    const context = await serverOf<ServerFrame>(frame).context('utility');
    if (!library) return context.evaluateExpression(`(args) => (${declaration}).apply(globalThis, args)`, { isFunction: true }, args);
    for (let attempt = 0; ; attempt++) {
      const handle = await this.#library(frame, context, library);
      try {
        return await handle.internalEvaluateExpression(`(library, args) => (${declaration}).apply(library, args)`, { isFunction: true }, args);
      } catch (e) {
        // The document (and the handle with it) went away before the call: installed again, once.
        if (attempt === 0 && /disposed|Cannot find context|object.*(not found|stale)/i.test(String(e))) {
          this.#libraries.get(frame)?.delete(library);
          continue;
        }
        throw e;
      }
    }
  }

  /** Compile `library` in the frame's current document's utility world, unless it is there. */
  async install(frame: Frame, library: string): Promise<void> {
    const context = await serverOf<ServerFrame>(frame).context('utility');
    await this.#library(frame, context, library);
  }

  /** The frame element `declaration` returns in the frame's utility world: the client frame it contains, or null. */
  async contentFrame(frame: Frame, candidates: Frame[], declaration: string, args: unknown[]): Promise<Frame | null> {
    const context = await serverOf<ServerFrame>(frame).context('utility');
    const handle = await context.evaluateExpressionHandle(`(args) => (${declaration}).apply(globalThis, args)`, { isFunction: true }, args);
    try {
      const element = handle.asElement();
      const inner = element && (await element._contentFrame());
      return (inner && candidates.find((candidate) => serverOf<ServerFrame>(candidate) === inner)) ?? null;
    } finally {
      handle.dispose();
    }
  }

  #library(frame: Frame, context: ServerContext, library: string): Promise<ServerHandle> {
    let installed = this.#libraries.get(frame);
    if (!installed) this.#libraries.set(frame, (installed = new Map()));
    const known = installed.get(library);
    // A new document has a new utility context: the library is compiled there once.
    if (known && known.context === context) return known.handle;
    const handle = context.evaluateExpressionHandle(`(${library})`, { isFunction: false });
    const entry = { context, handle };
    const current = installed;
    handle.catch(() => current.get(library) === entry && current.delete(library));
    installed.set(library, entry);
    return handle;
  }
}
