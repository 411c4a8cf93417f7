// The Playwright backend: playwright-core (pinned: 1.65 cannot open a context in firefox-esr 153)
// drives Debian's Chromium, and Debian's firefox-esr over Playwright's WebDriver BiDi channel. No
// browser is downloaded. Sessions reach it by `wdgate:options.backend: "playwright"` or a
// configured route (plain Firefox sessions go to the native backend, which sizes windows).
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { DRIVER_DIR_PREFIX } from '../owned-process.ts';
import { LaunchError, type Backend, type BackendEnvironment, type BrowserProcess, type DrivenBrowser, type LaunchSpec, type MatchResult } from '../backend.ts';
import { browserSandbox, checkChromeOptionKeys, checkChromiumSwitches, giveToBrowsers } from '../policy/index.ts';
import { launcherFor } from '../parent-death.ts';
import { allowedBinary, CHROMIUM_ENVIRONMENT, headlessAndArgs, OWNER_VARIABLE, probeVersion, removeDeadGatewayDirs, stringArray, sweepOwnedProcesses, vendorObject } from '../shared.ts';
import { contentProcessesShared, FIREFOX_PREFS } from '../firefox/options.ts';
import { firefoxArgsAndPrefs, type FirefoxOptions } from '../firefox/index.ts';
import { PlaywrightContext, type Engine } from './context.ts';
import { launchWithPromptAcks } from './firefox-acks.ts';

export interface PlaywrightOptions {
  /** Chromium as the native backend has it: default binary, allowed binaries and switches. */
  chromium: { binary: string; allowedBinaries: string[]; allowedArgs: string[] };
  /** Firefox: the binary (firefox-esr) and the others capabilities may name, and what they may pass. */
  firefox: FirefoxOptions;
}

interface PlaywrightLaunchSpec extends LaunchSpec {
  engine: Engine;
  binary: string;
  args: string[];
  prefs: Record<string, string | number | boolean>;
  headless: boolean;
}

