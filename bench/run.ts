// Side-by-side benchmark: the same W3C command sequence against wdgate and against chromedriver
// (Debian's, driving the same Chromium), in one run, reporting medians and ratios.
// Usage: npm run bench [-- --iterations 50 --sessions 5]
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createNetServer } from 'node:net';
import { parseArgs } from 'node:util';
import { startGateway } from '../test/helpers/gateway.ts';
import { Client, ELEMENT } from '../test/helpers/client.ts';
import { startPageServer } from '../test/helpers/pages.ts';

const { values } = parseArgs({
  options: { iterations: { type: 'string', default: '40' }, sessions: { type: 'string', default: '5' } },
});
const ITERATIONS = Number(values.iterations);
const SESSIONS = Number(values.sessions);

const CHROME_ARGS = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

async function startChromedriver(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn('/usr/bin/chromedriver', [`--port=${port}`], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/status`)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { url, stop: async () => { child.kill('SIGTERM'); await exited; } };
}

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

type Results = Map<string, number[]>;

async function measure(client: Client, pageUrl: string): Promise<Results> {
  const results: Results = new Map();
  const record = async (name: string, fn: () => Promise<unknown>) => {
    const list = results.get(name) ?? [];
    list.push(await time(fn));
    results.set(name, list);
  };
  const caps = { browserName: 'chrome', 'goog:chromeOptions': { binary: '/usr/bin/chromium', args: CHROME_ARGS } };

  for (let i = 0; i < SESSIONS; i++) {
    let id = '';
    await record('new session', async () => {
      id = (await client.ok('POST', '/session', { capabilities: { alwaysMatch: caps } })).sessionId;
    });
    await record('delete session', () => client.ok('DELETE', `/session/${id}`));
  }

  const { sessionId } = await client.ok('POST', '/session', { capabilities: { alwaysMatch: caps } });
  const s = (p: string) => `/session/${sessionId}${p}`;
  // The same window on both sides: screenshot cost grows with the pixels.
  await client.ok('POST', s('/window/rect'), { width: 1280, height: 800 });
  try {
    for (let i = 0; i < ITERATIONS; i++) {
      await record('navigate', () => client.ok('POST', s('/url'), { url: pageUrl }));
      await record('get title', () => client.ok('GET', s('/title')));
      await record('get current url', () => client.ok('GET', s('/url')));
      let el = '';
      await record('find element', async () => {
        el = (await client.ok('POST', s('/element'), { using: 'css selector', value: '#name' }))[ELEMENT];
      });
      await record('find elements (20)', () => client.ok('POST', s('/elements'), { using: 'css selector', value: 'li' }));
      await record('get property', () => client.ok('GET', s(`/element/${el}/property/value`)));
      await record('get text', () => client.ok('GET', s(`/element/${el}/text`)));
      await record('send keys', () => client.ok('POST', s(`/element/${el}/value`), { text: 'abc' }));
      await record('clear', () => client.ok('POST', s(`/element/${el}/clear`), {}));
      const button = (await client.ok('POST', s('/element'), { using: 'css selector', value: '#go' }))[ELEMENT];
      await record('click', () => client.ok('POST', s(`/element/${button}/click`), {}));
      await record('execute sync', () => client.ok('POST', s('/execute/sync'), { script: 'return arguments[0] + 1', args: [i] }));
      await record('screenshot', () => client.ok('GET', s('/screenshot')));
      await record('get cookies', () => client.ok('GET', s('/cookie')));
    }
  } finally {
    await client.ok('DELETE', `/session/${sessionId}`);
  }
  return results;
}

const pages = await startPageServer();
const pageUrl = pages.page(
  `<input id="name" value="x"><button id="go" onclick="this.textContent = Date.now()">go</button><ul>${'<li>item</li>'.repeat(20)}</ul>`,
  'bench',
);
const gateway = await startGateway();
const chromedriver = await startChromedriver();
try {
  const ours = await measure(gateway.client, pageUrl);
  const theirs = await measure(new Client(chromedriver.url), pageUrl);
  console.log(`\nwdgate vs chromedriver ${ITERATIONS} iterations, ${SESSIONS} sessions; median ms (ratio < 1: wdgate faster)\n`);
  console.log('command'.padEnd(22) + 'wdgate'.padStart(10) + 'chromedriver'.padStart(14) + 'ratio'.padStart(9));
  for (const [name, samples] of ours) {
    const a = median(samples);
    const b = median(theirs.get(name) ?? [NaN]);
    console.log(name.padEnd(22) + a.toFixed(2).padStart(10) + b.toFixed(2).padStart(14) + (a / b).toFixed(2).padStart(9));
  }
} finally {
  await gateway.stop();
  await chromedriver.stop();
  await pages.close();
}
