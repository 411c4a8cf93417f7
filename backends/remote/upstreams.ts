// The upstreams the remote backend forwards to: W3C servers at configured URLs (another wdgate, a
// Selenium Grid, any driver), a chromedriver the gateway starts and shares between sessions, and
// WebKitWebDriver, one per session (it serves one), under an Xvfb of the gateway's own when there
// is no display. Each says how it takes capabilities and where a new session goes.
import { InvalidCapabilityError, type BackendEnvironment } from '../backend.ts';
import { browserSandbox, checkChromeOptions, checkChromiumSwitches, checkMiniBrowserArgs } from '../policy/index.ts';
import { CHROMIUM_ENVIRONMENT, stringArray, vendorObject } from '../shared.ts';
import { launcherFor } from '../parent-death.ts';
import type { OwnedProcess } from '../owned-process.ts';
import { freePort, startDriver, startXvfb } from './processes.ts';

/** Where one new session goes, and what is given back when it ends. */
export interface Place {
  url: string;
  headers: Record<string, string>;
  /** Called once if what serves the session went away on its own. */
  onGone(listener: () => void): void;
  release(): Promise<void>;
}

export interface Upstream {
  readonly name: string;
  /** A driver the gateway starts on its own machine (its commands' files are this machine's). */
  readonly managed: boolean;
  /** The capabilities as this upstream takes them: wdgate's own removed, defaults added. Throws InvalidCapabilityError. */
  capabilities(caps: Record<string, unknown>, env: BackendEnvironment): Record<string, unknown>;
  acquire(env: BackendEnvironment): Promise<Place>;
  /** End what it started (its sessions have ended). */
  close(): Promise<void>;
  killAllNow?(): void;
}

/**
 * Capabilities no upstream gets from wdgate's clients: wdgate's own options, and a BiDi socket
 * (its address would be behind the gateway; BiDi through the gateway is its own issue).
 */
function withoutGatewayCapabilities(caps: Record<string, unknown>): Record<string, unknown> {
  const { ['wdgate:options']: _options, webSocketUrl: _socket, ...rest } = caps;
  return rest;
}

/** A W3C server at a configured URL; `http://user:secret@host` becomes Basic credentials. */
export class UrlUpstream implements Upstream {
  readonly managed = false;
  readonly #url: string;
  readonly #headers: Record<string, string> = {};

  constructor(
    readonly name: string,
    url: string,
  ) {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      this.#headers.Authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
      parsed.username = '';
      parsed.password = '';
    }
    this.#url = parsed.toString().replace(/\/+$/, '');
  }

  capabilities(caps: Record<string, unknown>): Record<string, unknown> {
    return withoutGatewayCapabilities(caps);
  }

  async acquire(): Promise<Place> {
    return { url: this.#url, headers: this.#headers, onGone: () => {}, release: async () => {} };
  }

  async close(): Promise<void> {}
}

export interface ChromedriverOptions {
  driver: string;
  /** Chromium as the native backend has it: default binary, allowed binaries, allowed guarded switches. */
  binary: string;
  allowedBinaries: string[];
  allowedArgs: string[];
  /** The driver ends after this long without a session (ms). */
  idleTimeout: number;
}

