// Small helpers more than one backend needs: reading vendor options out of capabilities, a
// browser binary's version, a cookie as the W3C layer takes it, a finished download, and the
// processes they start.
import { execFile } from 'node:child_process';
import { link, readdir, readFile, rm, unlink } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { promisify } from 'node:util';
import { InvalidCapabilityError, type BackendEnvironment, type CookieData } from './backend.ts';

/** A vendor options object of the capabilities (`goog:chromeOptions` ...); {} when absent. */
export function vendorObject(caps: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = caps[key];
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCapabilityError(`${key} must be an object`);
  return value as Record<string, unknown>;
}

/** An array of strings at `path` ([] when absent). */
export function stringArray(value: unknown, path: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new InvalidCapabilityError(`${path} must be an array of strings`);
  return value;
}

/** The browser binary capabilities ask for, or the default: only an allowed one (../policy/binaries.ts). */
export { allowedBinary } from './policy/index.ts';

/**
 * Headless or not (the gateway's --headless, or a headless switch among the session's), and the
 * session's other switches, once each and sorted (they are part of the pool key). A headful
 * browser without a display is a mismatch, with the reason.
 */
export function headlessAndArgs(userArgs: string[], env: BackendEnvironment): { headless: boolean; args: string[] } | { reason: string } {
  const headlessArg = /^--?headless(=|$)/;
  const headless = env.headless || userArgs.some((a) => headlessArg.test(a));
  if (!headless && !env.hasDisplay) return { reason: 'no display is available for a headful browser: start wdgate with --headless' };
  return { headless, args: [...new Set(userArgs.filter((a) => !headlessArg.test(a)))].sort() };
}

const execFileAsync = promisify(execFile);

/** The version a browser binary reports (`--version`), or undefined when it cannot run. */
export async function probeVersion(binary: string): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync(binary, ['--version'], { timeout: 10_000 });
    return /(\d+(\.\d+)+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}

/** A browser's cookie as the W3C layer takes it: an expiry only for a cookie that is not a session cookie. */
export function cookieData(c: { name: string; value: string; path: string; domain: string; secure: boolean; httpOnly: boolean; expires: number; session?: boolean; sameSite?: string }): CookieData {
  return {
    name: c.name,
    value: c.value,
    path: c.path,
    domain: c.domain,
    secure: c.secure,
    httpOnly: c.httpOnly,
    ...(!c.session && c.expires > 0 && { expiry: Math.floor(c.expires) }),
    sameSite: (c.sameSite ?? 'Lax') as CookieData['sameSite'],
  };
}

/** Whether a process runs (one of another user's counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Signal a process's whole group (a process started detached leads its own), or it alone. */
export function killGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/**
 * Resolves once no process of group `pgid` runs any more, at most `boundMs` later. A killed group's
 * members die each on its own a moment after the signal; those whose parent went first become
 * zombies of PID 1, which need not reap them here, so a zombie counts as gone.
 */
export async function groupEnded(pgid: number, boundMs = 2000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while ((await groupRuns(pgid)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function groupRuns(pgid: number): Promise<boolean> {
  if (!isAlive(-pgid)) return false; // no member at all, not even a zombie
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'latin1').catch(() => '');
    // After the command's closing parenthesis: state, ppid, pgrp, …
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') return true;
  }
  return false;
}

/**
 * The environment mark of every process the gateway's backends start besides the native browsers
 * (drivers, Xvfb, Playwright's browsers; their children inherit it).
 */
export const OWNER_VARIABLE = 'WDGATE_OWNER';

/** Remove the temporary directories (`<prefix><pid>-…`) of gateways no longer running. */
export async function removeDeadGatewayDirs(tempDir: string, prefix: string): Promise<void> {
  const dirs = await deadGatewayDirs(tempDir, prefix);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }).catch(() => {})));
}

let swept: Promise<number> | undefined;

/**
 * End processes a dead gateway started (their mark names a pid no longer running). Every
 * backend that marks processes asks at start; the scan of /proc runs once.
 */
