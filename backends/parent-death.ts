// Browsers and drivers die with their gateway, whatever ends it (SIGKILL, the OOM killer): each is
// started with a parent-death signal. Linux sends the signal set with prctl(PR_SET_PDEATHSIG) to
// a process when the thread that started it ends (prctl(2)); util-linux's setpriv sets it and then
// execs the program, so the process keeps its pid, arguments and file descriptors (a CDP pipe).
// What the gateway spawns itself goes through setpriv directly (`withParentDeath`). Libraries
// that take only an executable's path (puppeteer, Playwright), and drivers that start the browser
// (chromedriver, WebKitWebDriver: the browser is then the driver's child and dies with it), get
// a launcher: a two-line script in a directory of the gateway's own that execs setpriv with the
// real binary (`launcherFor`). Each launcher is made at start for every binary the config allows.
// A browser's own helpers (Chromium's zygote and renderers, Firefox's content processes) end
// when their browser does: their IPC channel to it closes.
// The same setpriv drops a browser to the browsers' user (./policy/browser-user.ts) when the
// gateway runs as root: setpriv sets the parent-death signal after the change of user, so it holds.
import { existsSync, rmSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { createHash } from 'node:crypto';
import { browserIdentity, dropArgs } from './policy/index.ts';

/** util-linux's setpriv (Debian's util-linux is essential: always there). */
const SETPRIV = '/usr/bin/setpriv';

/** The gateway's launchers: `wdgate-exec-<gateway pid>` in its temporary directory. */
export const LAUNCHER_DIR_PREFIX = 'wdgate-exec-';

let launcherDir: string | undefined;
const launchers = new Map<string, string>();

/** Whether parent-death signals can be set here (setpriv exists). */
export const parentDeathAvailable = existsSync(SETPRIV);

/**
 * `binary args…` as a spawn that sets the parent-death signal first (the same program, as it is,
 * without setpriv); `asBrowser`: as the browsers' user (browsers, their drivers and display).
 */
export function withParentDeath(binary: string, args: string[], asBrowser = false): [string, string[]] {
  const drop = asBrowser ? dropArgs() : [];
  return parentDeathAvailable ? [SETPRIV, ['--pdeathsig', 'KILL', ...drop, '--', binary, ...args]] : [binary, args];
}

/**
 * The environment of a program run as the browsers' user: a home of its own (`home`), not the
 * gateway's (a configuration directory the caller chose, such as Chromium's, stays).
 */
export function browserEnvironment(env: NodeJS.ProcessEnv, home: string): NodeJS.ProcessEnv {
  return browserIdentity() ? { ...env, HOME: home, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME ?? join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache') } : env;
}

/** A shell word: the string in single quotes. */
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Make a launcher for each binary (once per binary; made before the gateway listens, so that a
 * launch needs no file I/O). Without setpriv, binaries launch as they are.
 */
export async function prepareLaunchers(tempDir: string, binaries: string[]): Promise<void> {
  if (!parentDeathAvailable) return;
  launcherDir ??= join(tempDir, `${LAUNCHER_DIR_PREFIX}${process.pid}`);
  // Passable by the browsers' user: chromedriver, running as them, starts the browser through one.
  await mkdir(launcherDir, { recursive: true, mode: 0o711 });
  await chmod(launcherDir, 0o711);
  for (const binary of new Set(binaries)) {
    if (launchers.has(binary)) continue;
    // The binary's own name first: the launcher is told apart in a listing; the hash keeps names unique.
    const name = `${basename(binary).replace(/[^\w.-]/g, '_')}-${createHash('sha256').update(binary).digest('hex').slice(0, 8)}`;
    const path = join(launcherDir, name);
    await writeFile(path, launcherScript(binary), { mode: 0o755 });
    await chmod(path, 0o755);
    launchers.set(binary, path);
  }
}

/**
 * The launcher's text. Run by the gateway as root, it gives the profile the library made (Chromium's
 * --user-data-dir, Firefox's -profile) to the browsers' user, makes it their home, and starts the
 * browser as them; run by a driver that already runs as them (chromedriver), it only sets the signal.
 */
function launcherScript(binary: string): string {
  const identity = browserIdentity();
  const plain = `exec ${SETPRIV} --pdeathsig KILL -- ${quote(binary)} "$@"\n`;
  if (!identity) return `#!/bin/sh\n${plain}`;
  const owner = `${identity.uid}:${identity.gid}`;
  return [
    '#!/bin/sh',
    'if [ "$(id -u)" = 0 ]; then',
    '  profile= previous=',
    '  for a in "$@"; do',
    '    case "$previous" in -profile|--profile) profile=$a ;; esac',
    '    case "$a" in --user-data-dir=*) profile=${a#--user-data-dir=} ;; esac',
    '    previous=$a',
    '  done',
    `  if [ -n "$profile" ]; then chown -R ${owner} -- "$profile" && export HOME="$profile" XDG_CACHE_HOME="$profile/.cache"; fi`,
    `  exec ${SETPRIV} --pdeathsig KILL ${dropArgs().join(' ')} -- ${quote(binary)} "$@"`,
    'fi',
    plain,
  ].join('\n');
}

/** The executable to start `binary` with: its launcher, or the binary itself when none was made. */
export function launcherFor(binary: string): string {
  return launchers.get(binary) ?? binary;
}

/** Remove the launchers (the gateway's end; synchronous, so that it works on exit too). */
export function removeLaunchers(): void {
  if (launcherDir) rmSync(launcherDir, { recursive: true, force: true });
  launcherDir = undefined;
  launchers.clear();
}
