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
import { existsSync, rmSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { createHash } from 'node:crypto';

/** util-linux's setpriv (Debian's util-linux is essential: always there). */
const SETPRIV = '/usr/bin/setpriv';

/** The gateway's launchers: `wdgate-exec-<gateway pid>` in its temporary directory. */
export const LAUNCHER_DIR_PREFIX = 'wdgate-exec-';

let launcherDir: string | undefined;
const launchers = new Map<string, string>();

/** Whether parent-death signals can be set here (setpriv exists). */
export const parentDeathAvailable = existsSync(SETPRIV);

/** `binary args…` as a spawn that sets the parent-death signal first (the same program, as it is, without setpriv). */
export function withParentDeath(binary: string, args: string[]): [string, string[]] {
  return parentDeathAvailable ? [SETPRIV, ['--pdeathsig', 'KILL', '--', binary, ...args]] : [binary, args];
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
  await mkdir(launcherDir, { recursive: true, mode: 0o700 });
  for (const binary of new Set(binaries)) {
    if (launchers.has(binary)) continue;
    // The binary's own name first: the launcher is told apart in a listing; the hash keeps names unique.
    const name = `${basename(binary).replace(/[^\w.-]/g, '_')}-${createHash('sha256').update(binary).digest('hex').slice(0, 8)}`;
    const path = join(launcherDir, name);
    await writeFile(path, `#!/bin/sh\nexec ${SETPRIV} --pdeathsig KILL -- ${quote(binary)} "$@"\n`, { mode: 0o700 });
    await chmod(path, 0o700);
    launchers.set(binary, path);
  }
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
