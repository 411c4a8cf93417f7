// The native backend: wdgate launches the browser itself. Chromium with --remote-debugging-pipe,
// driven over CDP through puppeteer-core; Firefox (browserName "firefox") over its own WebDriver
// BiDi server (../firefox/).
import { InvalidCapabilityError, type Backend, type BackendEnvironment, type BrowserProcess, type LaunchSpec, type MatchResult } from '../backend.ts';
import type { ZipEntry } from '../zip.ts';
import { allowedBinary, asksHeadless, browserSandbox, checkChromeOptions, checkChromiumSwitches, extensionDigest, fetchRefusal } from '../policy/index.ts';
import { parseMobileEmulation } from '../emulation/index.ts';
import { launchFirefox, matchFirefox, probeBuildId, type FirefoxOptions } from '../firefox/index.ts';
import { DRIVER_DIR_PREFIX, killOwnedNow } from '../owned-process.ts';
import { probeVersion, removeDeadGatewayDirs, stringArray, sweepOwnedProcesses, vendorObject } from '../shared.ts';
import { ChromiumProcess } from './chromium.ts';
import { killAllNow, sweepOrphans } from './processes.ts';

export interface NativeOptions {
  /** The Chromium used when capabilities name none. */
  binary: string;
  /** The only executables capabilities may ask for (never an arbitrary path: that is RCE). */
  allowedBinaries: string[];
  /** Chromium switches capabilities may pass besides the policy's table (../policy/chromium.ts). */
  allowedArgs: string[];
  /** Extensions (goog:chromeOptions.extensions) load, each session that brings one in a browser of its own. */
  allowExtensions?: boolean;
  /** Firefox: the binary (firefox-esr) and the others capabilities may name. */
  firefox: FirefoxOptions;
}

/** Flags Chromium needs on these machines (root, no display server, no outside network). */
const BASE_ARGS = [
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-back-forward-cache',
  // As chromedriver: scripts' window.open() must open windows (tests rely on it).
  '--disable-popup-blocking',
  '--window-size=1280,800',
  // Each window of a headless Chromium 156 (a session's context has one) would load the omnibox's
  // WebUI popup in a renderer of its own, never shown: 2 renderers per session instead of 1, and
  // 0.3 s of CPU more per session (bench/churn.ts). The spare renderer Chromium starts ahead for
  // the next navigation is started for the context used last and mostly thrown away with it.
  // Puppeteer merges this list with its own --disable-features.
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess',
];

/** `--debug-process=<name>` → the Chromium switch that makes that process wait for a debugger. */
export const DEBUG_PROCESS_SWITCHES: Record<string, string> = {
  renderer: '--renderer-startup-dialog',
  gpu: '--gpu-startup-dialog',
  utility: '--utility-startup-dialog',
};

interface NativeLaunchSpec extends LaunchSpec {
  binary: string;
  args: string[];
  headless: boolean;
  /** goog:chromeOptions.prefs and localState (dotted names → values), written into the profile before launch. */
  prefs: [string, unknown][];
  localState: [string, unknown][];
  /** The gateway's default switches left out (goog:chromeOptions.excludeSwitches). */
  excludeSwitches: string[];
  /** Unpacked extensions, loaded at start. */
  extensions: ZipEntry[][];
}

