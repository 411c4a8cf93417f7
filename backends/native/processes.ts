// Ownership of browser processes and temporary profiles: whoever launches one records it here,
// and it is ended (and waited for) when its session or the gateway ends. At start, leftovers of
// a gateway that died without cleaning up are swept.
import { readdir, readFile, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
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
      rmSync(dir, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
  live.clear();
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
  await Promise.all(deadDirs.map((dir) => rm(dir, { recursive: true, force: true }).catch(() => {})));
  return swept + deadDirs.length;
}
