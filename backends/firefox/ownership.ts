// What a client may name in the Firefox session it shares with other sessions (./hub.ts) beyond
// browsing contexts (./scope.ts): its own blocked requests, the network data its own collectors
// kept, its own intercepts, collectors and preload scripts. Another session's do not exist for it:
// a command naming one is answered as Firefox answers an id it never gave, never carried out. To
// word that answer as Firefox does, and check every other parameter as it does first, Firefox is
// asked the same command with an id nobody has. An extension would reach every session of the
// browser: installed only by a session that has its browser to itself.
import { BidiError, RecentIds, type BidiMessage, type Channel, type CredentialsRequest } from './channel.ts';
import type { Params } from './scope.ts';

/** An id Firefox never gives (its ids are numbers and UUIDs): what a command naming another session's thing is asked with. */
const NOBODYS = 'wdgate-nobodys';

/** Commands on a blocked request: `no such request` unless it is blocked (BiDi §7.4.3, e.g. "network.continueRequest"). */
const ON_BLOCKED = new Set(['network.continueRequest', 'network.continueResponse', 'network.continueWithAuth', 'network.failRequest', 'network.provideResponse']);

export class ClientOwnership {
  readonly #channel: Channel;
  /** The session's browser serves no other session (BidiOptions.ownBrowser). */
  readonly #ownBrowser: boolean;
  readonly #collectors = new Set<string>();
  readonly #scripts = new Set<string>();

  constructor(channel: Channel, ownBrowser: boolean) {
    this.#channel = channel;
    this.#ownBrowser = ownBrowser;
  }

  /**
   * The answer to a command that names what is not the client's (as Firefox answers an unknown
   * id), or that this decides itself; undefined when the command goes to Firefox as it is.
   */
  async command(method: string, params: Params): Promise<BidiMessage | undefined> {
    if (ON_BLOCKED.has(method)) {
      if (!this.#mine(this.#channel.blocked, params.request)) return this.#asNobodys(method, params, 'request');
      return method === 'network.continueWithAuth' && params.action === 'default' ? this.#byDefault(params.request as string) : undefined;
    }
    switch (method) {
      case 'network.removeIntercept':
        return this.#mine(this.#channel.intercepts, params.intercept) ? undefined : this.#asNobodys(method, params, 'intercept');
      case 'network.removeDataCollector':
        return this.#mine(this.#collectors, params.collector) ? undefined : this.#asNobodys(method, params, 'collector');
      case 'script.removePreloadScript':
        return this.#mine(this.#scripts, params.script) ? undefined : this.#asNobodys(method, params, 'script');
      case 'network.getData':
      case 'network.disownData':
        return this.#collected(method, params);
      case 'webExtension.install':
        if (this.#ownBrowser) return undefined;
        throw new BidiError(
          'unsupported operation',
          'webExtension.install: this session shares its Firefox with other sessions, and an extension would reach them all; a session with a browser of its own (wdgate:options.ownBrowser: true) may install one',
        );
      case 'webExtension.uninstall':
        // Sharing its browser, it installed none.
        return this.#ownBrowser ? undefined : this.#asNobodys(method, params, 'extension');
      default:
        return undefined;
    }
  }

  /** A command of the client succeeded: what it added is its own, what it removed no longer. */
  succeeded(method: string, result: Params, params: Params): void {
    const id = (key: string) => (typeof result[key] === 'string' ? (result[key] as string) : undefined);
    switch (method) {
      case 'network.addIntercept':
        if (id('intercept')) this.#channel.intercepts.add(id('intercept')!);
        break;
      case 'network.addDataCollector':
        if (id('collector')) this.#collectors.add(id('collector')!);
        // From now on its requests are told apart from other sessions' (its data is of those).
        this.#channel.requests ??= new RecentIds();
        break;
      case 'script.addPreloadScript':
        if (id('script')) this.#scripts.add(id('script')!);
        break;
      case 'network.removeIntercept':
        this.#channel.intercepts.delete(params.intercept as string);
        break;
      case 'network.removeDataCollector':
        this.#collectors.delete(params.collector as string);
        // With its last collector its data went (Firefox keeps data while a collector has it).
        if (this.#collectors.size === 0) this.#channel.requests = undefined;
        break;
      case 'script.removePreloadScript':
        this.#scripts.delete(params.script as string);
        break;
      default:
        if (ON_BLOCKED.has(method)) this.#channel.blocked.delete(params.request as string);
    }
  }

  /**
   * network.continueWithAuth with action "default" on a request held for credentials: Firefox
   * would show its own prompt, which nothing can answer here; the session shows it as its user
   * prompt instead (BidiHub.promptForCredentials). Firefox answers such a command with success.
   */
  #byDefault(request: string): BidiMessage | undefined {
    const blocked = this.#channel.blocked.get(request);
    if (blocked?.event.method !== 'network.authRequired') return undefined; // another phase: Firefox answers
    this.#channel.blocked.delete(request);
    this.#channel.hub.promptForCredentials(blocked.event.params as CredentialsRequest);
    return { type: 'success', result: {} };
  }

  /** Whether `id` is among the client's own (a malformed one goes to Firefox, which refuses it). */
  #mine(own: { has(id: string): boolean }, id: unknown): boolean {
    return typeof id !== 'string' || own.has(id);
  }

  /** The command asked of Firefox with `key` naming nobody's: its answer, as about the id the client named. */
  async #asNobodys(method: string, params: Params, key: string): Promise<BidiMessage> {
    const named = String(params[key]);
    const answer = await this.#channel.send(method, { ...params, [key]: NOBODYS });
    if (answer.type !== 'error') return { type: 'error', error: 'unknown error', message: `${method} went on with an id nobody has` };
    return { ...answer, message: String(answer.message ?? '').split(NOBODYS).join(named) };
  }

  /**
   * network.getData, network.disownData: only of the client's own requests, by its own
   * collectors. Which requests are its own is known from their events (Channel.requests): a
   * response is kept only where its responseCompleted is listened for, and Firefox makes any
   * getData of a response it has not kept yet wait, another session's too.
   */
  async #collected(method: string, params: Params): Promise<BidiMessage | undefined> {
    const { collector, request } = params;
    if (collector !== undefined && collector !== null && !this.#mine(this.#collectors, collector)) return this.#asNobodys(method, params, 'collector');
    if (typeof request === 'string' && !this.#channel.requests?.has(request)) return this.#asNobodys(method, params, 'request');
    return undefined;
  }
}
