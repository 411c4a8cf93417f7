// Calls into a Firefox page over WebDriver BiDi (script.callFunction): in the realm of the
// target's current document, with the gateway's page code (its "library") installed once per
// realm and bound as `this`.
import { NoSuchWindowError, type CallOptions } from '../backend.ts';
import { BidiError, GATEWAY_SANDBOX, type BidiHub, type Channel } from './hub.ts';
import type { RemoteValue } from './values.ts';

/** The gateway's own realm beside a document's: the page cannot reach or change what runs there. */
const SANDBOX = GATEWAY_SANDBOX;

export interface ScriptResult {
  type: 'success' | 'exception';
  result?: RemoteValue;
  exceptionDetails?: { text?: string; exception?: RemoteValue };
}

export class FirefoxScripts {
  /** The library installed per realm (a document's main world), by its handle; gone with the realm. */
  readonly #libraries = new Map<string, Map<string, Promise<string>>>();
  /** The same in the gateway's sandbox of each document (by the document's realm): handle and sandbox realm. */
  readonly #isolated = new Map<string, Map<string, Promise<{ handle: string; realm: string }>>>();

  constructor(
    readonly hub: BidiHub,
    readonly channel: Channel,
    readonly classify: (e: unknown) => Error,
  ) {}

  /** The realm went away: so did what was installed in it. */
  forget(realm: string): void {
    this.#libraries.delete(realm);
    this.#isolated.delete(realm);
  }

