// What Playwright gives no option for: files in the browser's profile before it starts
// (goog:chromeOptions.prefs and localState, moz:firefoxOptions.profile) and switches of its own
// defaults left out (goog:chromeOptions.excludeSwitches). Playwright makes the profile itself and
// starts the browser through an executable path it is given: that path is a short script of the
// launch's own, which copies the seed into the profile Playwright names on the command line
// (Chromium's --user-data-dir, Firefox's -profile), drops the excluded switches, and execs the
// browser's launcher (../parent-death.ts: parent-death signal, the browsers' user). The script
// and the seed live in a directory only the gateway's user can write (never the browser's own
// temporary directory, which the browsers' user owns: the script runs as the gateway's user),
// removed once the browser started.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DRIVER_DIR_PREFIX } from '../owned-process.ts';
import { launcherFor } from '../parent-death.ts';

export interface Seed {
  /** Files (and directories) to put into the profile, by their path inside it. */
  files: { path: string; data?: Buffer | string; directory?: boolean }[];
  /** Switch names (no dashes; checked by the policy: letters, digits, `-_.`) dropped from the command line. */
  dropSwitches: string[];
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The executable to hand Playwright for `binary`, and how to remove what it needed (after the launch). */
export async function seededExecutable(binary: string, seed: Seed, tempDir: string): Promise<{ executable: string; remove(): Promise<void> }> {
  if (seed.files.length === 0 && seed.dropSwitches.length === 0) return { executable: launcherFor(binary), remove: async () => {} };
  const dir = await mkdtemp(join(tempDir, `${DRIVER_DIR_PREFIX}${process.pid}-seed-`));
  const remove = () => rm(dir, { recursive: true, force: true }).catch(() => {});
  try {
    const files = join(dir, 'profile');
    await mkdir(files);
    for (const file of seed.files) {
      const path = join(files, file.path);
      if (file.directory) await mkdir(path, { recursive: true });
      else await mkdir(dirname(path), { recursive: true }).then(() => writeFile(path, file.data ?? ''));
    }
    const drop = seed.dropSwitches.flatMap((name) => [`--${name}`, `--${name}=*`]).join('|');
    const script = join(dir, 'launch');
    await writeFile(
      script,
      [
        '#!/bin/sh',
        'profile= previous=',
        'for a do',
        '  shift',
        ...(drop ? [`  case "$a" in ${drop}) previous=$a; continue ;; esac`] : []),
        '  case "$previous" in -profile|--profile) profile=$a ;; esac',
        '  case "$a" in --user-data-dir=*) profile=${a#--user-data-dir=} ;; esac',
        '  previous=$a',
        '  set -- "$@" "$a"',
        'done',
        ...(seed.files.length ? [`if [ -n "$profile" ]; then cp -R -- ${quote(files)}/. "$profile/" || exit 1; fi`] : []),
        `exec ${quote(launcherFor(binary))} "$@"`,
        '',
      ].join('\n'),
      { mode: 0o700 },
    );
    await chmod(script, 0o700);
    return { executable: script, remove };
  } catch (e) {
    await remove();
    throw e;
  }
}
