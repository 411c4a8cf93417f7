// A Chromium process the native backend started: launched over the CDP pipe with a fresh
// profile, owned by the pool, shared by sessions through isolated browser contexts. Ending it
// ends its whole process group, waits for it and removes its profile.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { LaunchError, type BrowserProcess, type DrivenBrowser, type NewContextOptions } from '../backend.ts';
import { NativeContext } from './context.ts';
import { PROFILE_PREFIX, register, removeProfileDir, singletonSocketDir, unregister } from './processes.ts';
import { CHROMIUM_ENVIRONMENT, groupEnded, killGroup } from '../shared.ts';
import { launcherFor } from '../parent-death.ts';
import { giveToBrowsers, nestPrefs } from '../policy/index.ts';
import type { ZipEntry } from '../zip.ts';

export interface ChromiumLaunch {
  binary: string;
  args: string[];
  acceptInsecureCerts: boolean;
  tempDir: string;
  timeZone?: string;
  /** Switches of puppeteer's own defaults to leave out (goog:chromeOptions.excludeSwitches: names). */
  excludeSwitches?: string[];
  /** Profile prefs and Local State (dotted names → values), written into the profile before launch. */
  prefs?: [string, unknown][];
  localState?: [string, unknown][];
  /** Unpacked extensions to load. */
  extensions?: ZipEntry[][];
  /** Its sessions speak WebDriver BiDi: each context's mapper is started with the context. */
  bidi?: { acceptInsecureCerts: boolean };
}

export class ChromiumProcess implements BrowserProcess {
  readonly browserName = 'chrome';
  readonly browserVersion: string;
  readonly #browser: Browser;
  readonly #end: () => Promise<void>;
  readonly #timeZone: string | undefined;
  #closing: Promise<void> | undefined;
  readonly #headless: boolean;
  /** The default context was handed out (to the one session of a browser) or may no longer be. */
  #adopted = false;

  readonly #bidi: ChromiumLaunch['bidi'];

  private constructor(browser: Browser, version: string, end: () => Promise<void>, timeZone: string | undefined, headless: boolean, bidi: ChromiumLaunch['bidi']) {
    this.#browser = browser;
    this.#bidi = bidi;
    this.#headless = headless;
    this.browserVersion = version;
    this.#end = end;
    this.#timeZone = timeZone;
  }

