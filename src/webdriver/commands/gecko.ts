// geckodriver's extension commands beside the full-page screenshot (./screenshots.ts): add-ons
// (`moz/addon/install`, `moz/addon/uninstall`) and the chrome context (`moz/context`). An add-on
// is code the browser runs in every page of every session it serves: it is installed only when
// the operator allows it (extensions.allowInstall), only into a browser the session has to
// itself, and a path only from the operator's directories (extensions.directories).
import { realpath } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import { error } from '../errors.ts';
import type { Gateway } from '../gateway.ts';
import type { Session } from '../session.ts';
import { sessionCommand } from './types.ts';

/** Whether the session may install or uninstall an add-on: the refusal names what would admit it. */
function mayChangeAddons(gateway: Gateway, session: Session, command: string): void {
  const { browser } = session;
  // The operator's word first: where add-ons are off, that is the answer for every session.
  if (!gateway.extensions.allowInstall) throw error('unsupported operation', `${command}: installing browser extensions is off on this gateway (an add-on is code the browser runs); the operator allows it with extensions.allowInstall in the config`);
  if (!browser.installAddon || !browser.uninstallAddon) throw error('unsupported operation', `${command}: add-ons are Firefox's (geckodriver), installed over its WebDriver BiDi; this backend's ${browser.browserName} takes none`);
  if (!session.ownBrowser) {
    throw error('unsupported operation', `${command}: this session shares its browser with other sessions, and an add-on would reach them all; a session with a browser of its own (wdgate:options.ownBrowser: true) may install one`);
  }
}

/** A path the operator's directories hold (its real path: a symbolic link cannot lead out). */
async function allowedPath(gateway: Gateway, path: string): Promise<string> {
  const { directories } = gateway.extensions;
  if (directories.length === 0) throw error('invalid argument', 'moz/addon/install: an add-on is read from a path only in extensions.directories, and the config names none; send it as addon (base64)');
  if (!isAbsolute(path)) throw error('invalid argument', `moz/addon/install: path must be absolute (got ${JSON.stringify(path)})`);
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw error('invalid argument', `moz/addon/install: no add-on at ${path}`);
  }
  if (!directories.some((dir) => real.startsWith(dir.endsWith(sep) ? dir : dir + sep))) {
    throw error('invalid argument', `moz/addon/install: ${path} is outside the directories add-ons may come from (extensions.directories: ${directories.join(', ')})`);
  }
  return real;
}

interface InstallParams {
  addon?: string;
  path?: string;
  temporary: boolean;
}

export const installAddon = sessionCommand({
  handlesUserPrompts: false,
  // geckodriver: {addon: base64 of the XPI} or {path}, and whether it is temporary.
  params: (v): InstallParams => {
    const { addon, path, temporary = false } = v as Record<string, unknown>;
    if ((addon === undefined) === (path === undefined)) throw error('invalid argument', 'moz/addon/install takes one of addon (the XPI as base64) or path');
    if (addon !== undefined && (typeof addon !== 'string' || !/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(addon))) throw error('invalid argument', 'addon must be the base64 of an XPI');
    if (path !== undefined && typeof path !== 'string') throw error('invalid argument', 'path must be a string');
    if (typeof temporary !== 'boolean') throw error('invalid argument', 'temporary must be a boolean');
    return { ...(addon !== undefined && { addon: (addon as string).replace(/\s+/g, '') }), ...(path !== undefined && { path: path as string }), temporary };
  },
  async handler({ gateway, session }, { addon, path, temporary }: InstallParams) {
    mayChangeAddons(gateway, session, 'moz/addon/install');
    const source = addon !== undefined ? { base64: addon } : { path: await allowedPath(gateway, path!) };
    return session.browser.installAddon!(source, temporary);
  },
});

export const uninstallAddon = sessionCommand({
  handlesUserPrompts: false,
  params: (v) => {
    const id = (v as Record<string, unknown>).id;
    if (typeof id !== 'string' || id === '') throw error('invalid argument', 'id must name an installed add-on');
    return id;
  },
  async handler({ gateway, session }, id: string) {
    mayChangeAddons(gateway, session, 'moz/addon/uninstall');
    await session.browser.uninstallAddon!(id);
    return null;
  },
});

/**
 * geckodriver's contexts: "content" (web pages, where every command acts) and "chrome" (the
 * browser's own windows, with system access). wdgate drives Firefox over WebDriver BiDi without
 * system access: content is the only context, and asking for chrome says so.
 */
function firefoxOnly(session: Session, command: string): void {
  if (session.browserName !== 'firefox') throw error('unsupported operation', `${command} is geckodriver's (Firefox); a ${session.browserName} session has no chrome context`);
}

export const getContext = sessionCommand({
  handlesUserPrompts: false,
  handler({ session }) {
    firefoxOnly(session, 'moz/context');
    return 'content';
  },
});

export const setContext = sessionCommand({
  handlesUserPrompts: false,
  params: (v) => {
    const context = (v as Record<string, unknown>).context;
    if (context !== 'content' && context !== 'chrome') throw error('invalid argument', `context must be "content" or "chrome" (got ${JSON.stringify(context)})`);
    return context;
  },
  handler({ session }, context: 'content' | 'chrome') {
    firefoxOnly(session, 'moz/context');
    if (context === 'chrome') {
      throw error('unsupported operation', 'moz/context: the chrome context is not offered: wdgate drives Firefox over WebDriver BiDi without system access (-remote-allow-system-access), which the chrome context needs; commands act on web content');
    }
    return null;
  },
});
