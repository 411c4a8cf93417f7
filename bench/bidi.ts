// The BiDi part of the benchmark: New Session with webSocketUrl, then script.evaluate,
// browsingContext.navigate and browsingContext.captureScreenshot over the session's socket,
// against wdgate (chromium-bidi's mapper in the gateway) and chromedriver (its mapper in a tab);
// and on Firefox, wdgate (the process's one BiDi session, multiplexed) against Firefox's own BiDi
// socket with nothing between (what the gateway costs per message).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BidiSocket } from '../test/helpers/bidi.ts';
import type { Client } from '../test/helpers/client.ts';
import { time } from './measure.ts';

export interface BidiSamples {
  newSession: number[];
  samples: Map<string, number[]>;
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
      await messages(socket, contexts[0].context, `${pageUrl}?${n}`, iterations, record);
    } finally {
      socket.close();
      await client.ok('DELETE', `/session/${value!.sessionId}`);
    }
  }
  return result;
}

/**
 * The measured messages, `iterations` of each, in one browsing context: each kind in a row (so
 * that evaluate and screenshot measure the message, not the renderer still busy with a page load).
 */
async function messages(socket: BidiSocket, context: string, pageUrl: string, iterations: number, record: (name: string, ms: number) => void): Promise<void> {
  for (let i = 0; i < iterations; i++) {
    record('browsingContext.navigate', await time(() => socket.call('browsingContext.navigate', { context, url: `${pageUrl}-${i}`, wait: 'complete' })));
  }
  for (let i = 0; i < iterations; i++) {
    record('script.evaluate', await time(() => socket.call('script.evaluate', { expression: 'document.title', target: { context }, awaitPromise: false })));
  }
  for (let i = 0; i < iterations; i++) {
    record('browsingContext.captureScreenshot', await time(() => socket.call('browsingContext.captureScreenshot', { context })));
  }
}

/**
 * The same messages on Firefox's own BiDi socket, nothing between: a firefox-esr started here,
 * then ended. `events`: subscribed first (what a client such as WebdriverIO subscribes to).
 */
export async function measureFirefoxDirect(binary: string, pageUrl: string, iterations: number, events: string[] = []): Promise<BidiSamples> {
  const result: BidiSamples = { newSession: [], samples: new Map() };
  const profile = await mkdtemp(join(tmpdir(), 'wdgate-bench-firefox-'));
  const child = spawn(binary, ['--headless', '--no-remote', '--profile', profile, '--remote-debugging-port=0', 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1', MOZ_HEADLESS_WIDTH: '1280', MOZ_HEADLESS_HEIGHT: '800' },
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        output += chunk;
        const found = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(output);
        if (found) resolve(found[1]!);
      });
      child.once('exit', () => reject(new Error(`${binary} exited: ${output.slice(-300)}`)));
    });
    const socket = await BidiSocket.open(`${url}/session`);
    await socket.call('session.new', { capabilities: {} });
    if (events.length) await socket.call('session.subscribe', { events });
    const { contexts } = await socket.call('browsingContext.getTree');
    await messages(socket, contexts[0].context, `${pageUrl}?direct`, iterations, (name, ms) => {
      const list = result.samples.get(name) ?? [];
      list.push(ms);
      result.samples.set(name, list);
    });
    await socket.call('session.end');
    socket.close();
  } finally {
    child.kill('SIGKILL');
    await exited;
    await rm(profile, { recursive: true, force: true });
  }
  return result;
}
