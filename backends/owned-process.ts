// Processes the backends start themselves besides the native Chromium (drivers, Xvfb, Firefox):
// each is started as the leader of its own process group, so that ending it reaches the browsers
// it started, and each is waited for. Every one carries WDGATE_OWNER=<gateway pid> in its
// environment (inherited by its children), so a gateway that died without cleaning up has its
// leftovers found and ended by the next one (`sweepOwnedProcesses` in ./shared.ts), and each
// gets a parent-death signal (./parent-death.ts): it dies with the gateway, however that ends.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { browserEnvironment, withParentDeath } from './parent-death.ts';
import { groupEnded, killGroup, OWNER_VARIABLE } from './shared.ts';

/** Running processes, each with its own temporary directory if it has one. */
const live = new Map<ChildProcess, string | undefined>();

/** A process's own temporary directory: `wdgate-driver-<gateway pid>-<random>`. */
export const DRIVER_DIR_PREFIX = 'wdgate-driver-';

/** A process the backend started: ended with `stop`, which waits for it. */
export class OwnedProcess {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #exitListeners: (() => void)[] = [];
  #stopping = false;
  exited = false;

  constructor(child: ChildProcess, tempDir?: string) {
    this.#child = child;
    live.set(child, tempDir);
    this.#exited = new Promise((resolve) =>
      child.once('exit', () => {
        this.exited = true;
        live.delete(child);
        // Whatever the driver left in its group (a browser) goes with it, and what it wrote.
        if (child.pid) killGroup(child.pid, 'SIGKILL');
        if (!this.#stopping) for (const listener of this.#exitListeners) listener();
        void (async () => {
          if (child.pid) await groupEnded(child.pid);
          if (tempDir) await rm(tempDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
          resolve();
        })();
      }),
    );
  }

  /**
   * Start `binary`; a `tempDir` of its own (its TMPDIR) is removed once it has exited. `asBrowser`:
   * a browser, a driver or a display, run as the browsers' user (./policy/browser-user.ts), with
   * `tempDir` (given to that user by the caller) as its home.
   */
  static spawn(binary: string, args: string[], env: NodeJS.ProcessEnv, stdio: ('ignore' | 'pipe')[], tempDir?: string, asBrowser = false): OwnedProcess {
    const [program, argv] = withParentDeath(binary, args, asBrowser);
    const ownEnv = asBrowser && tempDir ? browserEnvironment(env, tempDir) : env;
    const child = spawn(program, argv, { detached: true, stdio, env: { ...ownEnv, [OWNER_VARIABLE]: String(process.pid), ...(tempDir && { TMPDIR: tempDir }) } });
    // A missing binary is an 'error' event (the exit promise still settles: 'exit' follows or not).
    child.once('error', () => child.emit('exit', null, null));
    return new OwnedProcess(child, tempDir);
  }

  get child(): ChildProcess {
    return this.#child;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Called once if the process ends without being stopped. */
  onExit(listener: () => void): void {
    if (this.exited) listener();
    else this.#exitListeners.push(listener);
  }

  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves when the process was waited for. */
  async stop(graceMs = 3000): Promise<void> {
    this.#stopping = true;
    if (this.exited) return;
    const pid = this.#child.pid;
    if (pid) killGroup(pid, 'SIGTERM');
    const timer = setTimeout(() => pid && killGroup(pid, 'SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }
}

/** Last resort on an abrupt exit: every owned process's group, at once. */
export function killOwnedNow(): void {
  for (const [child, tempDir] of live) {
    if (child.pid) killGroup(child.pid, 'SIGKILL');
    try {
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
}
