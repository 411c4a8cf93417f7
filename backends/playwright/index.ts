// The Playwright backend: playwright-core (pinned: 1.65 cannot open a context in firefox-esr 153)
// drives Debian's Chromium, and Debian's firefox-esr over Playwright's WebDriver BiDi channel. No
// browser is downloaded. Sessions reach it by `wdgate:options.backend: "playwright"` or a
// configured route (plain Firefox sessions go to the native backend, which sizes windows).
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { DRIVER_DIR_PREFIX } from '../owned-process.ts';
import { InvalidCapabilityError, LaunchError, type Backend, type BackendEnvironment, type BrowserProcess, type DrivenBrowser, type LaunchSpec, type MatchResult } from '../backend.ts';
import { browserSandbox, checkChromeOptions, checkChromiumSwitches, giveToBrowsers, nestPrefs, type FirefoxProfile } from '../policy/index.ts';
import { parseMobileEmulation } from '../emulation/index.ts';
import { allowedBinary, CHROMIUM_ENVIRONMENT, headlessAndArgs, OWNER_VARIABLE, probeVersion, removeDeadGatewayDirs, stringArray, sweepOwnedProcesses, vendorObject } from '../shared.ts';
import { contentProcessesShared, FIREFOX_PREFS } from '../firefox/options.ts';
import { firefoxArgsAndPrefs, firefoxLaunchOptions, mozAnswer, probeBuildId, type FirefoxOptions } from '../firefox/index.ts';
import { PlaywrightContext, type Engine } from './context.ts';
import { launchWithPromptAcks } from './firefox-acks.ts';
import { seededExecutable, type Seed } from './seed.ts';
import { PLAYWRIGHT_OPTION_GAPS } from './gaps.ts';

export interface PlaywrightOptions {
  /** Chromium as the native backend has it: default binary, allowed binaries and switches. */
  chromium: { binary: string; allowedBinaries: string[]; allowedArgs: string[]; allowExtensions?: boolean };
  /** Firefox: the binary (firefox-esr) and the others capabilities may name, and what they may pass. */
  firefox: FirefoxOptions;
}

interface PlaywrightLaunchSpec extends LaunchSpec {
  engine: Engine;
  binary: string;
  args: string[];
  prefs: Record<string, string | number | boolean>;
  headless: boolean;
  /** What Playwright has no option for: files in its profile, switches of its defaults left out (./seed.ts). */
  seed: Seed;
  /** Options of every context (mobile emulation: Playwright sets it per context, for its popups too). */
  contextOptions: Record<string, unknown>;
  /** Firefox: moz:firefoxOptions.env; the profile's user.js prefs. */
  env: [string, string][];
  profilePrefs: Record<string, string | number | boolean>;
}

