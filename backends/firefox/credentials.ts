// Firefox's prompt for a user name and password (HTTP authentication), as a user prompt of the
// session. Firefox shows its prompt in the tab, which geckodriver treats as a user prompt of the
// "default" type (Marionette: Navigate To answers once it opens, Get Alert Text tells its words,
// Dismiss Alert cancels and the 401 page loads, Accept Alert sends no name and password). Here
// the prompt is never Firefox's: the hub holds every request for credentials (./hub.ts), and the
// session's window shows this one in its place, answered over BiDi (network.continueWithAuth).
import type { UserPrompt } from '../backend.ts';
import type { Channel, CredentialsRequest } from './channel.ts';

/**
 * Firefox shows a tab at most this many prompts for credentials of one site it was not given a
 * name or password in (prompts.authentication_dialog_abuse_limit; LoginManagerAuthPrompter's
 * PromptAbuseHelper): past it, the request is cancelled without one.
 */
const PROMPTS_PER_SITE = 2;

/** The requests for credentials of a session's windows, and the prompts that stand for them. */
export class CredentialsPrompts<W extends object> {
  readonly #channel: Channel;
  /** The requests the prompt a window shows stands for (Firefox answers them all with it). */
  readonly #waiting = new WeakMap<W, CredentialsRequest[]>();
  /**
   * The prompts each window showed, by site. Firefox counts by the site's registrable domain
   * (eTLD+1); here by host name (sites of several host names are counted apart).
   */
  readonly #shown = new WeakMap<W, Map<string, number>>();

  constructor(channel: Channel) {
    this.#channel = channel;
  }

  /**
   * A request for credentials in `window` (whose document is at `pageUrl`): it joins the prompt
   * the window shows, or a prompt opens (`open` shows it; its answer answers the requests it
   * stands for), or past the limit it is cancelled.
   */
  add(window: W, request: CredentialsRequest, pageUrl: string | undefined, open: (prompt: UserPrompt, answer: (accept: boolean) => Promise<boolean>) => void): void {
    const waiting = this.#waiting.get(window);
    if (waiting) return void waiting.push(request);
    if (!this.#allows(window, request.request.url)) return void this.#answer(request, false);
    const requests = [request];
    this.#waiting.set(window, requests);
    open(credentialsPrompt(request, pageUrl), async (accept) => {
      if (this.#waiting.get(window) === requests) this.#waiting.delete(window);
      const [first] = await Promise.all(requests.map((r) => this.#answer(r, accept)));
      return first!.type === 'success';
    });
  }

  /** The window's prompt went with its page (another navigation began): what it stood for is cancelled. */
  drop(window: W): void {
    const requests = this.#waiting.get(window) ?? [];
    this.#waiting.delete(window);
    for (const request of requests) void this.#answer(request, false);
  }

  /** Cancel a request no window shows. */
  cancel(request: CredentialsRequest): void {
    void this.#answer(request, false);
  }

  /** Whether `window` may show one more prompt for a request of `url` (then it counts). */
  #allows(window: W, url: string): boolean {
    const site = safeUrl(url)?.hostname ?? url;
    const shown = this.#shown.get(window) ?? new Map<string, number>();
    this.#shown.set(window, shown);
    const count = shown.get(site) ?? 0;
    if (count >= PROMPTS_PER_SITE) return false;
    shown.set(site, count + 1);
    return true;
  }

  /**
   * Answer a request as its prompt was: accepted, with an empty name and password (what its OK
   * sends with nothing typed: a server that wants a name asks again); dismissed, cancelled.
   */
  #answer({ request }: CredentialsRequest, accept: boolean): Promise<Record<string, unknown>> {
    const credentials = { type: 'password', username: '', password: '' };
    return this.#channel.send('network.continueWithAuth', accept ? { request: request.request, action: 'provideCredentials', credentials } : { request: request.request, action: 'cancel' });
  }
}

/**
 * The prompt, in Firefox's words (Prompter.sys.mjs makeAuthMessage, en-US, for its tab-modal
 * prompt): a request of another origin than the page's (a frame's, a script's) names where the
 * credentials would go. A proxy's (407) would name the proxy, which no event tells: the same words.
 */
function credentialsPrompt({ request }: CredentialsRequest, pageUrl: string | undefined): UserPrompt {
  const target = safeUrl(request.url);
  const page = pageUrl === undefined ? undefined : safeUrl(pageUrl);
  const crossOrigin = request.destination !== 'document' && target !== undefined && page !== undefined && target.origin !== page.origin;
  const message = crossOrigin
    ? `This site is asking you to sign in. Warning: Your login information will be shared with ${target.host}, not the website you are currently visiting.`
    : 'This site is asking you to sign in.';
  return { type: 'credentials', message, defaultValue: '' };
}

function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
