// A Firefox process the gateway starts itself (no geckodriver: Debian has none) with its
// WebDriver BiDi server on a port of its own, and the hub that owns the process's one BiDi
// session. Each session is a user context of it (./context.ts).
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LaunchError, type BrowserProcess, type DrivenBrowser } from '../backend.ts';
import { DRIVER_DIR_PREFIX, OwnedProcess } from '../owned-process.ts';
import { browserSandbox, firefoxArgvOf, giveToBrowsers, type FirefoxProfile } from '../policy/index.ts';
import { FirefoxContext } from './context.ts';
import { BidiHub } from './hub.ts';
import { FIREFOX_PREFS, FIREFOX_WINDOW } from './options.ts';

export interface FirefoxLaunch {
  binary: string;
  args: string[];
  prefs: Record<string, string | number | boolean>;
  headless: boolean;
  acceptInsecureCerts: boolean;
  tempDir: string;
  timeZone?: string;
  /** moz:firefoxOptions.profile, checked: its files go into the profile first, its user.js prefs under the gateway's. */
  profile?: Pick<FirefoxProfile, 'entries' | 'userPrefs'>;
  /** moz:firefoxOptions.env, checked. */
  env?: [string, string][];
  /** moz:firefoxOptions.log.level as Firefox names it: its remote agent logs at that level, and its output goes to `log`. */
  logLevel?: string;
  log?: (line: string) => void;
}

/** Prefs for a browser under automation (no first-run pages, updates or telemetry), as geckodriver sets them. */
const AUTOMATION_PREFS = {
  'browser.shell.checkDefaultBrowser': false,
  'browser.startup.homepage_override.mstone': 'ignore',
  'browser.aboutwelcome.enabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.reportingpolicy.firstRun': false,
  'app.update.disabledForTesting': true,
  'browser.download.panel.shown': true,
  'dom.disable_open_during_load': false,
  // A wheel action scrolls by its deltas at once, as it does in Chromium (no animation to wait for).
  'general.smoothScroll': false,
};

const LISTENING = /WebDriver BiDi listening on (ws:\/\/\S+)/;
const START_TIMEOUT_MS = 30_000;

export class FirefoxProcess implements BrowserProcess {
  readonly browserName = 'firefox';
  readonly browserVersion: string;
  readonly #owned: OwnedProcess;
  readonly #hub: BidiHub;
  #closing: Promise<void> | undefined;

  private constructor(owned: OwnedProcess, hub: BidiHub) {
    this.#owned = owned;
    this.#hub = hub;
    this.browserVersion = String(hub.capabilities.browserVersion ?? '');
  }

  static async launch(options: FirefoxLaunch): Promise<FirefoxProcess> {
    // The profile lives in the process's own temporary directory, which goes with it (and with a
    // dead gateway's sweep: the directory's name carries the gateway's pid).
    const ownTemp = await mkdtemp(join(options.tempDir, `${DRIVER_DIR_PREFIX}${process.pid}-`));
    const profile = join(ownTemp, 'profile');
    await mkdir(profile);
    // A session's profile first (as geckodriver unpacks it), then user.js: its own prefs under
    // the gateway's, the session's prefs over both.
    for (const entry of options.profile?.entries ?? []) {
      const path = join(profile, entry.name);
      if (entry.directory) await mkdir(path, { recursive: true });
      else await mkdir(dirname(path), { recursive: true }).then(() => writeFile(path, entry.data));
    }
    const logging = options.logLevel ? { 'remote.log.level': options.logLevel } : {};
    const prefs = { ...options.profile?.userPrefs, ...AUTOMATION_PREFS, ...FIREFOX_PREFS, ...logging, ...options.prefs };
    await writeFile(join(profile, 'user.js'), Object.entries(prefs).map(([name, value]) => `user_pref(${JSON.stringify(name)}, ${JSON.stringify(value)});\n`).join(''));
    const args = [...(options.headless ? ['--headless'] : []), '--no-remote', '--profile', profile, '--remote-debugging-port=0', ...firefoxArgvOf(options.args), 'about:blank'];
    const env = {
      ...process.env,
      MOZ_CRASHREPORTER_DISABLE: '1',
      // The headless window's size, as a headful one (native Chromium's too).
      MOZ_HEADLESS_WIDTH: String(FIREFOX_WINDOW.width),
      MOZ_HEADLESS_HEIGHT: String(FIREFOX_WINDOW.height),
      ...(options.timeZone && { TZ: options.timeZone }),
      // The session's own (checked by the policy): time zone, locale, window size.
      ...Object.fromEntries(options.env ?? []),
      // Only when the operator turned the sandbox off (browsers.sandbox: false).
      ...(!browserSandbox() && { MOZ_DISABLE_CONTENT_SANDBOX: '1', MOZ_DISABLE_RDD_SANDBOX: '1', MOZ_DISABLE_SOCKET_PROCESS_SANDBOX: '1', MOZ_DISABLE_GMP_SANDBOX: '1' }),
    };
    // The browsers' user's own, with its profile (the gateway wrote user.js first).
    await giveToBrowsers(ownTemp);
    const owned = OwnedProcess.spawn(options.binary, args, env, ['ignore', 'pipe', 'pipe'], ownTemp, true);
    const { child } = owned;
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new LaunchError(`${options.binary} did not start its BiDi server within ${START_TIMEOUT_MS} ms: ${lastWords(output)}`)), START_TIMEOUT_MS);
      const read = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-4000);
        const found = LISTENING.exec(output);
        if (found) {
          clearTimeout(timer);
          resolve(found[1]!);
        }
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      owned.onExit(() => {
        clearTimeout(timer);
        reject(new LaunchError(`${options.binary} exited at start: ${lastWords(output)}`));
      });
    }).catch(async (e) => {
      await owned.stop(0);
      throw e;
    });
    // Its output goes to the gateway's log when a session asked for Firefox's log; else the
    // pipes are only drained, so that it never blocks on them.
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.removeAllListeners('data');
      if (options.logLevel && options.log) stream.setEncoding('utf8').on('data', (text: string) => text.split('\n').forEach((line) => line && options.log!(line)));
      else stream.resume();
    }
    try {
      const hub = await BidiHub.open(url, options.acceptInsecureCerts);
      return new FirefoxProcess(owned, hub);
    } catch (e) {
      await owned.stop(0);
      throw new LaunchError(`could not begin the BiDi session of ${options.binary}: ${(e as Error).message}`);
    }
  }

  get connected(): boolean {
    return this.#closing === undefined && this.#hub.connected && !this.#owned.exited;
  }

  async newContext(): Promise<DrivenBrowser> {
    try {
      return await FirefoxContext.open(this.#hub, this.browserVersion);
    } catch (e) {
      throw new LaunchError(`could not open a browser context: ${(e as Error).message}`);
    }
  }

  onExit(listener: () => void): void {
    let told = false;
    const once = () => {
      if (told || this.#closing) return;
      told = true;
      listener();
    };
    this.#owned.onExit(once);
    this.#hub.onGone(once);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#hub.close();
      await this.#owned.stop(3000);
    })();
    return this.#closing;
  }
}

function lastWords(output: string): string {
  return output.trim().split('\n').slice(-3).join(' / ') || 'no output';
}
