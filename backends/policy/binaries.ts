// Which browser executable a session may name (goog:chromeOptions.binary, moz:firefoxOptions.binary,
// wdgate:options.binary): only those the operator allows (`native.allowedBinaries`,
// `playwright.allowedFirefoxBinaries`): an arbitrary path would be a program of the client's
// choosing. A path that stands for an allowed binary is taken as it: a symbolic link to one, or a
// distribution's launcher script that execs one (Debian's /usr/bin/firefox runs firefox-esr, and
// older clients send that path). The gateway then starts the allowed binary itself: the script
// is read, never run.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { InvalidCapabilityError } from '../backend.ts';

/** Where a launcher's bare command name is looked for (a fixed PATH: not the gateway's environment). */
const SEARCH_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];
/** A launcher is a short script; anything larger is not read. */
const MAX_LAUNCHER_BYTES = 4096;

const resolved = new Map<string, string | null>();

/**
 * The binary to start for `requested` (the default when absent): an allowed one, or the allowed
 * one a requested path stands for. Throws InvalidCapabilityError naming the allowed ones.
 */
export function allowedBinary(requested: unknown, allowed: { binary: string; allowedBinaries: string[] }): string {
  const binary = requested ?? allowed.binary;
  if (typeof binary !== 'string') throw new InvalidCapabilityError('the browser binary must be a string');
  const all = [...new Set([allowed.binary, ...allowed.allowedBinaries])];
  if (all.includes(binary)) return binary;
  const target = standsFor(binary, all);
  if (target) return target;
  throw new InvalidCapabilityError(`browser binary ${JSON.stringify(binary)} is not allowed (allowed: ${all.join(', ')})`);
}

/** The allowed binary `path` leads to (a link to it, or a launcher that execs it), or null. */
function standsFor(path: string, allowed: string[]): string | null {
  if (!isAbsolute(path)) return null;
  const key = `${path}\0${allowed.join('\0')}`;
  if (resolved.has(key)) return resolved.get(key)!;
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return null;
    }
  };
  const reals = new Map(allowed.map((a) => [real(a), a]));
  const linked = real(path);
  let found: string | null = linked !== null && reals.has(linked) ? reals.get(linked)! : null;
  if (!found && linked !== null) {
    const command = launcherCommand(linked);
    const target = command === null ? null : isAbsolute(command) ? real(command) : SEARCH_PATH.map((dir) => real(join(dir, command))).find((p) => p !== null) ?? null;
    if (target !== null && reals.has(target)) found = reals.get(target)!;
  }
  // A few distinct paths are asked for (the ones clients are configured with): remember them.
  if (resolved.size < 64) resolved.set(key, found);
  return found;
}

/**
 * The command a launcher script ends by running (`exec name "$@"`), when it is a short script of
 * the system's (owned by root, writable by nobody else): null otherwise. Read once per path.
 */
function launcherCommand(file: string): string | null {
  try {
    const info = statSync(file);
    if (!info.isFile() || info.size === 0 || info.size > MAX_LAUNCHER_BYTES || info.uid !== 0 || (info.mode & 0o022) !== 0) return null;
    const text = readFileSync(file, 'latin1');
    if (!text.startsWith('#!')) return null;
    const execs = [...text.matchAll(/^\s*exec\s+("?)([\w./+-]+)\1\s+"\$@"\s*$/gm)];
    return execs.at(-1)?.[2] ?? null;
  } catch {
    return null;
  }
}
