// Side-by-side benchmark: the same W3C commands against wdgate and against chromedriver (Debian's,
// driving the same Chromium) and through wdgate's remote backend to a chromedriver it manages, in
// one run, same window size: cold and warm New Session, Delete
// Session, single commands, then 10 sessions at once (throughput, and the memory of every process
// each side started, as PSS); the cheapest reads again on a settled page, two servers in turn.
// Prints a markdown table and writes it to bench/results.md. Tracing (./trace.ts) runs on a
// gateway of its own and writes bench/results-tracing.md; `--only tracing` runs that part alone.
// Last, sessions under churn (bench/churn.ts): N clients each looping New Session → navigate →
// find → click → Delete Session, wdgate and chromedriver in turn; and across runs at scale (bench/tests.ts).
// Usage: npm run bench [-- --iterations 30 --settled 200 --concurrent 10 --churn-clients 2,6,16 --churn-seconds 60]
//        npm run bench -- --only tracing [--pages small,list,app --sessions 8,32 --rounds 3 --seconds 10 --trace-mode retain-on-failure --cpu-prof DIR]
//        npm run bench -- --only churn   (only the churn rows; written to bench/results-churn.md)
//        npm run bench -- --only tests   (only across runs at scale; its section of bench/results.md replaced)
//        npm run bench -- --only density [--density-sessions 32,64 --density-seconds 20 --density-idle 10 --density-sides wdgate,chromedriver]
//                                        (only the density rows: bench/density.ts; written to bench/results-density.md)
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startGateway, type TestGateway } from '../test/helpers/gateway.ts';
import { Client } from '../test/helpers/client.ts';
import { startPageServer } from '../test/helpers/pages.ts';
import { measureBidi, measureFirefoxDirect } from './bidi.ts';
import { tracingSection, type TracingOptions } from './trace.ts';
import { BENCH_PAGES } from './trace-pages.ts';
import { describeLimits } from './limits.ts';
import { measureTestsScale, testsTable } from './tests.ts';
import { churnTable, measureChurn } from './churn.ts';
import { densityPage, densityTable, measureDensity, type DensityRow } from './density.ts';
import { pssMiB } from './procs.ts';
import { WINDOW, commandMix, inTurn, median, newSession, recorder, settledInTurn, time, type Samples } from './measure.ts';

/** The churn row's client counts when none are given (a run of others adds its table to the results file). */
const CHURN_CLIENTS_DEFAULT = '2,6,16';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '30' },
    settled: { type: 'string', default: '200' },
    concurrent: { type: 'string', default: '10' },
    only: { type: 'string' },
    sessions: { type: 'string', default: '8,32' },
    pages: { type: 'string', default: 'small,list,app' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
    'trace-mode': { type: 'string', default: 'retain-on-failure' },
    'cpu-prof': { type: 'string' },
    'churn-clients': { type: 'string', default: CHURN_CLIENTS_DEFAULT },
    'churn-seconds': { type: 'string', default: '60' },
    'density-sessions': { type: 'string', default: '32,64' },
    'density-seconds': { type: 'string', default: '20' },
    'density-idle': { type: 'string', default: '10' },
    'density-sides': { type: 'string' },
  },
});
const ALONE = ['churn', 'density', 'tests', 'tracing'];

/**
 * A results file as the bench writes it: a whole run replaces it; a run of some of its rows
 * (`part`: which, as its options said) adds its table below the file's, dated (an A/B of one change).
 */
function writeResults(file: string, title: string, command: string, table: string, part?: string | false): void {
  const url = new URL(`./${file}`, import.meta.url);
  const date = new Date().toISOString().slice(0, 10);
  if (part && existsSync(url)) appendFileSync(url, `\n## A run of ${part} (${date})\n\n${table}\n`);
  else writeFileSync(url, `# ${title}\n\nWritten by \`${command}\` (${date}).\n\n${table}\n`);
}
if (values.only !== undefined && !ALONE.includes(values.only)) throw new Error(`--only: one of ${ALONE.join(', ')}, not ${JSON.stringify(values.only)}`);
const CHURN_CLIENTS = values['churn-clients'].split(',').map(Number);
const CHURN_SECONDS = Number(values['churn-seconds']);

