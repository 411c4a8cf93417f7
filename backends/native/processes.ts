// Ownership of browser processes and temporary profiles: whoever launches one records it here,
// and it is ended (and waited for) when its session or the gateway ends. At start, leftovers of
// a gateway that died without cleaning up are swept.
import { readdir, readFile, readlink, rm } from 'node:fs/promises';
import { readlinkSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { deadGatewayDirs, killGroup } from '../shared.ts';

export const PROFILE_PREFIX = 'wdgate-profile-';

const live = new Map<number, string>(); // browser pid → its profile dir

export function register(pid: number, profileDir: string): void {
  live.set(pid, profileDir);
}

export function unregister(pid: number): void {
  live.delete(pid);
}

/** Last resort on an abrupt exit: synchronous, so it works from process.on('exit'). */
export function killAllNow(): void {
  for (const [pid, dir] of live) {
    killGroup(pid);
    try {
      const socketDir = singletonDir(() => readlinkSync(join(dir, SINGLETON_SOCKET)));
      rmSync(dir, { recursive: true, force: true });
      if (socketDir) rmSync(socketDir, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
  live.clear();
}

// Chromium makes one directory outside its profile: its process-singleton socket's, in the
// temporary directory (org.chromium.Chromium.XXXXXX), which the profile's SingletonSocket link
// points into. It removes it only when it exits cleanly, so it goes with the profile here.
// (Pointing TMPDIR into the profile instead makes the socket's path too long for a Unix socket
// when the temporary directory's is long, and Chromium does not start.)
const SINGLETON_SOCKET = 'SingletonSocket';

/** Remove a profile and the socket directory it links to. Never throws. */
export async function removeProfileDir(profileDir: string): Promise<void> {
  const link = await readlink(join(profileDir, SINGLETON_SOCKET)).catch(() => undefined);
  const socketDir = singletonDir(() => link);
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
