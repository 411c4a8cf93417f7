// The usual test file setup: one gateway, one loopback page server and one session; at the end
// everything is stopped and the gateway must have left no browser process behind.
import assert from 'node:assert/strict';
import type { Session } from './client.ts';
import { startGateway, type TestGateway } from './gateway.ts';
import { leftoverBrowsers, startPageServer, type PageServer } from './pages.ts';

export interface SessionFixture {
  gw: TestGateway;
  pages: PageServer;
  s: Session;
}

export async function openSessionFixture(args: string[] = [], capabilities: Record<string, unknown> = {}): Promise<SessionFixture> {
  const [gw, pages] = await Promise.allSettled([startGateway(args), startPageServer()]);
  try {
    if (gw.status === 'rejected') throw gw.reason;
    if (pages.status === 'rejected') throw pages.reason;
    return { gw: gw.value, pages: pages.value, s: await gw.value.client.newSession(capabilities) };
  } catch (e) {
    // What started is stopped: a page server or gateway left running keeps the test file from
    // ever ending (a gateway that did not start in time on a busy machine, a browser that did not launch).
    await closeSessionFixture({ gw: gw.status === 'fulfilled' ? gw.value : undefined, pages: pages.status === 'fulfilled' ? pages.value : undefined }).catch(() => {});
    throw e;
  }
}

export async function closeSessionFixture(f: Partial<SessionFixture>): Promise<void> {
  await f.s?.end().catch(() => {});
  const pid = f.gw?.process.pid;
  await f.gw?.stop();
  await f.pages?.close();
  if (pid) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
}