const RESULTS = new URL('./results.md', import.meta.url);
const TESTS_HEADING = '## Across runs at scale';
/** The machine the run measures on. */
const machineLine = () =>
  `Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; ${execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim()}.`;
const loadNow = () => `load average ${loadavg().map((l) => l.toFixed(2)).join(', ')} on ${cpus().length} cores`;

/** Across runs at scale, as a section of bench/results.md. */
async function testsSection(): Promise<string> {
  const load = loadNow();
  return `${TESTS_HEADING}\n\n${testsTable(await measureTestsScale(), load).join('\n')}\n`;
}

if (values.only === 'tests') {
  // Run alone: its section of bench/results.md is replaced, the rest kept.
  const section = await testsSection();
  console.log(`\n${section}`);
  const before = readFileSync(RESULTS, 'utf8');
  const at = before.indexOf(TESTS_HEADING);
  writeFileSync(RESULTS, `${(at < 0 ? before : before.slice(0, at)).trimEnd()}\n\n${section}`);
  process.exit(0);
}
const ITERATIONS = Number(values.iterations);
/** Rounds of each read on a settled page, per pair of servers. */
const SETTLED_ROUNDS = Number(values.settled);
/** Cold New Sessions (each a browser launch) per side. */
const COLD_SESSIONS = 3;
const CONCURRENT = Number(values.concurrent);