  async #call<T>(method: string, params: Record<string, unknown>): Promise<T> {
    try {
      return await this.channel.call<T>(method, params);
    } catch (e) {
      throw this.classify(e);
    }
  }

  /**
   * The realm of the target's current document. Calls name a realm, not the browsing context:
   * Firefox runs a command again in the context's next document when the one it ran in goes
   * away mid-call, and a page script cut short by a prompt must never run twice.
   */
  async #realm(target: string, gone?: string): Promise<string> {
    const known = this.hub.windowRealm(target);
    if (known && known !== gone) return known;
    const { realms } = await this.#call<{ realms: { realm: string }[] }>('script.getRealms', { context: target, type: 'window' });
    const realm = realms.find((r) => r.realm !== gone)?.realm;
    if (!realm) throw new NoSuchWindowError('the browsing context has no document');
    return realm;
  }

  /** A call failed because its realm is gone: the target's document was replaced (the target itself is still there). */
  #realmGone(e: unknown, target: string): e is BidiError {
    return e instanceof BidiError && /^Realm with id .* not found/.test(e.message) && this.hub.userContextOf(target) !== undefined;
  }

  /**
   * The library compiled once in the gateway's sandbox of a document (realm): its handle and the
   * sandbox's realm. The page's scripts cannot reach what runs there, nor change what it uses.
   */
  #isolatedLibrary(target: string, realm: string, library: string): Promise<{ handle: string; realm: string }> {
    let installed = this.#isolated.get(realm);
    if (!installed) {
      installed = new Map();
      this.#isolated.set(realm, installed);
    }
    let found = installed.get(library);
    if (!found) {
      found = this.channel
        .call<ScriptResult & { realm?: string }>('script.callFunction', {
          functionDeclaration: `function () { return (${library}); }`,
          target: { context: target, sandbox: SANDBOX },
          awaitPromise: false,
          resultOwnership: 'root',
        })
        .then((reply) => {
          if (reply.type !== 'success' || !reply.result?.handle || !reply.realm) throw new Error('the page code could not be installed');
          return { handle: reply.result.handle, realm: reply.realm };
        });
      const current = installed;
      found.catch(() => current.delete(library));
      installed.set(library, found);
    }
    return found;
  }

  /** The library compiled once per document (realm): its BiDi handle. */
  #library(realm: string, library: string): Promise<string> {
    let installed = this.#libraries.get(realm);
    if (!installed) {
      installed = new Map();
      this.#libraries.set(realm, installed);
    }
    let handle = installed.get(library);
    if (!handle) {
      handle = this.channel.call<ScriptResult>('script.callFunction', {
        // With the library, a watch on the document's beforeunload (see afterNextTask).
        functionDeclaration: `function () { const library = (${library}); let at = 0; addEventListener('beforeunload', () => { at = Date.now(); }, true); Object.defineProperty(library, 'wdgateBeforeUnloadAt', { value: () => at }); return library; }`,
        target: { realm },
        awaitPromise: false,
        resultOwnership: 'root',
      }).then((reply) => {
        if (reply.type !== 'success' || !reply.result?.handle) throw new Error('the page code could not be installed');
        return reply.result.handle;
      });
      const current = installed;
      handle.catch(() => current.delete(library));
      installed.set(library, handle);
    }
    return handle;
  }

  /**
   * Once the page has run its next task after input: whether the document's beforeunload fired
   * since `since` (Date.now() before the input). A link click fires it synchronously, opens its
   * prompt and runs the page's tasks in the prompt's nested loop, so this answer can come before
   * Firefox reports the prompt or the navigation: the backend must know one is on its way. Known
   * only where a library is installed (any element command did); false elsewhere.
   */
  async afterNextTask(target: string, since: number): Promise<boolean> {
    const realm = await this.#realm(target);
    const installed = this.#libraries.get(realm)?.values().next().value;
    const handle = installed ? await installed.catch(() => undefined) : undefined;
    const reply = await this.#call<ScriptResult>('script.callFunction', {
      // Date.now() in the page is coarsened (privacy.reduceTimerPrecision): a few ms of slack.
      functionDeclaration: `function (since) { return new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = () => r(typeof this?.wdgateBeforeUnloadAt === 'function' && this.wdgateBeforeUnloadAt() >= since - 5); c.port2.postMessage(0); }); }`,
      arguments: [{ type: 'number', value: since }],
      ...(handle && { this: { handle } }),
      target: { realm },
      awaitPromise: true,
      resultOwnership: 'none',
    });
    return reply.type === 'success' && reply.result?.type === 'boolean' && reply.result.value === true;
  }

  /**
   * Watches the target's document for its next popstate: a history traversal within the document
   * (back to a fragment's entry) fires it and often no BiDi event at all. Installed when this
   * resolves, in the gateway's sandbox (the page's own addEventListener may be anything); the
   * function it gives resolves true once popstate fired, false if the document went away first
   * (its pagehide: a document kept for Back in Firefox's cache never answers a call otherwise).
   */
  async popstate(target: string): Promise<() => Promise<boolean>> {
    const where = { context: target, sandbox: SANDBOX };
    const reply = await this.#call<ScriptResult>('script.callFunction', {
      functionDeclaration: `() => new Promise((r) => {
        window.addEventListener('popstate', () => r(true), { once: true, capture: true });
        window.addEventListener('pagehide', () => r(false), { once: true, capture: true });
      })`,
      target: where,
      awaitPromise: false,
      resultOwnership: 'root',
    });
    const handle = reply.result?.handle;
    if (reply.type !== 'success' || !handle) return async () => false;
    return async () => {
      try {
        const fired = await this.channel.call<ScriptResult>('script.callFunction', { functionDeclaration: '(fired) => fired', arguments: [{ handle }], target: where, awaitPromise: true, resultOwnership: 'none' });
        return fired.type === 'success' && fired.result?.type === 'boolean' && fired.result.value === true;
      } catch {
        return false; // the document went away (its sandbox with it): not a traversal within it
      } finally {
        this.channel.call('script.disown', { handles: [handle], target: where }).catch(() => {});
      }
    };
  }

  /** script.callFunction of `functionDeclaration` in the target's document, `this` the library when given. */
  async call(target: string, functionDeclaration: string, args: Record<string, unknown>[], options: CallOptions = {}): Promise<ScriptResult> {
    if (options.isolated) return this.#callIsolated(target, functionDeclaration, args, options.library);
    let gone: string | undefined;
    for (let attempt = 0; ; attempt++) {
      const realm = await this.#realm(target, gone);
      let self: { handle: string } | undefined;
      try {
        if (options.library) self = { handle: await this.#library(realm, options.library) };
      } catch (e) {
        // The document went away before the library was in it (a navigation): nothing of the
        // call ran, so it runs in the next document, once.
        if (attempt === 0 && this.#realmGone(e, target)) {
          gone = realm;
          continue;
        }
        throw this.classify(e);
      }
      try {
        return await this.channel.call<ScriptResult>('script.callFunction', {
          functionDeclaration,
          arguments: args,
          ...(self && { this: self }),
          target: { realm },
          awaitPromise: true,
          resultOwnership: 'none',
          ...(options.userActivation && { userActivation: true }),
        });
      } catch (e) {
        // The library's handle was gone before the call (it never ran): installed again, once.
        if (attempt === 0 && e instanceof BidiError && e.error === 'no such handle') {
          this.#libraries.delete(realm);
          continue;
        }
        // The document went away, before or during the call (Firefox cannot say which): the
        // W3C layer tries again only what may run twice.
        if (this.#realmGone(e, target)) throw new Error(`Execution context was destroyed: ${e.message}`);
        throw this.classify(e);
      }
    }
  }

  /**
   * script.callFunction in the gateway's sandbox of the target's current document, `this` the
   * library there when given. What runs there reads the page (a snapshot) and may run again in
   * the next document when the one it ran in goes away mid-call: harmless for a read.
   */
  async #callIsolated(target: string, functionDeclaration: string, args: Record<string, unknown>[], library: string | undefined): Promise<ScriptResult> {
    for (let attempt = 0; ; attempt++) {
      const realm = await this.#realm(target);
      try {
        const installed = library ? await this.#isolatedLibrary(target, realm, library) : undefined;
        return await this.channel.call<ScriptResult>('script.callFunction', {
          functionDeclaration,
          arguments: args,
          ...(installed && { this: { handle: installed.handle } }),
          target: installed ? { realm: installed.realm } : { context: target, sandbox: SANDBOX },
          awaitPromise: true,
          resultOwnership: 'none',
        });
      } catch (e) {
        // The sandbox (or its document) went away before the call: installed again, once.
        if (attempt === 0 && e instanceof BidiError && (e.error === 'no such handle' || /^Realm with id .* not found/.test(e.message))) {
          this.#isolated.delete(realm);
          continue;
        }
        throw this.classify(e);
      }
    }
  }
}

/** A page exception's message: the exception's own when it is an Error. */
export function exceptionText(reply: ScriptResult): string {
  return String(reply.exceptionDetails?.text ?? 'the script threw').split('\n')[0]!;
}

/** A BiDi script.StackTrace as a stack's text, one frame a line (as Firefox's Error.stack writes them). */
export function stackTraceText(trace: unknown): string | undefined {
  const frames = (trace as { callFrames?: { functionName?: string; url?: string; lineNumber?: number; columnNumber?: number }[] } | undefined)?.callFrames;
  if (!frames?.length) return undefined;
  // BiDi's line and column numbers are 0-based; a stack's are 1-based.
  return frames.map((f) => `${f.functionName ?? ''}@${f.url ?? ''}:${(f.lineNumber ?? 0) + 1}:${(f.columnNumber ?? 0) + 1}`).join('\n');
}