export async function createPlaywrightBackend(options: PlaywrightOptions): Promise<Backend> {
  const versions = new Map<string, string>();
  const binaries = [options.chromium.binary, ...options.chromium.allowedBinaries, options.firefox.binary, ...options.firefox.allowedBinaries];
  for (const binary of new Set(binaries)) {
    const version = await probeVersion(binary);
    if (version) versions.set(binary, version);
  }

  return {
    kind: 'driven',
    name: 'playwright',

    match(caps, env, route): MatchResult<LaunchSpec> {
      if (route?.backend !== 'playwright') return { ok: false, reason: 'it serves only sessions routed to it (wdgate:options.backend "playwright", or a configured route)' };
      const engine: Engine | undefined = caps.browserName === 'firefox' ? 'firefox' : [undefined, 'chrome', 'chromium'].includes(caps.browserName as string) ? 'chromium' : undefined;
      if (!engine) return { ok: false, reason: `browserName ${JSON.stringify(caps.browserName)} is not served (chrome, chromium, firefox)` };
      const wdgate = vendorObject(caps, 'wdgate:options');
      const vendorKey = engine === 'firefox' ? 'moz:firefoxOptions' : 'goog:chromeOptions';
      const vendor = vendorObject(caps, vendorKey);
      const allowed = engine === 'firefox' ? options.firefox : options.chromium;
      const binary = allowedBinary(vendor.binary ?? wdgate.binary, allowed);
      const version = versions.get(binary);
      if (!version) return { ok: false, reason: `browser binary ${binary} is not installed` };
      if (engine === 'chromium') checkChromeOptionKeys(vendor);
      const userArgs = [...stringArray(vendor.args, `${vendorKey}.args`), ...stringArray(wdgate.args, 'wdgate:options.args')];
      // Every switch checked by the policy, in the one spelling the browser's parser reads.
      const { args: checked, prefs } =
        engine === 'firefox'
          ? firefoxArgsAndPrefs(vendor, wdgate, options.firefox)
          : {
              args: [
                ...checkChromiumSwitches(stringArray(vendor.args, `${vendorKey}.args`), `${vendorKey}.args`, options.chromium.allowedArgs),
                ...checkChromiumSwitches(stringArray(wdgate.args, 'wdgate:options.args'), 'wdgate:options.args', options.chromium.allowedArgs),
              ],
              prefs: {},
            };
      const display = headlessAndArgs(checked, env);
      if ('reason' in display) return { ok: false, reason: display.reason };
      const { headless, args } = display;
      const acceptInsecureCerts = caps.acceptInsecureCerts === true;
      const spec: PlaywrightLaunchSpec = {
        backend: 'playwright',
        key: JSON.stringify({ backend: 'playwright', engine, binary, args, prefs, headless, acceptInsecureCerts }),
        browserName: engine === 'firefox' ? 'firefox' : 'chrome',
        endpoint: {
          browserNames: engine === 'firefox' ? ['firefox'] : ['chrome', 'chromium'],
          browserVersion: version,
          platformName: 'linux',
          acceptInsecureCerts: true,
          // Window bounds exist only through Chromium's CDP session.
          setWindowRect: engine === 'chromium',
        },
        engine,
        binary,
        args,
        prefs,
        headless,
        acceptInsecureCerts,
        // Firefox without Fission: a content process may hold pages of several sessions (one principal's only).
        contentProcessesShared: engine === 'firefox' && contentProcessesShared(prefs),
        vendorCapabilities: {
          [vendorKey]: { binary, args: userArgs, ...(engine === 'firefox' && { prefs }) },
          'wdgate:options': { backend: 'playwright', engine, binary, args: userArgs, headless },
        },
      };
      return { ok: true, value: spec };
    },

    async launch(launchSpec: LaunchSpec, env: BackendEnvironment): Promise<BrowserProcess> {
      const spec = launchSpec as PlaywrightLaunchSpec;
      // The browser's own temporary files (Chromium's process-singleton socket directory, which
      // it leaves when Playwright kills it) go in a directory of its own, removed with it.
      const ownTemp = await mkdtemp(join(env.tempDir, `${DRIVER_DIR_PREFIX}${process.pid}-`));
      liveTempDirs.add(ownTemp);
      // The browser runs as the browsers' user (its launcher gives it the profile Playwright makes),
      // and writes downloads here before Playwright hands them over.
      const downloadsPath = join(ownTemp, 'downloads');
      await mkdir(downloadsPath);
      await giveToBrowsers(ownTemp);
      const common = {
        // Through its launcher: the browser dies with the gateway, whatever ends it.
        executablePath: launcherFor(spec.binary),
        downloadsPath,
        headless: spec.headless,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        timeout: 30_000,
        // The remote backend's sweep finds what a dead gateway left by this mark.
        // No crash reporter helper: it would outlive the browser it watched for a moment.
        env: { ...process.env, TMPDIR: ownTemp, [OWNER_VARIABLE]: String(process.pid), MOZ_CRASHREPORTER_DISABLE: '1', ...(spec.engine === 'chromium' && CHROMIUM_ENVIRONMENT), ...(env.defaultTimeZone && { TZ: env.defaultTimeZone }), ...(!browserSandbox() && { MOZ_DISABLE_CONTENT_SANDBOX: '1' }) },
      };
      let browser: Browser;
      try {
        // Loaded with the first Playwright browser: a gateway that never uses it neither waits
        // for it at start (a third of its start-up) nor holds it in memory.
        const { chromium, firefox } = await import('playwright-core');
        browser =
          spec.engine === 'firefox'
            ? await launchWithPromptAcks(() => firefox.launch({ ...common, channel: 'moz-firefox', args: spec.args, firefoxUserPrefs: { ...FIREFOX_PREFS, ...spec.prefs } }))
            : await chromium.launch({
                ...common,
                // Scroll bars as a user has them (and as native Chromium draws them): hit testing
                // and element visibility at a frame's edge depend on them.
                ignoreDefaultArgs: ['--hide-scrollbars'],
                // Playwright turns Chromium's sandbox off unless asked; the operator decides it (browsers.sandbox).
                chromiumSandbox: browserSandbox(),
                args: ['--disable-dev-shm-usage', '--disable-gpu', '--window-size=1280,800', ...spec.args],
              });
      } catch (e) {
        await removeTempDir(ownTemp);
        throw new LaunchError(`could not start ${spec.binary} through Playwright: ${(e as Error).message.split('\n')[0]}`);
      }
      return new PlaywrightProcess(browser, spec, ownTemp);
    },

    async sweep(tempDir: string) {
      await sweepOwnedProcesses();
      await removeDeadGatewayDirs(tempDir, DRIVER_DIR_PREFIX);
    },

    // playwright-core kills the browsers it launched when this process exits; their temporary
    // directories go here (synchronously: this runs on exit).
    killAllNow() {
      for (const dir of liveTempDirs) rmSync(dir, { recursive: true, force: true });
      liveTempDirs.clear();
    },
  };
}

/** The temporary directories of the browsers Playwright runs for this gateway. */
const liveTempDirs = new Set<string>();

async function removeTempDir(dir: string): Promise<void> {
  liveTempDirs.delete(dir);
  await rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
}

class PlaywrightProcess implements BrowserProcess {
  readonly browserName: string;
  readonly browserVersion: string;
  readonly #browser: Browser;
  readonly #spec: PlaywrightLaunchSpec;
  readonly #tempDir: string;
  #closing: Promise<void> | undefined;

  constructor(browser: Browser, spec: PlaywrightLaunchSpec, tempDir: string) {
    this.#browser = browser;
    this.#spec = spec;
    this.#tempDir = tempDir;
    // Gone however it ends (closed, crashed, killed): its temporary directory goes with it.
    browser.on('disconnected', () => void removeTempDir(tempDir));
    this.browserName = spec.browserName;
    this.browserVersion = browser.version();
  }

  get connected(): boolean {
    return this.#closing === undefined && this.#browser.isConnected();
  }

  async newContext(): Promise<DrivenBrowser> {
    try {
      const context = await this.#browser.newContext({ viewport: null, ignoreHTTPSErrors: this.#spec.acceptInsecureCerts });
      return await PlaywrightContext.open(context, this.#spec.engine, this.browserVersion);
    } catch (e) {
      throw new LaunchError(`could not open a browser context: ${(e as Error).message.split('\n')[0]}`);
    }
  }

  onExit(listener: () => void): void {
    this.#browser.on('disconnected', () => {
      if (this.#closing === undefined) listener();
    });
  }

  close(): Promise<void> {
    // Playwright ends the browser process and waits for it; then what it left in its TMPDIR goes.
    this.#closing ??= Promise.race([this.#browser.close().catch(() => {}), new Promise<void>((r) => setTimeout(r, 10_000).unref())]).then(() => removeTempDir(this.#tempDir));
    return this.#closing;
  }
}
