// Page code installed once per document: the gateway's constant page functions (its "library",
// some 23 KB) are compiled in a frame's main world once, and each call then sends only a short
// function that the library is bound to (`this`), by the installed function's object id. A new
// document (navigation) destroys the execution context and its objects: the next call installs
// again.
import type { CDPSession, Frame, JSHandle } from 'puppeteer-core';
import { ScriptError } from '../backend.ts';
import { frameClient, frameIdOf, mainWorldContextId } from './cdp.ts';

/** A function object whose source is `declaration`: puppeteer sends fn.toString() as is. */
function asFunction(declaration: string): () => unknown {
  const fn = function () {};
  fn.toString = () => declaration;
  return fn;
}

/**
 * Compile `library` in the frame's main world; its object id. Raw, without user activation
 * (puppeteer's evaluate would give the page one); through puppeteer's realm only while the
 * document has no execution context yet (it waits for one).
 */
async function install(frame: Frame, client: CDPSession, library: string): Promise<string> {
  const declaration = `function () { return (${library}); }`;
  const executionContextId = mainWorldContextId(frame);
  let objectId: string | undefined;
  if (executionContextId !== undefined) {
    const reply = await client.send('Runtime.callFunctionOn', { executionContextId, functionDeclaration: declaration });
    objectId = reply.result.objectId;
  } else {
    const handle = (await frame.evaluateHandle(asFunction(declaration) as () => unknown)) as JSHandle;
    objectId = handle.remoteObject().objectId;
  }
  if (!objectId) throw new Error('the page code could not be installed');
  return objectId;
}

/** The call never ran: the object (or its execution context) no longer exists. Safe to install again. */
const STALE_OBJECT = /Could not find object with given id|Cannot find context with specified id/i;

interface Installed {
  libraries: Map<string, Promise<string>>;
}

export class Libraries {
  /** Per CDP session (a page's or an out-of-process frame's): frame id → installed libraries. */
  readonly #installed = new WeakMap<CDPSession, Map<string, Installed>>();

  /** Call `declaration` with `this` bound to `library` in the frame's main world; the JSON result. */
  async call(frame: Frame, library: string, declaration: string, args: unknown[], userGesture: boolean): Promise<unknown> {
    const client = frameClient(frame);
    for (let attempt = 0; ; attempt++) {
      const objectId = await this.#objectId(frame, client, library);
      let reply;
      try {
        reply = await client.send('Runtime.callFunctionOn', {
          objectId,
          functionDeclaration: declaration,
          arguments: args.map((value) => ({ value })),
          returnByValue: true,
          awaitPromise: true,
          ...(userGesture && { userGesture: true }),
        });
      } catch (e) {
        if (attempt === 0 && e instanceof Error && STALE_OBJECT.test(e.message)) {
          this.#forget(client, frameIdOf(frame));
          continue;
        }
        throw e;
      }
      if (reply.exceptionDetails) {
        const { exception, text } = reply.exceptionDetails;
        throw new ScriptError(exception?.description ?? text);
      }
      return reply.result.value;
    }
  }

  /** Call `declaration` bound to `library`, with a page object (by its CDP id) first, then JSON `args`. */
  async callWithObject(frame: Frame, library: string, declaration: string, objectId: string, args: unknown[]): Promise<void> {
    const client = frameClient(frame);
    const reply = await client.send('Runtime.callFunctionOn', {
      objectId: await this.#objectId(frame, client, library),
      functionDeclaration: declaration,
      arguments: [{ objectId }, ...args.map((value) => ({ value }))],
      awaitPromise: true,
    });
    if (reply.exceptionDetails) throw new ScriptError(reply.exceptionDetails.exception?.description ?? reply.exceptionDetails.text);
  }

  /** Call `declaration` bound to `library` with JSON `args`; the page object it resolves to (its CDP id), if any. */
  async callForObject(frame: Frame, library: string, declaration: string, args: unknown[]): Promise<string | undefined> {
    const client = frameClient(frame);
    const reply = await client.send('Runtime.callFunctionOn', {
      objectId: await this.#objectId(frame, client, library),
      functionDeclaration: declaration,
      arguments: args.map((value) => ({ value })),
      awaitPromise: true,
    });
    return reply.exceptionDetails ? undefined : reply.result.objectId;
  }

  #objectId(frame: Frame, client: CDPSession, library: string): Promise<string> {
    let frames = this.#installed.get(client);
    if (!frames) {
      frames = new Map();
      this.#installed.set(client, frames);
      // Any context going away may be one we installed in: install again where needed.
      const clear = () => frames!.clear();
      client.on('Runtime.executionContextDestroyed', clear);
      client.on('Runtime.executionContextsCleared', clear);
    }
    const frameId = frameIdOf(frame);
    let installed = frames.get(frameId);
    if (!installed) {
      installed = { libraries: new Map() };
      frames.set(frameId, installed);
    }
    let objectId = installed.libraries.get(library);
    if (!objectId) {
      objectId = install(frame, client, library);
      const current = installed;
      objectId.catch(() => current.libraries.delete(library));
      installed.libraries.set(library, objectId);
    }
    return objectId;
  }

  #forget(client: CDPSession, frameId: string): void {
    this.#installed.get(client)?.delete(frameId);
  }
}