/** chromedriver's Chromium: headless, the same switches wdgate uses for its own. */
const CHROMEDRIVER_CAPS = {
  browserName: 'chrome',
  'goog:chromeOptions': {
    binary: '/usr/bin/chromium',
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--window-size=${WINDOW.width},${WINDOW.height}`],
  },
};
/** wdgate: what a plain client asks for, so sessions come from the warm pool. */
const WDGATE_CAPS = { browserName: 'chrome' };
/** wdgate's Playwright backend on the same Chromium. */
const PLAYWRIGHT_CAPS = { browserName: 'chrome', 'wdgate:options': { backend: 'playwright' } };
/** wdgate's remote backend: the same chromedriver and Chromium, every command forwarded. */
const PASS_THROUGH_CAPS = { ...CHROMEDRIVER_CAPS, 'wdgate:options': { backend: 'remote' } };

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

interface Server {
  client: Client;
  url: string;
  pid: number;
  /** Resolves when a New Session would be served without preparing anything. */
  ready(): Promise<void>;
  stop(): Promise<unknown>;
}

async function startChromedriver(): Promise<Server> {
  const port = await freePort();
  // A TMPDIR of its own: the Chromiums it starts leave their process-singleton directory there.
  const ownTemp = mkdtempSync(join(tmpdir(), 'wdgate-bench-chromedriver-'));
  const child: ChildProcess = spawn('/usr/bin/chromedriver', [`--port=${port}`], { stdio: 'ignore', env: { ...process.env, TMPDIR: ownTemp } });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (await fetch(`${url}/status`).then((r) => r.ok, () => false)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(ownTemp, { recursive: true, force: true });
  };
  return { client: new Client(url), url, pid: child.pid!, ready: async () => {}, stop };
}

/** `warm`: its default key keeps a context prepared, and New Session is timed once one is. */
const asServer = (gw: TestGateway, warm = true): Server => ({
  client: gw.client,
  url: gw.url,
  pid: gw.process.pid!,
  ready: async () => {
    if (!warm) return;
    for (let i = 0; i < 200 && !((await gw.client.ok('GET', '/status')).pool[0]?.free >= 1); i++) await new Promise((r) => setTimeout(r, 20));
  },
  stop: () => gw.stop(),
});

async function measure(server: Server, caps: object, pageUrl: string, cold?: Server): Promise<{ samples: Samples; concurrent: { perSecond: number; pss: { mib: number; processes: number } } }> {
  const samples: Samples = new Map();
  const record = recorder(samples);
  const { client } = server;

  // New Session: "warm" is a lease when a context is prepared (wdgate says so in /status; a
  // client that runs any command between sessions meets this); "back to back" is a New Session
  // sent as soon as the last Delete answered, before the next context is ready.
  for (let i = 0; i < ITERATIONS; i++) {
    await server.ready();
    let id = '';
    record('new session (warm)', await time(async () => (id = (await client.ok('POST', '/session', { capabilities: { alwaysMatch: caps } })).sessionId)));
    record('delete session', await time(() => client.ok('DELETE', `/session/${id}`)));
  }
  for (let i = 0; i < ITERATIONS; i++) {
    let id = '';
    record('new session (back to back)', await time(async () => (id = (await client.ok('POST', '/session', { capabilities: { alwaysMatch: caps } })).sessionId)));
    await client.ok('DELETE', `/session/${id}`);
  }
  const coldClient = (cold ?? server).client;
  for (let i = 0; i < COLD_SESSIONS; i++) {
    let id = '';
    record('new session (cold)', await time(async () => (id = (await coldClient.ok('POST', '/session', { capabilities: { alwaysMatch: caps } })).sessionId)));
    await coldClient.ok('DELETE', `/session/${id}`);
  }

  const id = await newSession(client, caps);
  try {
    for (let i = 0; i < ITERATIONS; i++) await commandMix(client, id, pageUrl, i, record);
  } finally {
    await client.ok('DELETE', `/session/${id}`);
  }

  // Many sessions at once: each runs the mix; commands per second over all of them.
  const ids = await Promise.all(Array.from({ length: CONCURRENT }, () => newSession(client, caps)));
  try {
    let commands = 0;
    const elapsed = await time(() =>
      Promise.all(
        ids.map(async (sid) => {
          for (let i = 0; i < 5; i++) commands += await commandMix(client, sid, pageUrl, i);
        }),
      ),
    );
    return { samples, concurrent: { perSecond: (commands / elapsed) * 1000, pss: pssMiB(server.pid) } };
  } finally {
    await Promise.all(ids.map((sid) => client.ok('DELETE', `/session/${sid}`)));
  }
}

const TRACING: TracingOptions = {
  iterations: ITERATIONS,
  mode: values['trace-mode']!,
  sessions: values.sessions!.split(',').map(Number),
  rounds: Number(values.rounds),
  seconds: Number(values.seconds),
  cpuProf: values['cpu-prof'],
  log: (line) => console.error(line),
};

const pages = await startPageServer();
const pageUrl = pages.page(
  `<input id="name" value="x"><button id="go" onclick="this.textContent = Date.now()">go</button><ul>${'<li>item</li>'.repeat(20)}</ul>`,
  'bench',
);
/** The tracing bench's pages, as asked (--pages). */
const tracingPages = values.pages!.split(',').map((name) => {
  const page = BENCH_PAGES.find((p) => p.name === name);
  if (!page) throw new Error(`--pages: one or more of ${BENCH_PAGES.map((p) => p.name).join(', ')}, not ${JSON.stringify(name)}`);
  return { page, url: pages.page(page.body, page.title) };
});

/** The tracing section as bench/results-tracing.md. */
async function writeTracing(): Promise<string> {
  const started = loadNow();
  const table = (await tracingSection(tracingPages, TRACING)).join('\n');
  const text =
    `# Tracing benchmark results\n\nWritten by \`npm run bench -- --only tracing\` (${new Date().toISOString().slice(0, 10)}), or by \`npm run bench\`, at ${new Date().toISOString().slice(11, 16)} UTC; ` +
    `${started} at the start. Native Chromium; the traced side is \`wdgate:options.trace\` "${TRACING.mode}", the other "off".\n${table}\n`;
  writeFileSync(new URL('./results-tracing.md', import.meta.url), text);
  return table;
}

/** A pool's unused contexts and browsers end this long after a churn run (the default, 60 s, would make each run wait for it). */
const CHURN_IDLE_TIMEOUT_MS = 10_000;

/**
 * The churn rows: a gateway of its own (default pool but a shorter idle timeout, so that each
 * run starts from the pool's baseline; slots for the most clients; tracing off) and
 * chromedriver, in turn.
 */
async function churnRows(chromedriver: Server): Promise<string[]> {
  const load = loadavg().map((x) => x.toFixed(2)).join(', ');
  const gw = await startGateway([], { config: { maxSessions: Math.max(...CHURN_CLIENTS), logLevel: 'warn', pool: { idleTimeout: CHURN_IDLE_TIMEOUT_MS }, trace: { mode: 'off' } } });
  // Back to the baseline: one browser, minWarm (1) context prepared, nothing else.
  const baseline = async () => {
    for (let i = 0; i < 600; i++) {
      const [key] = (await gw.client.ok('GET', '/status')).pool;
      if (key && key.browsers === 1 && key.free <= 1 && key.preparing === 0 && key.inUse === 0) return;
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  try {
    await asServer(gw).ready();
    const results = await measureChurn(
      { name: 'wdgate', client: gw.client, caps: WDGATE_CAPS, pid: gw.process.pid!, settled: baseline },
      { name: 'chromedriver', client: chromedriver.client, caps: CHROMEDRIVER_CAPS, pid: chromedriver.pid },
      pageUrl,
      CHURN_CLIENTS,
      CHURN_SECONDS,
    );
    return churnTable(results, CHURN_SECONDS, `${load} (1, 5, 15 min); after it: ${loadNow()}. ${machineLine()}`);
  } finally {
    await gw.stop();
  }
}

const DENSITY_SESSIONS = values['density-sessions'].split(',').map(Number);
const DENSITY_SECONDS = Number(values['density-seconds']);
const DENSITY_IDLE = Number(values['density-idle']);
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
/** Firefox prefs against processes started ahead of pages or kept without one. */
const FIREFOX_LEAN_PREFS = { 'dom.ipc.processPrelaunch.enabled': false, 'dom.ipc.keepProcessesAlive.web': 0 };
/** Chromium switches a variant's sessions pass (admitted by its gateway's native.allowedArgs). */
const withArgs = (args: string[]) => ({
  caps: { browserName: 'chrome', 'goog:chromeOptions': { args } },
  config: { pool: { minWarm: 0 }, native: { binary: '/usr/bin/chromium', allowedArgs: [...new Set(args.map((a) => a.split('=')[0]!))] } },
});
/**
 * The density sides: wdgate as configured by default, then one change each (A/B in one run),
 * chromedriver, and Firefox. A variant that passes switches does so in its capabilities (a key
 * of its own: its gateway keeps nothing warm, so that no default browser is counted beside it).
 */
const DENSITY_SIDES: { name: string; what: string; caps: object; config?: Record<string, unknown> }[] = [
  { name: 'wdgate', what: 'defaults', caps: WDGATE_CAPS },
  { name: 'wdgate, args given', what: 'switches in capabilities (a key of its own; nothing warm): none (the variants below add one each)', ...withArgs(['--lang=en-US']) },
  { name: 'wdgate, headless shell', what: `native.binary ${HEADLESS_SHELL}`, caps: WDGATE_CAPS, config: { native: { binary: HEADLESS_SHELL, allowedBinaries: [HEADLESS_SHELL] } } },
  { name: 'wdgate, 8 a browser', what: 'pool.sessionsPerBrowser 8 (the default before 2026-11-29)', caps: WDGATE_CAPS, config: { pool: { sessionsPerBrowser: 8 } } },
  { name: 'wdgate, 32 a browser', what: 'pool.sessionsPerBrowser 32', caps: WDGATE_CAPS, config: { pool: { sessionsPerBrowser: 32 } } },
  { name: 'wdgate, V8 optimize-for-size', what: '`--js-flags=--optimize-for-size`', ...withArgs(['--lang=en-US', '--js-flags=--optimize-for-size']) },
  { name: 'wdgate, V8 semi-space 1 MB', what: '`--js-flags=--max-semi-space-size=1`', ...withArgs(['--lang=en-US', '--js-flags=--max-semi-space-size=1']) },
  { name: 'wdgate, GPU in the browser process', what: '`--in-process-gpu` (the GPU thread in the browser process: one process fewer a browser)', ...withArgs(['--lang=en-US', '--in-process-gpu']) },
  { name: 'wdgate, HTTP cache 1 MB', what: '`--disk-cache-size=1048576`', ...withArgs(['--lang=en-US', '--disk-cache-size=1048576']) },
  { name: 'wdgate, Firefox', what: 'browserName firefox (Firefox ESR; nothing warm: no Chromium beside it)', caps: { browserName: 'firefox' }, config: { pool: { minWarm: 0 } } },
  {
    name: 'wdgate, Firefox, no prelaunch',
    what: 'Firefox with `dom.ipc.processPrelaunch.enabled` false and `dom.ipc.keepProcessesAlive.web` 0 (no content process started ahead or kept without a page)',
    caps: { browserName: 'firefox', 'moz:firefoxOptions': { prefs: FIREFOX_LEAN_PREFS } },
    config: { pool: { minWarm: 0 }, native: { binary: '/usr/bin/chromium', allowedFirefoxPrefs: Object.keys(FIREFOX_LEAN_PREFS) } },
  },
];

/** The density rows: each side's gateway in turn (one at a time: memory is what is measured), then chromedriver. */
async function densityRows(chromedriver: Server): Promise<string[]> {
  const loadBefore = loadNow();
  const page = pages.page(densityPage(), 'density');
  const only = values['density-sides']?.split(',');
  const rows: DensityRow[] = [];
  const most = Math.max(...DENSITY_SESSIONS);
  for (const side of DENSITY_SIDES.filter((s) => !only || only.some((o) => s.name === o || (!DENSITY_SIDES.some((d) => d.name === o) && s.name.includes(o))))) {
    // The pool's idle timeout short, so that the contexts it prepared for the rate the sessions
    // were opened at go before the sessions are measured (a steady state of N sessions).
    const config = { maxSessions: most, logLevel: 'warn', ...side.config, pool: { idleTimeout: CHURN_IDLE_TIMEOUT_MS, ...(side.config?.pool as object) } };
    const gw = await startGateway([], { config });
    const settled = async () => {
      for (let i = 0; i < 240; i++) {
        const keys: { free: number; preparing: number }[] = (await gw.client.ok('GET', '/status')).pool;
        if (keys.every((k) => k.free <= 1 && k.preparing === 0)) return;
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    try {
      if (side.caps === WDGATE_CAPS) await asServer(gw).ready();
      rows.push({ name: side.name, what: side.what, points: await measureDensity({ name: side.name, client: gw.client, caps: side.caps, pid: gw.process.pid!, settled }, page, DENSITY_SESSIONS, DENSITY_SECONDS, DENSITY_IDLE) });
    } finally {
      await gw.stop();
    }
  }
  const theirs: DensityRow = {
    name: 'chromedriver',
    what: 'a browser a session; `--no-sandbox` (as root it starts no other way)',
    points: await measureDensity({ name: 'chromedriver', client: chromedriver.client, caps: CHROMEDRIVER_CAPS, pid: chromedriver.pid, cdp: true }, page, DENSITY_SESSIONS, DENSITY_SECONDS, DENSITY_IDLE),
  };
  return densityTable(rows, theirs, DENSITY_SECONDS, DENSITY_IDLE, `${machineLine()} ${loadBefore} before the run, ${loadNow()} after (1, 5, 15 min; the machine is shared).`);
}

if (values.only === 'density') {
  const chromedriver = await startChromedriver();
  try {
    const table = (await densityRows(chromedriver)).join('\n');
    console.log(`\n${table}\n`);
    writeResults('results-density.md', 'Density benchmark results', 'npm run bench -- --only density', table, values['density-sides'] && `some sides: \`--density-sides ${values['density-sides']}\``);
  } finally {
    await chromedriver.stop();
    await pages.close();
  }
  process.exit(0);
}

if (values.only === 'churn') {
  const chromedriver = await startChromedriver();
  try {
    const table = (await churnRows(chromedriver)).join('\n');
    console.log(`\n${table}\n`);
    const some = values['churn-clients'] !== CHURN_CLIENTS_DEFAULT;
    writeResults('results-churn.md', 'Churn benchmark results', 'npm run bench -- --only churn', table.trimStart(), some ? `some client counts: \`--churn-clients ${values['churn-clients']}\`` : undefined);
  } finally {
    await chromedriver.stop();
    await pages.close();
  }
  process.exit(0);
}
if (values.only === 'tracing') {
  try {
    console.log(`\n${await writeTracing()}\n`);
  } finally {
    await pages.close();
  }
  process.exit(0);
}

// A gateway with nothing warm and a browser per session measures wdgate's cold New Session (for
// native, and for Playwright). The Playwright backend's gateway routes plain capabilities to it,
// so its default key is warm as the native one is. The relay, with nothing warm, measures the
// pass-through to chromedriver, and also knows the benchmark's own chromedriver as an upstream
// (its cost, interleaved). Each has memory of its own.
const chromedriver = await startChromedriver();
const unwarmed = { maxSessions: CONCURRENT, logLevel: 'warn', pool: { minWarm: 0, maxBrowsers: 4, sessionsPerBrowser: 8, idleTimeout: 60000 } };
const toPlaywright = [{ match: {}, backend: 'playwright' }];
/** Each gateway's settings, said in the results (bench/limits.ts). */
const CONFIGS = {
  wdgate: { maxSessions: CONCURRENT, logLevel: 'warn' },
  'wdgate, cold': { logLevel: 'warn', pool: { minWarm: 0, sessionsPerBrowser: 1 } },
  'wdgate → chromedriver': { ...unwarmed, remote: { upstreams: { bench: chromedriver.url } } },
  playwright: { maxSessions: CONCURRENT, logLevel: 'warn', routes: toPlaywright },
  'playwright, cold': { logLevel: 'warn', routes: toPlaywright, pool: { minWarm: 0, sessionsPerBrowser: 1 } },
};
const [gateway, coldGateway, relay, playwrightGateway, coldPlaywright] = await Promise.all([
  startGateway([], { config: CONFIGS.wdgate }).then((gw) => asServer(gw)),
  startGateway([], { config: CONFIGS['wdgate, cold'] }).then((gw) => asServer(gw)),
  startGateway([], { config: CONFIGS['wdgate → chromedriver'] }).then((gw) => asServer(gw, false)),
  startGateway([], { config: CONFIGS.playwright }).then((gw) => asServer(gw)),
  startGateway([], { config: CONFIGS['playwright, cold'] }).then((gw) => asServer(gw)),
]);
try {
  const ours = await measure(gateway, WDGATE_CAPS, pageUrl, coldGateway);
  const theirs = await measure(chromedriver, CHROMEDRIVER_CAPS, pageUrl);
  const forwarded = await measure(relay, PASS_THROUGH_CAPS, pageUrl);
  const passThrough = [{ client: chromedriver.client, caps: CHROMEDRIVER_CAPS }, { client: relay.client, caps: { ...CHROMEDRIVER_CAPS, 'wdgate:options': { backend: 'remote', upstream: 'bench' } } }] as const;
  const [direct, relayed] = await inTurn(...passThrough, pageUrl, ITERATIONS);
  const playwright = await measure(playwrightGateway, PLAYWRIGHT_CAPS, pageUrl, coldPlaywright);
  const backends = [{ client: gateway.client, caps: WDGATE_CAPS, ready: gateway.ready }, { client: playwrightGateway.client, caps: PLAYWRIGHT_CAPS, ready: playwrightGateway.ready }] as const;
  const [nativeInTurn, playwrightInTurn] = await inTurn(...backends, pageUrl, ITERATIONS);
  const [directSettled, relayedSettled] = await settledInTurn(...passThrough, pageUrl, SETTLED_ROUNDS);
  const [nativeSettled, playwrightSettled] = await settledInTurn(...backends, pageUrl, SETTLED_ROUNDS);
  const browser = execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim();
  const lines = [
    `wdgate vs chromedriver, one run: medians in ms over ${ITERATIONS} iterations (cold New Session: ${COLD_SESSIONS}; ratio < 1: wdgate faster).`,
    '',
    `Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; ` +
      `${readFileSync('/proc/version', 'utf8').split(' ').slice(0, 3).join(' ')}; ${browser}; window ${WINDOW.width}×${WINDOW.height}, headless.`,
    '',
    'wdgate: the native backend. wdgate → chromedriver: the remote backend forwarding to a chromedriver it manages. "added": what',
    'the pass-through adds to chromedriver alone (target: at most 5 % or 0.3 ms, whichever is larger), measured apart: one',
    'chromedriver driven directly and through the remote backend, command by command in turn (back to back and cold New Session:',
    'the two columns\' difference, marked ~). playwright: the Playwright backend on the same Chromium (warm and cold as native:',
    'its gateway routes plain capabilities to it), and its ratio to native (target: within 1.5×), measured apart the same way:',
    'the native and the Playwright gateway in turn (back to back and cold New Session: the two columns\' ratio, marked ~).',
    '',
    'The limits each gateway ran with (in bold what the benchmark changed from `config/default.json`):',
    '',
    ...Object.entries(CONFIGS).map(([name, config]) => `- ${name}: ${describeLimits(config)}`),
    '',
    '| command | wdgate | chromedriver | ratio | wdgate → chromedriver | added | playwright | ÷ native |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [name, samples] of ours.samples) {
    const a = median(samples);
    const b = median(theirs.samples.get(name) ?? [NaN]);
    const f = median(forwarded.samples.get(name) ?? [NaN]);
    const p = median(playwright.samples.get(name) ?? [NaN]);
    const interleaved = direct.has(name);
    const [plain, through] = interleaved ? [median(direct.get(name)!), median(relayed.get(name)!)] : [b, f];
    const added = `${interleaved ? '' : '~'}${(through - plain).toFixed(2)} ms (${(((through - plain) / plain) * 100).toFixed(1)} %)`;
    const [n, q] = nativeInTurn.has(name) ? [median(nativeInTurn.get(name)!), median(playwrightInTurn.get(name)!)] : [a, p];
    const ratio = `${nativeInTurn.has(name) ? '' : '~'}${(q / n).toFixed(2)}`;
    lines.push(`| ${name} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(a / b).toFixed(2)} | ${f.toFixed(2)} | ${added} | ${p.toFixed(2)} | ${ratio} |`);
  }
  const [o, t, r, w] = [ours.concurrent, theirs.concurrent, forwarded.concurrent, playwright.concurrent];
  lines.push(
    `| ${CONCURRENT} sessions at once: commands per second | ${o.perSecond.toFixed(0)} | ${t.perSecond.toFixed(0)} | ${(o.perSecond / t.perSecond).toFixed(2)} (throughput) | ${r.perSecond.toFixed(0)} | | ${w.perSecond.toFixed(0)} | |`,
    `| ${CONCURRENT} sessions open: PSS of every process, MiB | ${o.pss.mib.toFixed(0)} (${o.pss.processes} processes) | ${t.pss.mib.toFixed(0)} (${t.pss.processes} processes) | ${(o.pss.mib / t.pss.mib).toFixed(2)} | ${r.pss.mib.toFixed(0)} (${r.pss.processes} processes) | | ${w.pss.mib.toFixed(0)} (${w.pss.processes} processes) | |`,
  );
  lines.push(
    '',
    `The cheapest reads on a settled page (loaded, nothing changing): each read on one side, then on the other, ${SETTLED_ROUNDS} rounds; ` +
      "medians in ms. Here the pass-through's and Playwright's cost per command is not buried under the browser's own spread (the read " +
      'right after a navigation or a click waits on a busy renderer, milliseconds that differ from one pass of the mix to the next).',
    '',
    '| read, settled page | chromedriver | through wdgate | added | wdgate | playwright | ÷ native |',
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const [name, samples] of directSettled) {
    const [plain, through, n, q] = [samples, relayedSettled.get(name)!, nativeSettled.get(name)!, playwrightSettled.get(name)!].map(median) as [number, number, number, number];
    lines.push(`| ${name} | ${plain.toFixed(2)} | ${through.toFixed(2)} | ${(through - plain).toFixed(2)} ms (${(((through - plain) / plain) * 100).toFixed(1)} %) | ${n.toFixed(2)} | ${q.toFixed(2)} | ${(q / n).toFixed(2)} |`);
  }
  lines.push('', 'Tracing: see [results-tracing.md](results-tracing.md).');
  await writeTracing();
  // BiDi: each side's New Session with webSocketUrl is a browser of its own (wdgate: the mapper
  // needs the whole browser; chromedriver: its mapper tab), so it is a launch on both.
  const bidiSessions = 3;
  const ourBidi = await measureBidi(gateway.client, WDGATE_CAPS, pageUrl, bidiSessions, ITERATIONS);
  const theirBidi = await measureBidi(chromedriver.client, CHROMEDRIVER_CAPS, pageUrl, bidiSessions, ITERATIONS);
  lines.push(
    '',
    `WebDriver BiDi over the session's socket: medians in ms (New Session with webSocketUrl: ${bidiSessions} sessions; messages: ${ITERATIONS} each per session).`,
    '',
    '| BiDi | wdgate | chromedriver | ratio |',
    '|---|---:|---:|---:|',
    `| New Session with webSocketUrl | ${median(ourBidi.newSession).toFixed(1)} | ${median(theirBidi.newSession).toFixed(1)} | ${(median(ourBidi.newSession) / median(theirBidi.newSession)).toFixed(2)} |`,
  );
  for (const [name, samples] of ourBidi.samples) {
    const a = median(samples);
    const b = median(theirBidi.samples.get(name) ?? [NaN]);
    lines.push(`| ${name} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(a / b).toFixed(2)} |`);
  }
  // Firefox: sessions share the process (a user context each), so a warm New Session leases a
  // prepared context; the messages against Firefox's own socket show the gateway's cost.
  const ourFirefox = await measureBidi(gateway.client, { browserName: 'firefox' }, pageUrl, bidiSessions + 1, ITERATIONS);
  ourFirefox.newSession.shift(); // the first is the process's launch
  const directFirefox = await measureFirefoxDirect('/usr/bin/firefox-esr', pageUrl, ITERATIONS);
  const subscribedFirefox = await measureFirefoxDirect('/usr/bin/firefox-esr', pageUrl, ITERATIONS, ['browsingContext', 'log.entryAdded', 'script.realmCreated', 'script.realmDestroyed']);
  lines.push(
    '',
    `WebDriver BiDi on Firefox ESR: wdgate (the native backend; New Session warm, ${bidiSessions} sessions) against Firefox's own BiDi socket directly; "added" is the gateway's cost per message (target: 0.2 ms p50). Last column: Firefox directly again, subscribed to the events a client such as WebdriverIO subscribes to (browsingContext, log, realms).`,
    '',
    '| BiDi on Firefox | wdgate | Firefox directly | added | directly, subscribed |',
    '|---|---:|---:|---:|---:|',
    `| New Session with webSocketUrl (warm) | ${median(ourFirefox.newSession).toFixed(1)} | | | |`,
  );
  for (const [name, samples] of ourFirefox.samples) {
    const a = median(samples);
    const b = median(directFirefox.samples.get(name) ?? [NaN]);
    const c = median(subscribedFirefox.samples.get(name) ?? [NaN]);
    lines.push(`| ${name} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(a - b).toFixed(2)} ms | ${c.toFixed(2)} |`);
  }
  // Last: they leave the machine busiest.
  lines.push(...(await churnRows(chromedriver)));
  const density = (await densityRows(chromedriver)).join('\n');
  writeFileSync(new URL('./results-density.md', import.meta.url), `# Density benchmark results\n\nWritten by \`npm run bench\` (${new Date().toISOString().slice(0, 10)}).\n\n${density}\n`);
  const table = lines.join('\n');
  console.log(`\n${table}\n`);
  const tests = await testsSection();
  console.log(`\n${tests}`);
  writeFileSync(RESULTS, `# Benchmark results\n\nWritten by \`npm run bench\` (${new Date().toISOString().slice(0, 10)}).\n\n${table}\n\n${tests}`);
} finally {
  await Promise.all([gateway.stop(), coldGateway.stop(), relay.stop(), playwrightGateway.stop(), coldPlaywright.stop(), chromedriver.stop()]);
  await pages.close();
}