export async function createPlaywrightBackend(options: PlaywrightOptions): Promise<Backend> {
  const versions = new Map<string, string>();
  const binaries = [options.chromium.binary, ...options.chromium.allowedBinaries, options.firefox.binary, ...options.firefox.allowedBinaries];
  for (const binary of new Set(binaries)) {
    const version = await probeVersion(binary);
    if (version) versions.set(binary, version);
  }
  const buildIds = new Map<string, string>();
  for (const binary of new Set([options.firefox.binary, ...options.firefox.allowedBinaries])) {
    const buildId = await probeBuildId(binary);
    if (buildId) buildIds.set(binary, buildId);
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
      const firefox = engine === 'firefox' ? firefoxLaunchOptions(caps, vendor, options.firefox) : undefined;
      if (firefox?.logLevel) throw new InvalidCapabilityError(`moz:firefoxOptions.log is refused on the Playwright backend: ${PLAYWRIGHT_OPTION_GAPS.firefoxLog}`);
      const binary = allowedBinary(vendor.binary ?? wdgate.binary, allowed);
      const version = versions.get(binary);
      if (!version) return { ok: false, reason: `browser binary ${binary} is not installed` };
      const chrome = engine === 'chromium' ? checkChromeOptions(vendor, { allowExtensions: options.chromium.allowExtensions, loggingPrefs: caps['goog:loggingPrefs'] }) : undefined;
      if (chrome?.extensions.length) throw new InvalidCapabilityError(`goog:chromeOptions.extensions is refused on the Playwright backend: ${PLAYWRIGHT_OPTION_GAPS.extensions}`);
      if (chrome?.prefs.length) throw new InvalidCapabilityError(`goog:chromeOptions.prefs is refused on the Playwright backend: ${PLAYWRIGHT_OPTION_GAPS.prefs}`);
      const contextOptions = engine === 'chromium' && vendor.mobileEmulation !== undefined ? emulationOptions(vendor.mobileEmulation) : {};
      const ownSwitches = new Set(stringArray(vendor.args, `${vendorKey}.args`).concat(stringArray(wdgate.args, 'wdgate:options.args')).map((a) => a.replace(/^--?/, '').split('=')[0]!));
      const seed = seedOf(chrome, firefox?.profile, ownSwitches);
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
      // What the browser is launched with: in its pool key and its spec alike.
      const launch = { engine, binary, args, prefs, headless, acceptInsecureCerts };
      const spec: PlaywrightLaunchSpec = {
        backend: 'playwright',
        key: JSON.stringify({
          backend: 'playwright',
          ...launch,
          // Playwright sets emulation per context, and its profile and defaults per launch.
          ...(Object.keys(contextOptions).length > 0 && { contextOptions }),
          ...(chrome?.localState.length && { localState: chrome.localState }),
          ...(chrome?.excludeSwitches.length && { excludeSwitches: chrome.excludeSwitches }),
          ...(firefox?.env.length && { env: firefox.env }),
          ...(firefox?.profile && { profile: firefox.profile.digest }),
        }),
        browserName: engine === 'firefox' ? 'firefox' : 'chrome',
        endpoint: {
          browserNames: engine === 'firefox' ? ['firefox'] : ['chrome', 'chromium'],
          browserVersion: version,
          platformName: 'linux',
          acceptInsecureCerts: true,
          // Window bounds exist only through Chromium's CDP session.
          setWindowRect: engine === 'chromium',
        },
        ...launch,
        seed,
        contextOptions,
        env: firefox?.env ?? [],
        profilePrefs: firefox?.profile?.userPrefs ?? {},
        // Firefox without Fission: a content process may hold pages of several sessions (one principal's only).
        contentProcessesShared: engine === 'firefox' && contentProcessesShared(prefs),
        vendorCapabilities: {
          ...(engine === 'firefox' && mozAnswer(headless, buildIds.get(binary))),
          [vendorKey]: { binary, args: userArgs, ...(engine === 'firefox' && { prefs }), ...(vendor.mobileEmulation !== undefined && { mobileEmulation: vendor.mobileEmulation }) },
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
      // Through its launcher: the browser dies with the gateway, whatever ends it (with the
      // session's profile seed and switches left out, when it has them).
      let seeded;
      try {
        seeded = await seededExecutable(spec.binary, spec.seed, env.tempDir);
      } catch (e) {
        await removeTempDir(ownTemp);
        throw new LaunchError(`could not prepare the launch of ${spec.binary}: ${(e as Error).message}`);
      }
      const excluded = new Set(spec.seed.dropSwitches);
      const common = {
        executablePath: seeded.executable,
        downloadsPath,
        headless: spec.headless,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        timeout: 30_000,
        // The remote backend's sweep finds what a dead gateway left by this mark.
        // No crash reporter helper: it would outlive the browser it watched for a moment.
        env: {
          ...process.env,
          TMPDIR: ownTemp,
          [OWNER_VARIABLE]: String(process.pid),
          MOZ_CRASHREPORTER_DISABLE: '1',
          ...(spec.engine === 'chromium' && CHROMIUM_ENVIRONMENT),
          ...(env.defaultTimeZone && { TZ: env.defaultTimeZone }),
          ...Object.fromEntries(spec.env),
          ...(!browserSandbox() && { MOZ_DISABLE_CONTENT_SANDBOX: '1' }),
        },
      };
      let browser: Browser;
      try {
        // Loaded with the first Playwright browser: a gateway that never uses it neither waits
        // for it at start (a third of its start-up) nor holds it in memory.
        const { chromium, firefox } = await import('playwright-core');
        browser =
          spec.engine === 'firefox'
            ? await launchWithPromptAcks(() =>
                firefox.launch({
                  ...common,
                  channel: 'moz-firefox',
                  args: spec.args,
                  // A session's profile's user.js under the gateway's prefs, its own prefs over both.
                  firefoxUserPrefs: { ...spec.profilePrefs, ...FIREFOX_PREFS, ...spec.prefs },
                }),
              )
            : await chromium.launch({
                ...common,
                // Scroll bars as a user has them (and as native Chromium draws them): hit testing
                // and element visibility at a frame's edge depend on them.
                ignoreDefaultArgs: ['--hide-scrollbars'],
                // Playwright turns Chromium's sandbox off unless asked; the operator decides it (browsers.sandbox).
                chromiumSandbox: browserSandbox(),
                args: [
                  ...['--disable-dev-shm-usage', '--disable-gpu', '--window-size=1280,800'].filter((a) => !excluded.has(a.slice(2).split('=')[0]!)),
                  ...spec.args,
                  // A mobile device's user agent for the whole browser too (its key is the device's
                  // alone): Playwright sets it on each page as it attaches, and a popup's first
                  // request sometimes left before that (1 run in 4 under load) with the desktop's.
                  ...(spec.contextOptions.userAgent !== undefined ? [`--user-agent=${spec.contextOptions.userAgent}`] : []),
                ],
              });
      } catch (e) {
        await removeTempDir(ownTemp);
        throw new LaunchError(`could not start ${spec.binary} through Playwright: ${(e as Error).message.split('\n')[0]}`);
      } finally {
        await seeded.remove();
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

/**
 * goog:chromeOptions.mobileEmulation as Playwright's context options: Playwright applies them to
 * every page of a context before it runs, popups included, but takes them only when the context
 * is made; client hints it derives from the user agent itself (a gap: PLAYWRIGHT_OPTION_GAPS).
 */
function emulationOptions(value: unknown): Record<string, unknown> {
  const emulation = parseMobileEmulation(value);
  if (emulation.clientHints) throw new InvalidCapabilityError(`goog:chromeOptions.mobileEmulation.clientHints is refused on the Playwright backend: ${PLAYWRIGHT_OPTION_GAPS.clientHints}`);
  const m = emulation.metrics;
  return {
    ...(emulation.userAgent !== undefined && { userAgent: emulation.userAgent }),
    ...(m && {
      // A dimension of 0 is the window's own, as CDP takes it.
      viewport: m.width && m.height ? { width: m.width, height: m.height } : null,
      ...(m.deviceScaleFactor > 0 && { deviceScaleFactor: m.deviceScaleFactor }),
      isMobile: m.mobile,
      hasTouch: m.touch,
    }),
  };
}

/** What goes into Playwright's profile and which of its default switches are dropped. */
function seedOf(chrome: ReturnType<typeof checkChromeOptions> | undefined, profile: FirefoxProfile | undefined, ownSwitches: Set<string>): Seed {
  const files: Seed['files'] = [];
  if (chrome?.localState.length) files.push({ path: 'Local State', data: JSON.stringify(nestPrefs(chrome.localState)) });
  for (const entry of profile?.entries ?? []) files.push({ path: entry.name, data: entry.data, directory: entry.directory });
  // As chromedriver: only its defaults are left out; a switch the session passes itself stays.
  return { files, dropSwitches: (chrome?.excludeSwitches ?? []).filter((name) => !ownSwitches.has(name)) };
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
      const context = await this.#browser.newContext({ viewport: null, ignoreHTTPSErrors: this.#spec.acceptInsecureCerts, ...this.#spec.contextOptions });
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