  static async launch(options: ChromiumLaunch): Promise<ChromiumProcess> {
    const profileDir = await mkdtemp(join(options.tempDir, `${PROFILE_PREFIX}${process.pid}-`));
    const removeProfile = () => removeProfileDir(profileDir);
    let browser: Browser;
    try {
      const args = [...options.args, ...(await seedProfile(profileDir, options))];
      // Loaded with the first browser, not at start: the gateway listens sooner, and a gateway
      // serving only other backends never holds it.
      const { default: puppeteer } = await import('puppeteer-core');
      const excluded = new Set(options.excludeSwitches ?? []);
      if (options.extensions?.length) excluded.add('disable-extensions');
      // puppeteer's own defaults that the session left out, as puppeteer spells them.
      const ignoreDefaultArgs = excluded.size ? puppeteer.defaultArgs({ headless: false, userDataDir: profileDir }).filter((a) => excluded.has(a.replace(/^--?/, '').split('=')[0]!)) : undefined;
      browser = await puppeteer.launch({
        ...(ignoreDefaultArgs && { ignoreDefaultArgs }),
        // Through its launcher: the browser dies with the gateway, whatever ends it.
        executablePath: launcherFor(options.binary),
        pipe: true,
        headless: false, // the switch is in args: puppeteer's own adds flags we do not want
        userDataDir: profileDir,
        defaultViewport: null,
        acceptInsecureCerts: options.acceptInsecureCerts,
        args,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        env: { ...process.env, ...CHROMIUM_ENVIRONMENT },
        timeout: 30_000,
        protocolTimeout: 24 * 3600_000, // W3C timeouts are enforced above us, per command
      });
    } catch (e) {
      await removeProfile();
      throw new LaunchError(`could not start ${options.binary}: ${(e as Error).message}`);
    }
    const child = browser.process();
    const pid = child?.pid;
    const socketDir = await singletonSocketDir(profileDir);
    if (pid) register(pid, profileDir, socketDir);
    const exited = child && child.exitCode === null ? new Promise<void>((r) => child.once('exit', () => r())) : Promise.resolve();
    const end = async () => {
      // Ask nicely, then make sure: the browser and its whole group are gone and reaped.
      await Promise.race([browser.close().catch(() => {}), delay(3000)]);
      // The browser's helpers (zygote, renderers) share its process group: end them all.
      if (pid) killGroup(pid);
      await Promise.race([exited, delay(3000)]);
      if (pid) await groupEnded(pid);
      if (pid) unregister(pid);
      await removeProfileDir(profileDir, socketDir);
    };
    try {
      const version = (await browser.version()).replace(/^[^/]*\//, '');
      return new ChromiumProcess(browser, version, end, options.timeZone, options.args.some((a) => /^--headless(=|$)/.test(a)), options.bidi);
    } catch (e) {
      await end();
      throw new LaunchError(`${options.binary} started but could not be driven: ${(e as Error).message}`);
    }
  }

  get connected(): boolean {
    return this.#closing === undefined && this.#browser.connected;
  }

  async newContext(options: NewContextOptions = {}): Promise<DrivenBrowser> {
    // The default context is the profile's own, and an incognito-like context inherits some of
    // its profile's settings (a permission it blocked is blocked in every context made after):
    // only a browser that serves one session hands it out, to that session (and a BiDi
    // session's mapper, which sees the whole browser, finds no window left in it). Headless
    // only: a headful Chromium quits when its last window closes, which that session's end
    // could be.
    const adopt = options.sole === true && this.#headless && !this.#adopted;
    const first = !this.#adopted;
    this.#adopted = true;
    try {
      const context = await NativeContext.open(this.#browser, this.browserVersion, this.#timeZone, adopt);
      // A browser shared by sessions never hands out its default context: the window the browser
      // opened in it is closed once a session's context has one (a renderer less a browser,
      // bench/density.ts). Headless only: a headless Chromium runs on without a window.
      if (first && !adopt && this.#headless) void this.#closeInitialWindows();
      // The BiDi mapper's start (≈ 0.1 s) is the context's preparation, not New Session's.
      if (this.#bidi) context.prepareBidi(this.#bidi);
      return context;
    } catch (e) {
      throw new LaunchError(`could not open a browser context: ${(e as Error).message}`);
    }
  }

  async #closeInitialWindows(): Promise<void> {
    for (const target of this.#browser.defaultBrowserContext().targets()) {
      if (target.type() === 'page') await (await target.page().catch(() => null))?.close().catch(() => {});
    }
  }

  onExit(listener: () => void): void {
    this.#browser.once('disconnected', () => {
      if (this.#closing === undefined) listener();
    });
  }

  close(): Promise<void> {
    this.#closing ??= this.#end().catch(() => {});
    return this.#closing;
  }
}

/**
 * What goog:chromeOptions puts into the profile before the browser starts, as chromedriver does:
 * prefs into Default/Preferences, Local State, and each extension unpacked into a folder of its
 * own, which the switches returned load. The profile is the browsers' user's (it runs as them).
 */
async function seedProfile(profileDir: string, options: ChromiumLaunch): Promise<string[]> {
  const write = async (path: string, data: string | Buffer) => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, data);
  };
  if (options.prefs?.length) await write(join(profileDir, 'Default', 'Preferences'), JSON.stringify(nestPrefs(options.prefs)));
  if (options.localState?.length) await write(join(profileDir, 'Local State'), JSON.stringify(nestPrefs(options.localState)));
  const folders: string[] = [];
  for (const [i, entries] of (options.extensions ?? []).entries()) {
    const folder = join(profileDir, 'wdgate-extensions', String(i));
    for (const entry of entries) {
      if (entry.directory) await mkdir(join(folder, entry.name), { recursive: true });
      else await write(join(folder, entry.name), entry.data);
    }
    folders.push(folder);
  }
  if (options.prefs?.length || options.localState?.length || folders.length) await giveToBrowsers(profileDir);
  return folders.length ? [`--load-extension=${folders.join(',')}`, `--disable-extensions-except=${folders.join(',')}`] : [];
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