/** The W3C proxy capability as Chromium switches. */
export function proxyArgs(proxy: Record<string, unknown> | undefined): string[] {
  if (!proxy) return [];
  switch (proxy.proxyType) {
    case 'direct':
      return ['--no-proxy-server'];
    case 'autodetect':
      return ['--proxy-auto-detect'];
    case 'pac': {
      // The browser fetches and runs the PAC script: from the web, never a file of the machine.
      const refused = fetchRefusal(String(proxy.proxyAutoconfigUrl), { files: false });
      if (refused) throw new InvalidCapabilityError(`proxy.proxyAutoconfigUrl: ${refused}`);
      return [`--proxy-pac-url=${proxy.proxyAutoconfigUrl}`];
    }
    case 'manual': {
      const rules: string[] = [];
      if (proxy.httpProxy) rules.push(`http=${proxy.httpProxy}`);
      if (proxy.sslProxy) rules.push(`https=${proxy.sslProxy}`);
      if (proxy.ftpProxy) rules.push(`ftp=${proxy.ftpProxy}`);
      if (proxy.socksProxy) rules.push(`socks=socks${proxy.socksVersion ?? 5}://${proxy.socksProxy}`);
      const out = rules.length ? [`--proxy-server=${rules.join(';')}`] : [];
      if (Array.isArray(proxy.noProxy) && proxy.noProxy.length) out.push(`--proxy-bypass-list=${proxy.noProxy.join(';')}`);
      return out;
    }
    default:
      return []; // system: Chromium's own default
  }
}

/** A switch's name, without its dashes and value. */
const switchName = (arg: string) => arg.replace(/^--?/, '').split('=')[0]!;

