// Whether what a command types goes into a password field, asked right before it runs (the seam
// hides the text from every observer when it does). A driven session asks its page; a forwarded
// Send Keys asks the upstream for the element's type; what cannot be asked (a pass-through
// session's key actions, a frame of another origin holding the focus) counts as unknown.
import type { PendingCommand } from './seam.ts';
import type { Session } from './session.ts';
import type { PassThroughSession } from './pass-through.ts';
import { callAtom } from './page/index.ts';

/** An answer within this, or the text is hidden (the command itself is not held up longer). */
const ASK_BOUND_MS = 2000;

/**
 * Whether the focused element (through shadow roots and same-origin frames) of the context's
 * document is a password field; null when a frame of another origin has the focus.
 */
export const FOCUSED_PASSWORD = `function () {
  let el = document.activeElement;
  for (;;) {
    if (el && el.shadowRoot && el.shadowRoot.activeElement) { el = el.shadowRoot.activeElement; continue; }
    if (el && (el.localName === 'iframe' || el.localName === 'frame')) {
      let inner = null;
      try { inner = el.contentDocument && el.contentDocument.activeElement; } catch (e) { return null; }
      if (!inner) return null;
      if (inner.localName === 'body') break;
      el = inner;
      continue;
    }
    break;
  }
  return !!el && el.localName === 'input' && String(el.type).toLowerCase() === 'password';
}`;

export async function typesIntoPassword(session: Session | PassThroughSession, command: PendingCommand): Promise<boolean | 'unknown'> {
  return bounded(session.kind === 'driven' ? inPage(session, command) : upstream(session, command));
}

async function inPage(session: Session, { name, urlParams, params }: PendingCommand): Promise<boolean | 'unknown'> {
  if (name === 'elementSendKeys') {
    const type = await callAtom<unknown>(session, 'getElementProperty', { id: urlParams.elementId, name: 'type' });
    return typeof type === 'string' && type.toLowerCase() === 'password';
  }
  // Key actions type into whatever has the focus: classic in the current browsing context, BiDi
  // in the one the message names (a top-level one; a frame's id is not a window here: unknown).
  const window = name === 'input.performActions' ? (params as { context?: unknown }).context : session.currentWindow;
  if (typeof window !== 'string') return 'unknown';
  const frames = name === 'input.performActions' ? [] : session.frames;
  const focused = await session.browser.callFunction({ window, frames }, FOCUSED_PASSWORD, []);
  return focused === null ? 'unknown' : focused === true;
}

async function upstream(session: PassThroughSession, { name, urlParams }: PendingCommand): Promise<boolean | 'unknown'> {
  if (name !== 'elementSendKeys' || !urlParams.elementId) return 'unknown';
  const type = await session.ask('GET', `/element/${encodeURIComponent(urlParams.elementId)}/property/type`, ASK_BOUND_MS);
  return typeof type === 'string' ? type.toLowerCase() === 'password' : 'unknown';
}

async function bounded(asking: Promise<boolean | 'unknown'>): Promise<boolean | 'unknown'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'unknown'>((resolve) => (timer = setTimeout(() => resolve('unknown'), ASK_BOUND_MS)));
  try {
    return await Promise.race([asking.catch(() => 'unknown' as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
