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
  const [gw, pages] = await Promise.all([startGateway(args), startPageServer()]);
  return { gw, pages, s: await gw.client.newSession(capabilities) };
}

export async function closeSessionFixture(f: Partial<SessionFixture>): Promise<void> {
  await f.s?.end().catch(() => {});
  const pid = f.gw?.process.pid;
  await f.gw?.stop();
  await f.pages?.close();
  if (pid) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
}
