// Firefox as the native backend starts it: firefox-esr with its own WebDriver BiDi server, no
// geckodriver, every classic command over the process's one BiDi session, and a client's BiDi
// socket multiplexed on the same session (./hub.ts). Reached with browserName "firefox" (the
// default route) unless a route or wdgate:options.backend names another backend.
import { type BackendEnvironment, type BrowserProcess, type LaunchSpec, type MatchResult } from '../backend.ts';
import { allowedBinary, headlessAndArgs, stringArray, vendorObject } from '../shared.ts';
import { readFile, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { checkFirefoxArgs, checkFirefoxOptions, checkFirefoxPrefs, checkFirefoxProfile, checkMozCapabilities, firefoxArgText, type FirefoxProfile } from '../policy/index.ts';
import { contentProcessesShared } from './options.ts';
import { FirefoxProcess } from './process.ts';

export interface FirefoxOptions {
  binary: string;
  allowedBinaries: string[];
  /** Arguments and pref names (or families, ending in ".") capabilities may pass besides the policy's (../policy/firefox.ts). */
  allowedArgs: string[];
  allowedPrefs: string[];
  /** Environment variables capabilities may set besides the policy's (../policy/firefox-options.ts). */
  allowedEnv?: string[];
}

/** moz:firefoxOptions and moz:* checked as a whole (both backends that start Firefox): what the launch takes beyond args and prefs. */
export function firefoxLaunchOptions(caps: Record<string, unknown>, moz: Record<string, unknown>, options: FirefoxOptions): { env: [string, string][]; logLevel: string | undefined; profile: FirefoxProfile | undefined } {
  checkMozCapabilities(caps);
  const { env, logLevel } = checkFirefoxOptions(moz, options.allowedEnv);
  const profile = typeof moz.profile === 'string' ? checkFirefoxProfile(moz.profile, options.allowedPrefs) : undefined;
  return { env, logLevel, profile };
}

/**
 * The moz:* capabilities of geckodriver's New Session answer that are the session's browser's.
 * Left out: moz:processID and moz:profile (a browser may serve several sessions: its process and
 * profile path would tell one session of the others, and name the gateway's files),
 * moz:platformVersion (the machine's kernel), moz:geckodriverVersion (there is no geckodriver).
 */
export function mozAnswer(headless: boolean, buildId: string | undefined): Record<string, unknown> {
  return {
    'moz:accessibilityChecks': false,
    ...(buildId && { 'moz:buildID': buildId }),
    'moz:headless': headless,
    'moz:shutdownTimeout': 60000,
    'moz:webdriverClick': true,
    'moz:windowless': false,
  };
}

/** A Firefox binary's build id (application.ini next to the real binary, as geckodriver reads it), or undefined. */
export async function probeBuildId(binary: string): Promise<string | undefined> {
  try {
    const ini = await readFile(join(dirname(await realpath(binary)), 'application.ini'), 'utf8');
    return /^BuildID=(\d+)\s*$/m.exec(ini)?.[1];
  } catch {
    return undefined;
  }
}

/** moz:firefoxOptions.args and wdgate:options.args, checked, in one spelling each; and the prefs, checked. */
export function firefoxArgsAndPrefs(moz: Record<string, unknown>, wdgate: Record<string, unknown>, options: FirefoxOptions): { args: string[]; prefs: Record<string, string | number | boolean> } {
  const args = [
    ...checkFirefoxArgs(stringArray(moz.args, 'moz:firefoxOptions.args'), 'moz:firefoxOptions.args', options.allowedArgs),
    ...checkFirefoxArgs(stringArray(wdgate.args, 'wdgate:options.args'), 'wdgate:options.args', options.allowedArgs),
  ].map(firefoxArgText);
  return { args, prefs: checkFirefoxPrefs(moz.prefs, 'moz:firefoxOptions.prefs', options.allowedPrefs) };
}

interface FirefoxLaunchSpec extends LaunchSpec {
  binary: string;
  args: string[];
  prefs: Record<string, string | number | boolean>;
  headless: boolean;
  env: [string, string][];
  logLevel: string | undefined;
  profile: FirefoxProfile | undefined;
}

export function matchFirefox(caps: Record<string, unknown>, env: BackendEnvironment, options: FirefoxOptions, versions: Map<string, string>, buildIds = new Map<string, string>()): MatchResult<LaunchSpec> {
  const wdgate = vendorObject(caps, 'wdgate:options');
  const moz = vendorObject(caps, 'moz:firefoxOptions');
  const { env: environment, logLevel, profile } = firefoxLaunchOptions(caps, moz, options);
  const binary = allowedBinary(moz.binary ?? wdgate.binary, options);
  const version = versions.get(binary);
  if (!version) return { ok: false, reason: `browser binary ${binary} is not installed` };
  const userArgs = [...stringArray(moz.args, 'moz:firefoxOptions.args'), ...stringArray(wdgate.args, 'wdgate:options.args')];
  const { args: checked, prefs } = firefoxArgsAndPrefs(moz, wdgate, options);
  const display = headlessAndArgs(checked, env);
  if ('reason' in display) return { ok: false, reason: display.reason };
  const { headless, args } = display;
  const acceptInsecureCerts = caps.acceptInsecureCerts === true;
  const spec: FirefoxLaunchSpec = {
    backend: 'native',
    key: JSON.stringify({
      backend: 'native',
      engine: 'firefox',
      binary,
      args,
      prefs,
      headless,
      acceptInsecureCerts,
      ...(environment.length > 0 && { env: environment }),
      ...(logLevel && { logLevel }),
      ...(profile && { profile: profile.digest }),
    }),
    browserName: 'firefox',
    endpoint: { browserNames: ['firefox'], browserVersion: version, platformName: 'linux', acceptInsecureCerts: true, setWindowRect: true },
    // The hub shows each session only its own user context: BiDi sessions share the process.
    bidiScoped: true,
    // Without Fission a content process may hold pages of several sessions: one principal's only.
    contentProcessesShared: contentProcessesShared(prefs),
    binary,
    args,
    prefs,
    headless,
    acceptInsecureCerts,
    env: environment,
    logLevel,
    profile,
    vendorCapabilities: {
      ...mozAnswer(headless, buildIds.get(binary)),
      'moz:firefoxOptions': { binary, args: userArgs, prefs },
      'wdgate:options': { backend: 'native', engine: 'firefox', binary, args: userArgs, headless },
    },
  };
  return { ok: true, value: spec };
}

export function launchFirefox(launchSpec: LaunchSpec, env: BackendEnvironment): Promise<BrowserProcess> {
  const spec = launchSpec as FirefoxLaunchSpec;
  return FirefoxProcess.launch({
    binary: spec.binary,
    args: spec.args,
    prefs: spec.prefs,
    headless: spec.headless,
    acceptInsecureCerts: spec.acceptInsecureCerts,
    tempDir: env.tempDir,
    timeZone: env.defaultTimeZone,
    profile: spec.profile,
    env: spec.env,
    logLevel: spec.logLevel,
    log: env.log && ((line) => env.log!({ event: 'firefox output', binary: spec.binary, line })),
  });
}
