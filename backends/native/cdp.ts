// Puppeteer's private parts the native backend needs, in one place: the raw CDP session of a
// page and of a frame's target, and the ids CDP uses. Internal API, stable across 24.x releases.
import type { Browser, CDPSession, Connection, Frame, JSHandle, Page, Target } from 'puppeteer-core';

/** The page's own CDP session. */
export function cdp(page: Page): CDPSession {
  return (page as unknown as { _client(): CDPSession })._client();
}

export function frameIdOf(frame: Frame): string {
  return (frame as unknown as { _id: string })._id;
}

/** The CDP session of a frame's target: the page's, or an out-of-process iframe's own. */
export function frameClient(frame: Frame): CDPSession {
  return (frame as unknown as { client: CDPSession }).client;
}

/** The target a CDP session is attached to, once puppeteer has made it (undefined before). */
export function sessionTarget(session: CDPSession): Target | undefined {
  try {
    return (session as unknown as { target(): Target }).target();
  } catch {
    return undefined;
  }
}

/** The session puppeteer itself drives a target through (others may attach to it too: the BiDi mapper, a client's CDP). */
export function ownSessionOf(target: Target): CDPSession | undefined {
  return (target as unknown as { _session(): CDPSession | undefined })._session();
}

/** The session a CDP session was attached under (a frame's: its page's; a page's: its tab's), if any. */
export function parentSessionOf(session: CDPSession): CDPSession | undefined {
  const parent = (session as unknown as { parentSession(): CDPSession | undefined }).parentSession();
  return parent === session ? undefined : parent;
}

/** The browser's CDP connection (every session's, the browser's own included). */
export function connectionOf(browser: Browser): Connection {
  return (browser as unknown as { _connection: Connection })._connection;
}

/** The W3C window handle of a page target: its CDP target id, as chromedriver uses. */
export function handleOf(target: Target): string {
  return (target as unknown as { _targetId: string })._targetId;
}

/** The execution context id of the frame's main world, once its document has one. */
export function mainWorldContextId(frame: Frame): number | undefined {
  const realm = (frame as unknown as { mainRealm(): { context?: { id: number } } }).mainRealm();
  return realm.context?.id;
}

/**
 * The execution context id of the frame's isolated world of the gateway's own (puppeteer's
 * utility world, made in every frame's document before its scripts run), once it has one. The
 * page's scripts cannot reach it, and the BiDi mapper never hears of it (./bidi.ts).
 */
export function isolatedWorldContextId(frame: Frame): number | undefined {
  const realm = (frame as unknown as { isolatedRealm(): { context?: { id: number } } }).isolatedRealm();
  return realm.context?.id;
}

/** The frame's isolated world (puppeteer's realm object): it waits for the world's context. */
export function isolatedRealm(frame: Frame): { evaluateHandle(fn: () => unknown): Promise<JSHandle> } {
  return (frame as unknown as { isolatedRealm(): { evaluateHandle(fn: () => unknown): Promise<JSHandle> } }).isolatedRealm();
}

/**
 * A CDP session of our own on the browser target, beside puppeteer's on the same connection
 * (the BiDi mapper's and a client's `se:cdp` bridge): it and the connection it belongs to.
 */
export async function attachToBrowser(browser: Browser): Promise<{ connection: Connection; session: CDPSession }> {
  const connection = connectionOf(browser);
  const { sessionId } = (await connection.send('Target.attachToBrowserTarget')) as { sessionId: string };
  const session = connection.session(sessionId);
  if (!session) throw new Error('the browser target could not be attached');
  return { connection, session };
}

/** The context a target belongs to, as CDP names it (puppeteer's default context has no id of its own). */
export function browserContextIdOf(target: Target): string | undefined {
  return (target as unknown as { _getTargetInfo(): { browserContextId?: string } })._getTargetInfo().browserContextId;
}

/**
 * Call `hook` with each new target's session just before puppeteer lets the target run (its
 * Runtime.runIfWaitingForDebugger, which a new page waits for before its first request): what the
 * hook sends on that session reaches the browser first, in order. Returns how to stop.
 */
export function beforeTargetRuns(browser: Browser, hook: (session: CDPSession, target: Target) => void): () => void {
  const connection = connectionOf(browser);
  const attached = (session: CDPSession) => {
    const send = session.send.bind(session);
    const wrapped = ((method: string, ...rest: unknown[]) => {
      if (method === 'Runtime.runIfWaitingForDebugger') {
        (session as { send: unknown }).send = send;
        const target = sessionTarget(session);
        if (target) hook(session, target);
      }
      return (send as (method: string, ...rest: unknown[]) => Promise<unknown>)(method, ...rest);
    }) as CDPSession['send'];
    (session as { send: unknown }).send = wrapped;
  };
  connection.on('sessionattached' as never, attached as never);
  return () => connection.off('sessionattached' as never, attached as never);
}
