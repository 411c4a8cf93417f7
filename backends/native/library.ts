// Page code installed once per document: the gateway's constant page functions (its "library",
// some 23 KB) are compiled in a frame's main world (or, for the trace's page code, the gateway's
// isolated world beside it) once, and each call then sends only a short function that the library
// is bound to (`this`), by the installed function's object id. A new document (navigation)
// destroys the execution contexts and their objects: the next call installs again.
import type { CDPSession, Frame, JSHandle } from 'puppeteer-core';
import { ScriptError } from '../backend.ts';
import { frameClient, frameIdOf, isolatedRealm, isolatedWorldContextId, mainWorldContextId } from './cdp.ts';

/** A function object whose source is `declaration`: puppeteer sends fn.toString() as is. */
function asFunction(declaration: string): () => unknown {
  const fn = function () {};
  fn.toString = () => declaration;
  return fn;
}

/** Which world of a frame's document: the page's own (main), or the gateway's isolated world. */
export type World = 'main' | 'isolated';

function contextIdOf(frame: Frame, world: World): number | undefined {
  return world === 'main' ? mainWorldContextId(frame) : isolatedWorldContextId(frame);
}

/**
 * Compile `library` in the frame's world; its object id. Raw, without user activation
 * (puppeteer's evaluate would give the page one); through puppeteer's realm only while the
 * document has no execution context yet (it waits for one).
 */
async function install(frame: Frame, client: CDPSession, library: string, world: World): Promise<string> {
  const declaration = `function () { return (${library}); }`;
  const executionContextId = contextIdOf(frame, world);
  let objectId: string | undefined;
  if (executionContextId !== undefined) {
    const reply = await client.send('Runtime.callFunctionOn', { executionContextId, functionDeclaration: declaration });
    objectId = reply.result.objectId;
  } else {
    const realm = world === 'main' ? frame : isolatedRealm(frame);
    const handle = (await realm.evaluateHandle(asFunction(declaration) as () => unknown)) as JSHandle;
    objectId = handle.remoteObject().objectId;
  }
  if (!objectId) throw new Error('the page code could not be installed');
  return objectId;
}

/** The call never ran: the object (or its execution context) no longer exists. Safe to install again. */
const STALE_OBJECT = /Could not find object with given id|Cannot find context with specified id/i;

export class Libraries {
  /** Per CDP session (a page's or an out-of-process frame's): frame id → library → its object id. */
  readonly #installed = new WeakMap<CDPSession, Map<string, Map<string, Promise<string>>>>();

  /**
   * Call `declaration` with `this` bound to `library` in the frame's main world; the JSON result.
   * The first call in a document is one round trip, not two: the library is installed for the
   * calls after it, and this call, sent right behind the install, compiles its own copy (the
   * library keeps no state of its own: what it keeps, it keeps on the document). Under load a
   * round trip waits for three processes to be scheduled: a Find Element right after a
   * navigation took ≈ 0.8× chromedriver's under churn with two.
   */
  async call(frame: Frame, library: string, declaration: string, args: unknown[], userGesture: boolean, world: World = 'main'): Promise<unknown> {
    const client = frameClient(frame);
    for (let attempt = 0; ; attempt++) {
      const executionContextId = this.#installedIn(client, frameIdOf(frame)).has(`${world}:${library}`) ? undefined : contextIdOf(frame, world);
      const objectId = this.#objectId(frame, client, library, world);
      const target =
        executionContextId === undefined
          ? { objectId: await objectId, functionDeclaration: declaration }
          : { executionContextId, functionDeclaration: `function (...args) { return (${declaration}).apply((${library}), args); }` };
      let reply;
      try {
        reply = await client.send('Runtime.callFunctionOn', {
          ...target,
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
      objectId: await this.#objectId(frame, client, library, 'main'),
      functionDeclaration: declaration,
      arguments: [{ objectId }, ...args.map((value) => ({ value }))],
      awaitPromise: true,
    });
    if (reply.exceptionDetails) throw new ScriptError(reply.exceptionDetails.exception?.description ?? reply.exceptionDetails.text);
  }

  /** Call `declaration` bound to `library` with JSON `args`; the page object it resolves to (its CDP id), if any. */
  async callForObject(frame: Frame, library: string, declaration: string, args: unknown[], world: World = 'main'): Promise<string | undefined> {
    const client = frameClient(frame);
    const reply = await client.send('Runtime.callFunctionOn', {
      objectId: await this.#objectId(frame, client, library, world),
      functionDeclaration: declaration,
      arguments: args.map((value) => ({ value })),
      awaitPromise: true,
    });
    return reply.exceptionDetails ? undefined : reply.result.objectId;
  }

  /** The libraries installed (or being installed) in a frame's current document. */
  #installedIn(client: CDPSession, frameId: string): Map<string, Promise<string>> {
    let frames = this.#installed.get(client);
    if (!frames) {
      frames = new Map();
      this.#installed.set(client, frames);
      // Any context going away may be one we installed in: install again where needed.
      const clear = () => frames!.clear();
      client.on('Runtime.executionContextDestroyed', clear);
      client.on('Runtime.executionContextsCleared', clear);
    }
    let libraries = frames.get(frameId);
    if (!libraries) {
      libraries = new Map();
      frames.set(frameId, libraries);
    }
    return libraries;
  }

  #objectId(frame: Frame, client: CDPSession, library: string, world: World): Promise<string> {
    const libraries = this.#installedIn(client, frameIdOf(frame));
    const key = `${world}:${library}`;
    let objectId = libraries.get(key);
    if (!objectId) {
      objectId = install(frame, client, library, world);
      objectId.catch(() => libraries.delete(key));
      libraries.set(key, objectId);
    }
    return objectId;
  }

  #forget(client: CDPSession, frameId: string): void {
    this.#installed.get(client)?.delete(frameId);
  }
}
