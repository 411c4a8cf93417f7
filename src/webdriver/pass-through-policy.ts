// What a pass-through session may ask its upstream (backends/policy/ for driven sessions): a
// navigation stays on the web unless its principal may reach the machine's files; and on a
// driver the gateway runs on its own machine (chromedriver, WebKitWebDriver), a file input gets
// only files the session uploaded there (the paths the driver answered its uploads with), so that
// a Send Keys cannot hand a page the gateway machine's files.
import { navigationRefusal } from '../../backends/policy/index.ts';
import type { PassThroughSession } from './pass-through.ts';

/** How long the upstream is given to say what an element is. */
const ASK_MS = 2000;

/**
 * Why this forwarded command may not go upstream, or null; a promise when the upstream must be
 * asked first (an element's type). `params`: the request's body as JSON, if it is.
 */
export function passThroughRefusal(session: PassThroughSession, command: string, urlParams: Record<string, string>, params: unknown): string | null | Promise<string | null> {
  const body = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
  if (command === 'navigateTo' && typeof body.url === 'string') return navigationRefusal(body.url, session);
  if (command === 'elementSendKeys' && session.upstream.onThisMachine && !session.files && typeof body.text === 'string') {
    return fileInputRefusal(session, urlParams.elementId!, body.text);
  }
  return null;
}

async function fileInputRefusal(session: PassThroughSession, elementId: string, text: string): Promise<string | null> {
  const type = await session.ask('GET', `/element/${encodeURIComponent(elementId)}/property/type`, ASK_MS).catch(() => undefined);
  // Not a file input: the text is typed, not opened. Unknown: refused rather than guessed.
  if (typeof type === 'string' && type.toLowerCase() !== 'file') return null;
  const paths = text.split('\n').map((line) => line.replace(/\r$/, ''));
  const foreign = paths.find((path) => !session.uploads.has(path));
  if (foreign === undefined) return null;
  return type === undefined
    ? 'the upstream did not say what the element is, and a file input may get only files this session uploaded'
    : `file ${foreign} is not this session's: a file input may get the files this session uploaded (/se/file); this principal may not reach the machine's other files`;
}

/** An upload's answer (the path the upstream stored the file at): the session's own from now on. */
export function rememberUpload(session: PassThroughSession, command: string, value: unknown): void {
  if (UPLOADS.has(command) && typeof value === 'string') session.uploads.add(value);
}

/** Selenium's upload (/se/file, and the older /file chromedriver serves: one command in the route table). */
export const UPLOADS = new Set(['uploadFile']);