export async function createNativeBackend(options: NativeOptions): Promise<Backend> {
  const versions = new Map<string, string>();
  for (const binary of new Set([options.binary, ...options.allowedBinaries, options.firefox.binary, ...options.firefox.allowedBinaries])) {
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
    name: 'native',
    bidi: true,

    match(caps, env): MatchResult<LaunchSpec> {
      const wdgate = vendorObject(caps, 'wdgate:options');
      const goog = vendorObject(caps, 'goog:chromeOptions');
      if (wdgate.backend !== undefined && wdgate.backend !== 'native') {
        return { ok: false, reason: `wdgate:options.backend ${JSON.stringify(wdgate.backend)} is not served by the native backend` };
      }
      if (caps.browserName === 'firefox') return matchFirefox(caps, env, options.firefox, versions, buildIds);
      const binary = allowedBinary(wdgate.binary ?? goog.binary, options);
      const version = versions.get(binary);
      if (!version) return { ok: false, reason: `browser binary ${binary} is not installed` };

      // Every key checked by the policy; what it leaves is the browser's (prefs, switches left
      // out, extensions: the launch's) or the session's own (mobile emulation).
      const chrome = checkChromeOptions(goog, { allowExtensions: options.allowExtensions, loggingPrefs: caps['goog:loggingPrefs'] });
      const emulation = goog.mobileEmulation === undefined ? undefined : parseMobileEmulation(goog.mobileEmulation);
      const userArgs = [...stringArray(goog.args, 'goog:chromeOptions.args'), ...stringArray(wdgate.args, 'wdgate:options.args')];
      // Every switch in the one spelling Chromium's parser would read, and only allowed ones.
      const switches = [
        ...checkChromiumSwitches(stringArray(goog.args, 'goog:chromeOptions.args'), 'goog:chromeOptions.args', options.allowedArgs),
        ...checkChromiumSwitches(stringArray(wdgate.args, 'wdgate:options.args'), 'wdgate:options.args', options.allowedArgs),
      ];
      const headless = env.headless || asksHeadless(switches);
      if (!headless && !env.hasDisplay) {
        return {
          ok: false,
          reason: 'no display is available for a headful browser: start wdgate with --headless (or pass --headless=new in goog:chromeOptions.args)',
        };
      }
      // An extension runs, and the profile's prefs hold whole, in the profile's own (default)
      // context only (a context of its own, as other sessions get, reads few of them: its
      // languages, for one, are not the pref's): a browser of the session's own hands it that
      // context, which only a headless browser can (./chromium.ts).
      const profileContext = chrome.extensions.length > 0 || chrome.prefs.length > 0;
      if (profileContext && !headless) return { ok: false, reason: 'goog:chromeOptions.prefs and extensions are given only to a headless browser here (pass --headless=new)' };
      const args = [...new Set(switches.filter((a) => !asksHeadless([a])))].sort();
      const acceptInsecureCerts = caps.acceptInsecureCerts === true;
      const proxy = proxyArgs(caps.proxy as Record<string, unknown> | undefined);
      const { prefs, localState, excludeSwitches, extensions } = chrome;
      const spec: NativeLaunchSpec = {
        backend: 'native',
        // What is written into the profile or changes the command line is part of the launch.
        key: JSON.stringify({
          backend: 'native',
          binary,
          args,
          headless,
          acceptInsecureCerts,
          proxy,
          ...(prefs.length > 0 && { prefs }),
          ...(localState.length > 0 && { localState }),
          ...(excludeSwitches.length > 0 && { excludeSwitches }),
          ...(extensions.length > 0 && { extensions: extensions.map(extensionDigest) }),
        }),
        browserName: 'chrome',
        endpoint: { browserNames: ['chrome', 'chromium'], browserVersion: version, platformName: 'linux', acceptInsecureCerts: true, setWindowRect: true },
        binary,
        args: [...args, ...proxy],
        headless,
        acceptInsecureCerts,
        prefs,
        localState,
        excludeSwitches,
        extensions,
        // The profile's own context (prefs, extensions; an extension sees every page of its
        // browser too): that browser serves this session alone, as chromedriver's does.
        ...(profileContext && { ownBrowser: true }),
        ...(emulation && { emulation }),
        vendorCapabilities: {
          'goog:chromeOptions': { binary, args: userArgs, ...(goog.mobileEmulation !== undefined && { mobileEmulation: goog.mobileEmulation }), ...(excludeSwitches.length > 0 && { excludeSwitches }) },
          'wdgate:options': { backend: 'native', binary, args: userArgs, headless },
        },
      };
      return { ok: true, value: spec };
    },

    async launch(launchSpec: LaunchSpec, env: BackendEnvironment): Promise<BrowserProcess> {
      if (launchSpec.browserName === 'firefox') return launchFirefox(launchSpec, env);
      const spec = launchSpec as NativeLaunchSpec;
      // The gateway's own switches, less those the session left out (excludeSwitches), then the session's.
      const own = [...BASE_ARGS];
      // Sandboxed unless the operator says otherwise (browsers.sandbox); as root, browsers run as
      // a user of their own (../policy/browser-user.ts), where the sandbox works.
      if (!browserSandbox()) own.push('--no-sandbox');
      if (spec.headless) own.push('--headless=new');
      if (env.forceCpuPainting) own.push('--disable-gpu-compositing', '--disable-gpu-rasterization');
      if (env.exposeExperimentalInterfaces) own.push('--enable-experimental-web-platform-features');
      if (env.debugProcess) own.push(DEBUG_PROCESS_SWITCHES[env.debugProcess]!);
      const excluded = new Set(spec.excludeSwitches);
      return ChromiumProcess.launch({
        binary: spec.binary,
        args: [...own.filter((a) => !excluded.has(switchName(a))), ...spec.args],
        excludeSwitches: spec.excludeSwitches,
        prefs: spec.prefs,
        localState: spec.localState,
        extensions: spec.extensions,
        acceptInsecureCerts: spec.acceptInsecureCerts,
        tempDir: env.tempDir,
        timeZone: env.defaultTimeZone,
        // A key of BiDi sessions (a browser each): the mapper starts with each prepared context
        // (not for other sessions with a browser of their own: prefs, extensions, ownBrowser).
        ...(launchSpec.ownBrowser && JSON.parse(launchSpec.key).bidi === true && { bidi: { acceptInsecureCerts: spec.acceptInsecureCerts } }),
      });
    },

    async sweep(tempDir: string): Promise<void> {
      await sweepOrphans(tempDir);
      // Firefox processes and their profiles (each in a directory of its own).
      await sweepOwnedProcesses();
      await removeDeadGatewayDirs(tempDir, DRIVER_DIR_PREFIX);
    },

    killAllNow() {
      killAllNow();
      killOwnedNow();
    },
  };
}
