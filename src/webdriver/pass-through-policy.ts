// What a pass-through session may ask its upstream (backends/policy/ for driven sessions): a
// navigation stays on the web unless its principal may reach the machine's files; and on a
// driver the gateway runs on its own machine (chromedriver, WebKitWebDriver), a file input gets
// only files the session may reach: for most principals, the files it uploaded there (the paths
// the driver answered its uploads with); for one with `files`, the machine's files as for a driven
// session — those the driver's user (the browsers') cannot read handed over as copies in the
// session's own folder, as Element Send Keys does on the native backend.
import { access } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { FileRefusal, filesForBrowser, navigationRefusal } from '../../backends/policy/index.ts';
import type { PassThroughSession } from './pass-through.ts';

/** How long the upstream is given to say what an element is. */
const ASK_MS = 2000;

/**
 * The policy's verdict on one forwarded command: null, forward it as it is; a string, refuse it
 * (invalid argument, with that message); `{ body }`, forward that body instead.
 */
export type PassThroughVerdict = string | null | { body: Buffer };

/**
 * The verdict on this forwarded command; a promise when the upstream must be asked first (an
 * element's type). `params`: the request's body as JSON, if it is.
 */
export function passThroughVerdict(session: PassThroughSession, command: string, urlParams: Record<string, string>, params: unknown): PassThroughVerdict | Promise<PassThroughVerdict> {
  const body = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
  if (command === 'navigateTo' && typeof body.url === 'string') return navigationRefusal(body.url, session.files);
  if (command === 'elementSendKeys' && session.upstream.onThisMachine && typeof body.text === 'string') {
    return fileInput(session, urlParams.elementId!, body, body.text);
  }
  return null;
}

async function fileInput(session: PassThroughSession, elementId: string, body: Record<string, unknown>, text: string): Promise<PassThroughVerdict> {
  const paths = text.split('\n').map((line) => line.replace(/\r$/, ''));
  // A session's own uploads are the driver's files already.
  if (paths.every((path) => session.uploads.has(path))) return null;
  // For a principal with `files`, text naming no file of this machine goes on unasked (the hot
  // path: typing into a field); the driver answers a file input's missing file itself.
  if (session.files.files && !(await namesAFile(paths))) return null;
  const type = await session.ask('GET', `/element/${encodeURIComponent(elementId)}/property/type`, ASK_MS).catch(() => undefined);
  // Not a file input: the text is typed, not opened. Unknown: refused rather than guessed.
  if (typeof type === 'string' && type.toLowerCase() !== 'file') return null;
  if (type === undefined) return 'the upstream did not say what the element is, and a file input may get only files this session may reach';
  if (!session.files.files) {
    const foreign = paths.find((path) => !session.uploads.has(path))!;
    return `file ${foreign} is not this session's: a file input may get the files this session uploaded (/se/file); this principal may not reach the machine's other files`;
  }
  const machine = paths.filter((path) => !session.uploads.has(path));
  let copies: string[];
  try {
    copies = await filesForBrowser(machine, session.files);
  } catch (e) {
    if (e instanceof FileRefusal) return e.message;
    throw e;
  }
  const handed = paths.map((path) => (session.uploads.has(path) ? path : copies.shift()!));
  return handed.every((path, i) => path === paths[i]) ? null : { body: Buffer.from(JSON.stringify({ ...body, text: handed.join('\n') })) };
}

async function namesAFile(paths: string[]): Promise<boolean> {
  const found = await Promise.all(paths.map((path) => isAbsolute(path) && access(path).then(() => true, () => false)));
  return found.includes(true);
}

/** An upload's answer (the path the upstream stored the file at): the session's own from now on. */
export function rememberUpload(session: PassThroughSession, command: string, value: unknown): void {
  if (UPLOADS.has(command) && typeof value === 'string') session.uploads.add(value);
}

/** Selenium's upload (/se/file, and the older /file chromedriver serves: one command in the route table). */
export const UPLOADS = new Set(['uploadFile']);
