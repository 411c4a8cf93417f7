// The BiDi part of the benchmark: New Session with webSocketUrl, then script.evaluate,
// browsingContext.navigate and browsingContext.captureScreenshot over the session's socket,
// against wdgate (chromium-bidi's mapper in the gateway) and chromedriver (its mapper in a tab).
import { BidiSocket } from '../test/helpers/bidi.ts';
import type { Client } from '../test/helpers/client.ts';

export interface BidiSamples {
  newSession: number[];
  samples: Map<string, number[]>;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** `sessions` BiDi sessions one after another, `iterations` of each message in each. */
export async function measureBidi(client: Client, caps: object, pageUrl: string, sessions: number, iterations: number): Promise<BidiSamples> {
  const result: BidiSamples = { newSession: [], samples: new Map() };
  const record = (name: string, ms: number) => {
    const list = result.samples.get(name) ?? [];
    list.push(ms);
    result.samples.set(name, list);
  };
  for (let n = 0; n < sessions; n++) {
    let value: { sessionId: string; capabilities: { webSocketUrl: string } } | undefined;
    result.newSession.push(await time(async () => (value = await client.ok('POST', '/session', { capabilities: { alwaysMatch: { ...caps, webSocketUrl: true } } }))));
    const socket = await BidiSocket.open(value!.capabilities.webSocketUrl);
    try {
      const { contexts } = await socket.call('browsingContext.getTree');
      const context = contexts[0].context as string;
      for (let i = 0; i < iterations; i++) {
        record('browsingContext.navigate', await time(() => socket.call('browsingContext.navigate', { context, url: `${pageUrl}?${n}-${i}`, wait: 'complete' })));
        record('script.evaluate', await time(() => socket.call('script.evaluate', { expression: 'document.title', target: { context }, awaitPromise: false })));
        record('browsingContext.captureScreenshot', await time(() => socket.call('browsingContext.captureScreenshot', { context })));
      }
    } finally {
      socket.close();
      await client.ok('DELETE', `/session/${value!.sessionId}`);
    }
  }
  return result;
}
