// Who the browsers (and the drivers and display that start them) run as. A browser renders pages
// of whoever holds a token; if it ran as the gateway's user, a way around the URL and file checks
// (or a browser bug) would read the tokens file, the config and every principal's history. So
// when the gateway can (it runs as root), every browser runs as a user of its own
// (`browsers.user`, created when missing), which the gateway's files are not readable by, and
// with its sandbox: Chromium's and Firefox's user-namespace sandboxes work for an unprivileged
// user, and neither runs sandboxed as root. `--no-sandbox` only when the operator says so
// (`browsers.sandbox: false`), with a warning at start.
import { execFile } from 'node:child_process';
import { chmod, chown, lstat, readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface BrowserUserConfig {
  /** The user browsers run as when the gateway runs as root (null: the gateway's own). */
  user: string | null;
  /** Browsers run with their sandbox (false: `--no-sandbox`, the operator's choice). */
  sandbox: boolean;
}

/** A user the browsers run as. */
export interface BrowserIdentity {
  name: string;
  uid: number;
  gid: number;
}

let identity: BrowserIdentity | null = null;
let sandboxed = true;

export class BrowserUserError extends Error {}

/** The identity browsers run as, or null: the gateway's own. */
export const browserIdentity = (): BrowserIdentity | null => identity;

/** Whether browsers run with their sandbox. */
export const browserSandbox = (): boolean => sandboxed;

const isRoot = () => process.getuid?.() === 0;

/**
 * Decide who the browsers run as (once, at start). As root: the configured user (made with
 * useradd as a system user without a home or a shell when it does not exist yet). As another user:
 * the gateway's own (switching users needs root); the README says what the operator sets up then.
 * Returns lines for the start-up log.
 */
export async function setUpBrowserUser(config: BrowserUserConfig): Promise<string[]> {
  const notes: string[] = [];
  sandboxed = config.sandbox;
  identity = null;
  if (!config.sandbox) notes.push('browsers run WITHOUT their sandbox (browsers.sandbox is false): a renderer bug reaches the machine');
  if (!isRoot()) {
    if (config.user !== null) notes.push(`browsers run as the gateway's own user (uid ${process.getuid?.()}): only a gateway running as root runs them as ${config.user}; see the README's threat model`);
    return notes;
  }
  if (config.user === null) {
    if (config.sandbox) throw new BrowserUserError('the gateway runs as root and browsers.user is null: browsers would run as root, where neither Chromium nor Firefox can use its sandbox; name a user (browsers.user) or turn the sandbox off (browsers.sandbox: false)');
    notes.push('browsers run as root (browsers.user is null)');
    return notes;
  }
  let found = await lookUp(config.user);
  if (!found) {
    try {
      await run('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', '--comment', 'wdgate browsers', config.user]);
    } catch (e) {
      // Another gateway made it meanwhile: fine; anything else is said.
      if (!(await lookUp(config.user))) throw new BrowserUserError(`could not create the browsers' user ${config.user}: ${(e as Error).message.trim()}`);
    }
    found = await lookUp(config.user);
    if (!found) throw new BrowserUserError(`the browsers' user ${config.user} was created but cannot be found`);
    notes.push(`made the user ${config.user} (uid ${found.uid}) for browsers`);
  }
  if (found.uid === 0 || found.gid === 0) throw new BrowserUserError(`browsers.user ${config.user} is root (uid or gid 0): browsers must run as an unprivileged user`);
  identity = found;
  return notes;
}

/** A user by name (or a numeric uid), from the system's database. */
async function lookUp(name: string): Promise<BrowserIdentity | null> {
  try {
    const { stdout } = await run('getent', ['passwd', name]);
    const [user, , uid, gid] = stdout.trim().split(':');
    if (user === undefined || uid === undefined || gid === undefined) return null;
    return { name: user, uid: Number(uid), gid: Number(gid) };
  } catch {
    return null;
  }
}

/** setpriv's arguments that make the program run as the browsers' user (none: as the gateway). */
export function dropArgs(): string[] {
  return identity ? ['--reuid', String(identity.uid), '--regid', String(identity.gid), '--clear-groups'] : [];
}

/** Make a directory the gateway made (a profile, a session's folder) the browsers' own, with what is in it. */
export async function giveToBrowsers(path: string): Promise<void> {
  if (!identity) return;
  const { uid, gid } = identity;
  const walk = async (p: string): Promise<void> => {
    const info = await lstat(p);
    await chown(p, uid, gid);
    if (info.isDirectory()) for (const name of await readdir(p)) await walk(join(p, name));
  };
  await walk(path);
}

/**
 * The browsers' user must reach their folders under the temporary directory and make their own
 * temporary files there (Chromium's process-singleton socket and its shared memory files go in
 * TMPDIR): it is made as /tmp is, for others writable and passable with the sticky bit (nobody
 * removes or renames another's files), but not listable (a directory made by mkdtemp is 0700).
 * Its parents must already be passable, or the gateway says which is not.
 */
export async function letBrowsersThrough(tempDir: string): Promise<string[]> {
  if (!identity) return [];
  const notes: string[] = [];
  const mode = (await stat(tempDir)).mode & 0o7777;
  if ((mode & 0o1003) !== 0o1003) {
    await chmod(tempDir, mode | 0o1003);
    notes.push(`${tempDir}: made writable for the browsers' user as /tmp is (sticky, o+wx, not listable): mode ${(mode | 0o1003).toString(8)}`);
  }
  for (let dir = dirname(tempDir); ; dir = dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) {
      throw new BrowserUserError(`the browsers' user ${identity.name} cannot pass through ${dir} to reach the temporary directory ${tempDir}: choose a tempDir it can reach (such as /tmp)`);
    }
    if (dir === dirname(dir)) break;
  }
  return notes;
}

/**
 * Whether the browsers' user could read this file of the gateway's (the tokens file, a TLS key, a
 * config file with secrets, the history): every directory on its way passable, and the file
 * readable, by its mode and by its owner or group being theirs.
 */
export async function readableByBrowsers(path: string): Promise<boolean> {
  if (!identity) return false;
  const allows = async (p: string, read: number): Promise<boolean> => {
    const { mode, uid, gid } = await stat(p);
    const shift = uid === identity!.uid ? 6 : gid === identity!.gid ? 3 : 0;
    return ((mode >> shift) & read) !== 0;
  };
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (!(await allows(dir, 0o1))) return false;
    if (dir === dirname(dir)) break;
  }
  return allows(path, 0o4);
}
