// Chrome DevTools Protocol for a client (Selenium's `se:cdp`), over the session's own browser:
// a CDP session of its own on the browser target (Target.attachToBrowserTarget), beside
// puppeteer's on the same pipe. The client's messages go to that session, or to a target session
// it attached through it (flat protocol, `sessionId`); answers and events come back the same way.
// CDP reaches every target of the browser: offered only to a session that has it to itself.
import type { Browser, CDPSession } from 'puppeteer-core';
import { attachToBrowser } from './cdp.ts';
import type { CdpEndpoint, CdpMessage } from '../backend.ts';

export async function openCdpBridge(browser: Browser): Promise<CdpEndpoint> {
  const { connection, session: root } = await attachToBrowser(browser);
  const listeners: ((message: CdpMessage) => void)[] = [];
  const emit = (message: CdpMessage) => {
    for (const listener of listeners) listener(message);
  };
  /** Target sessions the client attached (through the root), by their id. */
  const sessions = new Map<string, { session: CDPSession; forward: (method: unknown, params: unknown) => void }>();
  const follow = (id: string) => {
    const session = connection.session(id);
    if (!session || sessions.has(id)) return;
    const forward = (method: unknown, params: unknown) => emit({ method: method as string, params: params as Record<string, unknown>, sessionId: id });
    session.on('*', forward as never);
    sessions.set(id, { session, forward });
  };
  const forgetAll = () => {
    for (const { session, forward } of sessions.values()) session.off('*', forward as never);
    sessions.clear();
  };
  const onRoot = (method: unknown, params: unknown) => {
    const p = params as Record<string, unknown>;
    if (method === 'Target.attachedToTarget') follow(p.sessionId as string);
    if (method === 'Target.detachedFromTarget') sessions.delete(p.sessionId as string);
    emit({ method: method as string, params: p });
  };
  root.on('*', onRoot as never);
  let closed = false;
  return {
    send({ id, method, params, sessionId: target }) {
      const session = target === undefined ? root : sessions.get(target)?.session;
      const answer = (reply: Omit<CdpMessage, 'id'>) => !closed && emit({ id, ...reply, ...(target !== undefined && { sessionId: target }) });
      if (!session) return void answer({ error: { code: -32001, message: `Session with given id not found: ${target}` } });
      session.send(method as never, (params ?? {}) as never).then(
        (result) => {
          if (method === 'Target.attachToTarget' && typeof (result as { sessionId?: string }).sessionId === 'string') follow((result as { sessionId: string }).sessionId);
          answer({ result: result as Record<string, unknown> });
        },
        (e: Error) => answer({ error: { code: -32000, message: e.message.replace(/^Protocol error \([^)]*\): /, '') } }),
      );
    },
    onMessage(listener) {
      listeners.push(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      root.off('*', onRoot as never);
      forgetAll();
      await root.detach().catch(() => {});
    },
  };
}
