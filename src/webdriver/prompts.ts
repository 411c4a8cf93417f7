// Spec §16 "User prompts": the session's user prompt handler and the current user prompt.
// The backend reports the dialogs a page opens; what happens to them is decided here:
// - alert, confirm and prompt stay open until a command deals with them ("handle any user
//   prompts" before most commands, or the four alert commands);
// - a beforeunload prompt is handled the moment it opens, with the handler for "beforeUnload"
//   (by default accept), so that a navigation it interrupts goes on (spec: beforeunload prompts
//   are handled implicitly upon navigation);
// - a command cut short because a prompt opened during it answers success with null (spec
//   Execute Script: "If at any point during the algorithm a user prompt appears, ... return
//   success with data null"; chromedriver does so for every command).
import type { UserPrompt } from '../../backends/backend.ts';
import { error } from './errors.ts';
import type { PromptHandlerConfig, Session } from './session.ts';

/** Spec "valid prompt types" (the user prompt handler map's keys). */
export type PromptType = 'alert' | 'beforeUnload' | 'confirm' | 'default' | 'file' | 'prompt';

/** Spec "prompt handler configuration". */
export interface PromptHandlerConfiguration {
  handler: 'accept' | 'dismiss' | 'ignore';
  notify: boolean;
}

/** A known prompt handler keyword as its configuration ("ignore" always notifies). */
function configuration(keyword: string): PromptHandlerConfiguration {
  switch (keyword) {
    case 'accept':
      return { handler: 'accept', notify: false };
    case 'accept and notify':
      return { handler: 'accept', notify: true };
    case 'dismiss':
      return { handler: 'dismiss', notify: false };
    case 'ignore':
      return { handler: 'ignore', notify: true };
    default: // "dismiss and notify"
      return { handler: 'dismiss', notify: true };
  }
}

/**
 * Spec "get the prompt handler". The string form of unhandledPromptBehavior is the map
 * {fallbackDefault: value}: it applies to every type but beforeUnload, which is accepted unless
 * the object form names it (or a "default").
 */
export function getPromptHandler(behavior: PromptHandlerConfig, type: PromptType): PromptHandlerConfiguration {
  const handlers: Record<string, string> = typeof behavior === 'string' ? { fallbackDefault: behavior } : behavior;
  if (handlers[type] !== undefined) return configuration(handlers[type]);
  if (handlers.default !== undefined) return configuration(handlers.default);
  if (type === 'beforeUnload') return { handler: 'accept', notify: false };
  if (handlers.fallbackDefault !== undefined) return configuration(handlers.fallbackDefault);
  return { handler: 'dismiss', notify: true };
}

/** The handler's type for a prompt: a request for credentials is none of the spec's, so "default" (as geckodriver has it). */
function promptType(prompt: UserPrompt): PromptType {
  if (prompt.type === 'credentials') return 'default';
  return prompt.type === 'beforeunload' ? 'beforeUnload' : prompt.type;
}

/**
 * Spec "user prompt message": null when empty. A beforeunload prompt has none: the browser shows
 * words of its own, never the page's (Chromium reports none, Firefox its own text).
 */
export function promptMessage(prompt: UserPrompt): string | null {
  return prompt.type === 'beforeunload' || prompt.message === '' ? null : prompt.message;
}

/** Text given by Send Alert Text, per open prompt: what accepting it answers. */
const promptText = new WeakMap<UserPrompt, string>();

/** Spec: accept or dismiss the current user prompt of the window. */
export async function closePrompt(session: Session, handle: string, prompt: UserPrompt, accept: boolean): Promise<void> {
  await session.browser.handleUserPrompt(handle, accept, accept ? promptText.get(prompt) : undefined);
}

/** Spec Send Alert Text: "set the value of the current user prompt's text field". */
export function setPromptText(prompt: UserPrompt, text: string): void {
  promptText.set(prompt, text);
}

/** Spec "annotated unexpected alert open error" (the message as chromedriver words it). */
function unexpectedAlertOpen(prompt: UserPrompt): never {
  const text = promptMessage(prompt);
  throw error('unexpected alert open', `unexpected alert open: {Alert text : ${text ?? ''}}`, { data: { text } });
}

/**
 * Spec "handle any user prompts", run before the steps of every command that says so (the
 * command's `handlesUserPrompts` flag). The current user prompt is that of the current
 * top-level browsing context; a closed window has none (the command reports no such window).
 */
export async function handleAnyUserPrompts(session: Session): Promise<void> {
  const handle = session.currentWindow;
  if (handle === null) return;
  const prompt = await session.browser.userPrompt(handle);
  if (!prompt) return;
  const { handler, notify } = getPromptHandler(session.unhandledPromptBehavior, promptType(prompt));
  if (handler !== 'ignore') await closePrompt(session, handle, prompt, handler === 'accept');
  if (notify) unexpectedAlertOpen(prompt);
}

/** The current user prompt for the alert commands: `no such window`, else `no such alert`. */
export async function currentUserPrompt(session: Session): Promise<{ handle: string; prompt: UserPrompt }> {
  const handle = await session.currentTopLevel();
  const prompt = await session.browser.userPrompt(handle);
  if (!prompt) throw error('no such alert', 'no user prompt is open');
  return { handle, prompt };
}

/**
 * From session start: a beforeunload prompt is handled as it opens, with the session's handler
 * for beforeUnload ("ignore" leaves it to the alert commands). The navigation or window close
 * that raised it then goes on, or is cancelled, without anyone waiting on the prompt.
 */
export function watchUserPrompts(session: Session): void {
  session.browser.onUserPromptOpened(async (handle, prompt) => {
    if (session.ended) return;
    session.log.debug({ event: 'user prompt opened', sessionId: session.id, window: handle, type: prompt.type });
    if (prompt.type !== 'beforeunload') return;
    const { handler } = getPromptHandler(session.unhandledPromptBehavior, 'beforeUnload');
    if (handler !== 'ignore') await closePrompt(session, handle, prompt, handler === 'accept');
  });
}
