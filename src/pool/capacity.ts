// How many sessions a machine holds when the config does not say (`maxSessions: null`): what the
// density bench measured a busy session to take (bench/results-density.md), on what the machine
// (or its container's cgroup) has. Memory is what runs out first for browsers: past it the kernel
// kills one (every session in it ends); CPU past its share only makes commands slower.

/** A busy session's share of the gateway's process tree (MiB), with headroom over the bench's figure. */
export const SESSION_MIB = 64;
/** Left to the system and to what the sessions' count does not scale (the gateway, a browser's first context), MiB. */
export const RESERVED_MIB = 768;
/** Busy sessions a core serves before a command waits mostly for CPU (bench: commands a second level off past it). */
export const SESSIONS_PER_CORE = 16;

export interface Machine {
  /** Memory the gateway may use: the cgroup's limit where there is one, else the machine's. */
  memoryBytes: number;
  cores: number;
}

/** The default maxSessions: as many busy sessions as memory holds, and the cores serve, at least 1 (at most 1000). */
export function machineMaxSessions({ memoryBytes, cores }: Machine): number {
  const byMemory = Math.floor((memoryBytes / 2 ** 20 - RESERVED_MIB) / SESSION_MIB);
  return Math.max(1, Math.min(1000, byMemory, Math.max(1, cores) * SESSIONS_PER_CORE));
}