/** Switches chromedriver's Chromium needs on these machines (as the native backend's). */
const CHROMIUM_DEFAULT_ARGS = ['--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** One chromedriver the gateway starts at the first session, shares, and ends when idle. */
export class ChromedriverUpstream implements Upstream {
  readonly managed = true;
  readonly name = 'chromedriver';
  readonly #options: ChromedriverOptions;
  #driver: Promise<{ process: OwnedProcess; url: string }> | undefined;
  #sessions = 0;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(options: ChromedriverOptions) {
    this.#options = options;
  }

  capabilities(caps: Record<string, unknown>, env: BackendEnvironment): Record<string, unknown> {
    const goog = vendorObject(caps, 'goog:chromeOptions');
    const wdgate = vendorObject(caps, 'wdgate:options');
    // Attaching to a browser at some address, a crash dump directory, an extension file, a pref
    // that opens files with programs: not something a client may ask of the gateway's machine.
    checkChromeOptions(goog, { loggingPrefs: caps['goog:loggingPrefs'] });
    const binary = goog.binary ?? wdgate.binary ?? this.#options.binary;
    if (typeof binary !== 'string') throw new InvalidCapabilityError('the browser binary must be a string');
    if (binary !== this.#options.binary && !this.#options.allowedBinaries.includes(binary)) {
      throw new InvalidCapabilityError(`browser binary ${JSON.stringify(binary)} is not allowed (allowed: ${this.#options.allowedBinaries.join(', ')})`);
    }
    // Checked and in the one spelling (chromedriver passes them on to Chromium's parser).
    const args = [
      ...checkChromiumSwitches(stringArray(goog.args, 'goog:chromeOptions.args'), 'goog:chromeOptions.args', this.#options.allowedArgs),
      ...checkChromiumSwitches(stringArray(wdgate.args, 'wdgate:options.args'), 'wdgate:options.args', this.#options.allowedArgs),
    ];
    for (const arg of CHROMIUM_DEFAULT_ARGS) if (!args.includes(arg)) args.push(arg);
    if (!browserSandbox()) args.push('--no-sandbox');
    if ((env.headless || !env.hasDisplay) && !args.some((a) => /^--headless(=|$)/.test(a))) args.push('--headless=new');
    if (!args.some((a) => a.startsWith('--window-size='))) args.push('--window-size=1280,800');
    const out = withoutGatewayCapabilities(caps);
    // chromedriver knows its browser as "chrome" only.
    if (out.browserName === 'chromium') out.browserName = 'chrome';
    // The browser through its launcher: it dies with chromedriver, which dies with the gateway.
    return { ...out, 'goog:chromeOptions': { ...goog, binary: launcherFor(binary), args } };
  }

  async acquire(env: BackendEnvironment): Promise<Place> {
    clearTimeout(this.#idleTimer);
    this.#sessions++;
    let driver;
    try {
      driver = await (this.#driver ??= this.#start(env.tempDir));
    } catch (e) {
      this.#sessions--;
      throw e;
    }
    let released = false;
    return {
      url: driver.url,
      headers: {},
      onGone: (listener) => driver.process.onExit(listener),
      release: async () => {
        if (released) return;
        released = true;
        if (--this.#sessions > 0) return;
        this.#idleTimer = setTimeout(() => void this.#stop(), this.#options.idleTimeout);
        this.#idleTimer.unref();
      },
    };
  }

  #start(tempDir: string): Promise<{ process: OwnedProcess; url: string }> {
    // Its Chromium inherits its environment: no crash handler (../shared.ts).
    const start = () => startDriver(this.#options.driver, ['--port=0'], { env: { ...process.env, ...CHROMIUM_ENVIRONMENT }, portFromOutput: /started successfully on port (\d+)/, tempDir });
    // chromedriver takes a port for IPv4 and then the same for IPv6 (or the reverse): when the
    // other family's is taken it exits ("bind() failed"). Another port is tried, twice at most.
    const retry = (e: unknown) => (/bind\(\) failed|port not available/i.test(String(e)) ? start() : Promise.reject(e));
    const started = start().catch(retry).catch(retry);
    started.then(
      (d) => d.process.onExit(() => void (this.#driver === started && (this.#driver = undefined))),
      () => void (this.#driver === started && (this.#driver = undefined)),
    );
    return started;
  }

  async #stop(): Promise<void> {
    const driver = this.#driver;
    this.#driver = undefined;
    const d = await driver?.catch(() => undefined);
    await d?.process.stop();
  }

  async close(): Promise<void> {
    clearTimeout(this.#idleTimer);
    await this.#stop();
  }
}

export interface WebKitOptions {
  driver: string;
  /** The only browser it may start (MiniBrowser); `--automation` is always passed. */
  browser: string;
}

/** WebKitWebDriver, one per session, driving WebKitGTK's MiniBrowser. */
export class WebKitUpstream implements Upstream {
  readonly managed = true;
  readonly name = 'webkit';
  readonly #options: WebKitOptions;
  #display: Promise<{ process: OwnedProcess; display: string }> | undefined;
  readonly #drivers = new Set<OwnedProcess>();

  constructor(options: WebKitOptions) {
    this.#options = options;
  }

  capabilities(caps: Record<string, unknown>): Record<string, unknown> {
    const options = vendorObject(caps, 'webkitgtk:browserOptions');
    const binary = options.binary ?? this.#options.browser;
    if (binary !== this.#options.browser) {
      throw new InvalidCapabilityError(`webkitgtk:browserOptions.binary ${JSON.stringify(binary)} is not allowed (allowed: ${this.#options.browser})`);
    }
    const args = checkMiniBrowserArgs(stringArray(options.args, 'webkitgtk:browserOptions.args'), 'webkitgtk:browserOptions.args');
    // WebKit's web process sandbox (bubblewrap), unless the operator turned sandboxes off.
    if (browserSandbox() && !args.includes('--enable-sandbox')) args.push('--enable-sandbox');
    const out = withoutGatewayCapabilities(caps);
    return {
      ...out,
      // WebKitWebDriver knows the browser by its program's name.
      browserName: 'MiniBrowser',
      // MiniBrowser through its launcher: it dies with WebKitWebDriver, which dies with the gateway.
      'webkitgtk:browserOptions': { ...options, binary: launcherFor(binary), args: args.includes('--automation') ? args : ['--automation', ...args] },
    };
  }

  async acquire(env: BackendEnvironment): Promise<Place> {
    const display = env.hasDisplay ? process.env.DISPLAY! : (await (this.#display ??= this.#startDisplay(env.tempDir))).display;
    const start = async () => {
      const port = await freePort();
      return startDriver(this.#options.driver, [`--port=${port}`], { env: { ...process.env, DISPLAY: display }, port, tempDir: env.tempDir });
    };
    // The free port may be taken by someone else before the driver binds it: once more with another.
    const { process: driver, url } = await start().catch(start);
    this.#drivers.add(driver);
    return {
      url,
      headers: {},
      onGone: (listener) => driver.onExit(listener),
      release: async () => {
        this.#drivers.delete(driver);
        await driver.stop();
      },
    };
  }

  #startDisplay(tempDir: string): Promise<{ process: OwnedProcess; display: string }> {
    const started = startXvfb(tempDir);
    started.catch(() => void (this.#display = undefined));
    return started;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#drivers].map((d) => d.stop()));
    const display = await this.#display?.catch(() => undefined);
    this.#display = undefined;
    await display?.process.stop();
  }
}