export function sweepOwnedProcesses(): Promise<number> {
  swept ??= (async () => {
    let count = 0;
    for (const name of await readdir('/proc').catch(() => [] as string[])) {
      if (!/^\d+$/.test(name)) continue;
      const environ = await readFile(`/proc/${name}/environ`, 'latin1').catch(() => '');
      const owner = new RegExp(`(?:^|\\0)${OWNER_VARIABLE}=(\\d+)(?:\\0|$)`).exec(environ)?.[1];
      if (!owner || Number(owner) === process.pid || isAlive(Number(owner))) continue;
      try {
        process.kill(Number(name), 'SIGKILL');
        count++;
      } catch {
        /* gone meanwhile */
      }
    }
    return count;
  })();
  return swept;
}

/**
 * An expression whose promise settles once the page has handled a wheel event just dispatched
 * (it arrives through the compositor, after the dispatch answers): two frames, or 100 ms for a
 * hidden page, which has none.
 */
export const WHEEL_SETTLED = 'new Promise((resolve) => { requestAnimationFrame(() => requestAnimationFrame(() => resolve())); setTimeout(resolve, 100); })';

/**
 * After input, a navigation it started must reach the backend as an event before it decides none
 * is pending. A form submission is a task the renderer runs after the input event: `evaluate`
 * runs a task in the page (a message to itself, which no timer clamping delays) and the backend
 * waits for it, at most `boundMs` (a prompt, or a page that broke MessageChannel, must not hold
 * the command).
 */
export async function afterNextTask(evaluate: (expression: string) => Promise<unknown>, boundMs = 100): Promise<void> {
  const nextTask = evaluate('new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = () => r(0); c.port2.postMessage(0); })').catch(() => {});
  await withinBound(nextTask, boundMs, undefined);
}

/** What `work` gives, or `fallback` once `boundMs` passed first (`work` goes on, unheard). */
export async function withinBound<T>(work: Promise<T>, boundMs: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), boundMs)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Temporary directories `<prefix><pid>-<random>` whose gateway (pid) is no longer running: the
 * naming every directory the gateway creates follows, so a crash's leftovers can be found.
 */
export async function deadGatewayDirs(tempDir: string, prefix: string): Promise<string[]> {
  const entries = await readdir(tempDir).catch(() => [] as string[]);
  return entries
    .filter((name) => {
      if (!name.startsWith(prefix)) return false;
      const pid = Number(name.slice(prefix.length).split('-')[0]);
      return Number.isInteger(pid) && pid !== process.pid && !isAlive(pid);
    })
    .map((name) => join(tempDir, name));
}

/** Chromium's refusal of print options (a page range past the end, no room for content): invalid argument. */
export function isPrintRefusal(message: string): boolean {
  return /page range|print parameters|content area/i.test(message);
}

/** Where a backend writes downloads until they are finished (DrivenBrowser.saveDownloadsTo). */
export const PARTIAL_DOWNLOADS = '.partial';

/**
 * Move a finished download (`file`, named by the browser or Playwright) into `directory` under
 * the name it suggested, as a browser names its downloads: "report.pdf", then "report (1).pdf".
 * The name appears at once, complete, and never replaces another. Never throws.
 */
export async function keepDownload(file: string, directory: string, suggested: string): Promise<void> {
  const name = basename(suggested) || 'download';
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  try {
    for (let n = 0; n < 1000; n++) {
      try {
        // link() refuses a name that exists: two downloads of one name never overwrite.
        await link(file, join(directory, n === 0 ? name : `${stem} (${n})${ext}`));
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return;
      }
    }
  } finally {
    await unlink(file).catch(() => {});
  }
}

/** RFC 6265 §5.1.4 path-match: the cookie's path is the request path or a directory prefix of it. */
export function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  return requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/');
}

/**
 * Chromium's environment: no crash handler. Debian's Chromium starts crashpad's handler (two
 * processes per browser), which forks twice, leaves the browser's process tree and group, and
 * outlived browsers the gateway killed (found an hour later); nobody reads its dumps. It keeps them
 * under XDG_CONFIG_HOME (chromium/Crash Reports): where that cannot be made, the handler does not
 * start and the browser runs on (its switch --disable-crashpad-for-testing crashes renderers on
 * Chromium 156: "FD ownership violation"). With --user-data-dir, Chromium reads nothing else there.
 */
export const CHROMIUM_ENVIRONMENT = { XDG_CONFIG_HOME: '/dev/null/wdgate-no-crash-reports' } as const;
