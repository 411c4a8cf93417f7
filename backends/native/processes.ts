// Ownership of browser processes and temporary profiles: whoever launches one records it here,
// and it is ended (and waited for) when its session or the gateway ends. At start, leftovers of
// a gateway that died without cleaning up are swept.
import { readdir, readFile, readlink, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { deadGatewayDirs, killGroup } from '../shared.ts';

export const PROFILE_PREFIX = 'wdgate-profile-';

/** Browser pid → its profile directory and Chromium's socket directory outside it. */
const live = new Map<number, { profileDir: string; socketDir: string | undefined }>();

export function register(pid: number, profileDir: string, socketDir: string | undefined): void {
  live.set(pid, { profileDir, socketDir });
}

export function unregister(pid: number): void {
  live.delete(pid);
}

/** Last resort on an abrupt exit: synchronous, so it works from process.on('exit'). */
export function killAllNow(): void {
  for (const [pid, { profileDir, socketDir }] of live) {
    killGroup(pid);
    try {
      rmSync(profileDir, { recursive: true, force: true });
      if (socketDir) rmSync(socketDir, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
  live.clear();
}

// Chromium makes one directory outside its profile: its process-singleton socket's, in the
// temporary directory (org.chromium.Chromium.XXXXXX), which the profile's SingletonSocket link
// points into. It removes it only when it exits cleanly (and the link first: a browser killed
// while exiting leaves the directory without the link), so the launcher reads the link once the
// browser is up, and the directory goes with the profile here.
// (Pointing TMPDIR into the profile instead makes the socket's path too long for a Unix socket
// when the temporary directory's is long, and Chromium does not start.)
const SINGLETON_SOCKET = 'SingletonSocket';

/** Chromium's socket directory for a profile it is running with, if it has one. */
export async function singletonSocketDir(profileDir: string): Promise<string | undefined> {
  const link = await readlink(join(profileDir, SINGLETON_SOCKET)).catch(() => undefined);
  return singletonDir(() => link);
}

/** Remove a profile and the socket directory it links to (`socketDir` when known). Never throws. */
export async function removeProfileDir(profileDir: string, socketDir?: string): Promise<void> {
  socketDir ??= await singletonSocketDir(profileDir);
  await Promise.all([
    rm(profileDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {}),
    socketDir && rm(socketDir, { recursive: true, force: true }).catch(() => {}),
  ]);
}

/** The socket directory a SingletonSocket link points into, if it is Chromium's own. */
function singletonDir(readLink: () => string | undefined): string | undefined {
  let target: string | undefined;
  try {
    target = readLink();
  } catch {
    return undefined;
  }
  if (!target) return undefined;
  const dir = dirname(target);
  return basename(target) === SINGLETON_SOCKET && /^org\.chromium\.Chromium\.\w+$/.test(basename(dir)) ? dir : undefined;
}

/**
 * Remove profiles (and kill browsers using them) left by gateways that are no longer running.
 * A profile's name carries the gateway's pid: `wdgate-profile-<pid>-<random>`.
 */
export async function sweepOrphans(tempDir: string): Promise<number> {
  let swept = 0;
  const deadDirs = await deadGatewayDirs(tempDir, PROFILE_PREFIX);
  if (deadDirs.length === 0) return 0;
  for (const proc of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(proc)) continue;
    const cmdline = await readFile(`/proc/${proc}/cmdline`, 'utf8').catch(() => '');
    if (deadDirs.some((dir) => cmdline.includes(`--user-data-dir=${dir}`))) {
      killGroup(Number(proc));
      swept++;
    }
  }
  await Promise.all(deadDirs.map((dir) => removeProfileDir(dir)));
  return swept + deadDirs.length;
}
