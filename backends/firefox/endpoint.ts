// A client's BiDi socket on a Firefox session, over its own channel of the process's one session
// (./hub.ts). The client is answered as a Firefox of its own would answer it: its session's user
// context is its `default` (named so in commands, reported so in results and events), another
// session's contexts and user contexts do not exist for it, commands that would reach the whole
// browser are scoped to the session (./scope.ts), its subscriptions are its own (with console
// messages kept for it until it subscribes, as Firefox keeps them), and an error keeps Firefox's
// code and message. What it subscribed to, added and intercepted goes when it goes; the Firefox
// session stays for the next client.
import type { BidiEndpoint } from '../backend.ts';
import { answerWithId, BidiError, type BidiMessage, type Channel, type TreeNode } from './hub.ts';
import { ClientOwnership } from './ownership.ts';
import { ClientScope, given, ids, type Params } from './scope.ts';
import { eventNames, InvalidArgument, knownEventName } from './subscriptions.ts';

/** What a client may add to the session, and how it is removed when the client goes. */
const OWN_CLEANUP: Record<string, (channel: Channel, id: string) => Promise<unknown>> = {
  'script.addPreloadScript': (channel, script) => channel.send('script.removePreloadScript', { script }),
  'network.addIntercept': (channel, intercept) => channel.send('network.removeIntercept', { intercept }),
  'network.addDataCollector': (channel, collector) => channel.send('network.removeDataCollector', { collector }),
};

/**
 * Console messages kept for a client not subscribed yet: 1000 a document (as Firefox's
 * ConsoleAPIStorage keeps them per window), and at most 8 MiB of them a session (the gateway's
 * memory serves every session), the oldest going first.
 */
const UNSENT_PER_DOCUMENT = 1000;
const UNSENT_CHARS = 8 * 1024 * 1024;

/** The session's classic side: told of the user contexts its client makes and removes (they are the session's). */
export interface SessionSide {
  gained(userContext: string): Promise<void>;
  lost(userContext: string): void;
  /** Whether the tab of a browsing context shows a prompt for credentials (./credentials.ts). */
  asksForCredentials(context: string): boolean;
}

/** A table's entry for a method a client named (never one of Object's own members). */
function entry<T>(table: Record<string, T>, method: string): T | undefined {
  return Object.hasOwn(table, method) ? table[method] : undefined;
}

export class FirefoxBidiEndpoint implements BidiEndpoint {
  readonly #channel: Channel;
  readonly #scope: ClientScope;
  readonly #ownership: ClientOwnership;
  #listener: (message: BidiMessage) => void = () => {};
  /** What the client added to the shared session (preload scripts, intercepts): removed at close. */
  readonly #added: (() => Promise<unknown>)[] = [];
  /**
   * Console messages its pages logged that the client was not sent (it had not subscribed), by
   * the realm of their document: a Firefox of its own keeps them and sends them once the client
   * subscribes (each message once; the gateway's own subscription already took them from Firefox).
   */
  readonly #unsent = new Map<string, { message: BidiMessage; size: number }[]>();
  /** Their size, as Firefox wrote them. */
  #unsentChars = 0;
  /** Contexts the client was told were created (by the event, or when it subscribed to it). */
  readonly #created = new Set<string>();
  /** Events that came while subscriptions were made: sent after what those subscriptions are first told. */
  #held: BidiMessage[] | undefined;
  #subscribing = 0;

  readonly #session: SessionSide | undefined;

  /** `ownBrowser`: no other session shares the browser (BidiOptions.ownBrowser). */
  constructor(channel: Channel, primary: string, ownBrowser: boolean, session?: SessionSide) {
    this.#channel = channel;
    this.#session = session;
    this.#scope = new ClientScope(channel, primary);
    this.#ownership = new ClientOwnership(channel, ownBrowser);
    channel.onEvent((message) => {
      if (message.method === 'browsingContext.contextCreated') this.#created.add(String((message.params as Params).context));
      if (message.method === 'browsingContext.contextDestroyed') this.#created.delete(String((message.params as Params).context));
      const told = this.#scope.event(message);
      if (this.#held) this.#held.push(told);
      else this.#listener(told);
    });
    channel.onUnwanted((message, size) => this.#keep(message, size));
  }

  onMessage(listener: (message: BidiMessage) => void): void {
    this.#listener = listener;
  }

  send(command: { id: number; method: string; params: Params }): void {
    void this.#run(command).then((answer) => this.#listener(answerWithId(answer, command.id)));
  }

  async #run({ method, params }: { id: number; method: string; params: Params }): Promise<BidiMessage> {
    try {
      if (method === 'session.subscribe') return { type: 'success', result: await this.#subscribe(params) };
      if (method === 'session.unsubscribe') return { type: 'success', result: await this.#unsubscribe(params) };
      const scoped = this.#scope.command(method, params);
      if (method === 'browsingContext.handleUserPrompt' && this.#promptsForCredentials(scoped)) {
        // Firefox's own answer for its prompt for credentials (the session shows it in its place).
        return { type: 'error', error: 'unsupported operation', message: 'Prompts of type "promptUserAndPass" are not supported' };
      }
      const decided = await this.#ownership.command(method, scoped);
      if (decided) return decided;
      // An answer that is neither reported otherwise nor tracked here goes on as Firefox wrote it.
      const passThrough = !entry(OWN_CLEANUP, method) && !entry(this.#trackers, method) && !this.#scope.reports(method);
      const answer = await this.#channel.send(method, scoped, passThrough);
      if (answer.type === 'success') this.#ownership.succeeded(method, (answer.result ?? {}) as Params, scoped);
      if (answer.type !== 'success' || passThrough) return answer;
      const result = (answer.result ?? {}) as Params;
      await this.#track(method, result, params);
      return { type: 'success', result: this.#scope.result(method, result, params) };
    } catch (e) {
      if (e instanceof BidiError || e instanceof InvalidArgument) return { type: 'error', error: e.error, message: e.message };
      return { type: 'error', error: 'unknown error', message: (e as Error).message };
    }
  }

  /** Whether a well-formed browsingContext.handleUserPrompt names a tab that asks for credentials. */
  #promptsForCredentials({ context, accept, userText }: Params): boolean {
    const wellFormed = typeof context === 'string' && (accept === undefined || typeof accept === 'boolean') && (userText === undefined || typeof userText === 'string');
    return wellFormed && this.#session?.asksForCredentials(context) === true;
  }

  /**
   * session.subscribe, checked as Firefox checks it (before anything is scoped), then for this
   * session only; console messages its pages logged before reach it first, as Firefox sends them.
   */
  async #subscribe(params: Params): Promise<Params> {
    const events = ids(params.events, 'events');
    const contexts = given(params.contexts) ? ids(params.contexts, 'contexts') : undefined;
    const userContexts = given(params.userContexts) ? ids(params.userContexts, 'userContexts') : undefined;
    if (contexts && userContexts) throw new InvalidArgument('Providing both "userContexts" and "contexts" arguments is not supported');
    for (const context of contexts ?? []) this.#scope.ownContext(context);
    const scope = { contexts, userContexts: userContexts?.map((u) => this.#scope.userContext(u)) };
    this.#subscribing++;
    this.#held ??= [];
    try {
      const subscription = await this.#channel.subscribe(events, scope);
      if (eventNames(events, (name) => !knownEventName(name)).has('browsingContext.contextCreated')) await this.#announceContexts();
      this.#sendUnsent();
      return { subscription };
    } finally {
      if (--this.#subscribing === 0) {
        const held = this.#held;
        this.#held = undefined;
        for (const message of held ?? []) this.#listener(message);
      }
    }
  }

  /**
   * A subscription to browsingContext.contextCreated is first told of the contexts that exist,
   * each once (Firefox sends a client of its own a contextCreated for each when it subscribes;
   * the gateway's own subscription means Firefox sends none here).
   */
  async #announceContexts(): Promise<void> {
    const hub = this.#channel.hub;
    const wanted = (context: string) => this.#channel.subscriptions.wants('browsingContext.contextCreated', hub.topLevel(context), hub.userContextOf(context));
    for (const context of this.#created) if (hub.userContextOf(context) === undefined) this.#created.delete(context);
    const { contexts } = await this.#channel.call<{ contexts: TreeNode[] }>('browsingContext.getTree', {});
    const announce = (nodes: TreeNode[] | null | undefined, parent: string | null) => {
      for (const { children, ...info } of nodes ?? []) {
        if (this.#channel.userContexts.has(info.userContext!) && !this.#created.has(info.context) && wanted(info.context)) {
          this.#created.add(info.context);
          const params = { context: info.context, children: null, originalOpener: info.originalOpener ?? null, url: info.url, userContext: info.userContext, clientWindow: info.clientWindow, parent };
          this.#listener(this.#scope.event({ type: 'event', method: 'browsingContext.contextCreated', params }));
        }
        announce(children, info.context);
      }
    };
    announce(contexts, null);
  }

  /** session.unsubscribe: by the ids this client was given, or (the older form) by event names. */
  async #unsubscribe(params: Params): Promise<Params> {
    const { subscriptions } = this.#channel;
    if (given(params.subscriptions)) {
      const list = ids(params.subscriptions, 'subscriptions');
      const unknown = subscriptions.unknown(list);
      if (unknown.length) throw new InvalidArgument(`Failed to unsubscribe from subscriptions with ids: ${list.join(', ')} (unknown ids: ${unknown.join(', ')})`);
      subscriptions.removeById(list);
    } else {
      const names = ids(params.events ?? null, 'events');
      const contexts = given(params.contexts) ? ids(params.contexts, 'contexts') : [];
      for (const context of contexts) this.#scope.ownContext(context);
      const events = eventNames(names, (name) => subscriptions.names(name));
      subscriptions.removeByAttributes(events, new Set(contexts.map((c) => this.#channel.hub.topLevel(c))));
    }
    await this.#channel.settle();
    return {};
  }

  /** A console message of this session's pages the client did not subscribe to: kept with its document. */
  #keep(message: BidiMessage, size: number): void {
    if (message.method !== 'log.entryAdded') return;
    const realm = ((message.params as Params | undefined)?.source as Params | undefined)?.realm;
    const hub = this.#channel.hub;
    // A document's messages go with it (as Firefox's go with its window).
    for (const gone of this.#unsent.keys()) if (hub.contextOfRealm(gone) === undefined) this.#forget(gone);
    if (typeof realm !== 'string' || hub.contextOfRealm(realm) === undefined) return;
    const kept = this.#unsent.get(realm) ?? [];
    this.#unsent.set(realm, kept);
    kept.push({ message, size });
    this.#unsentChars += size;
    if (kept.length > UNSENT_PER_DOCUMENT) this.#unsentChars -= kept.shift()!.size;
    // Over the budget: the oldest documents' oldest messages go.
    for (const [document, messages] of this.#unsent) {
      while (this.#unsentChars > UNSENT_CHARS && messages.length) this.#unsentChars -= messages.shift()!.size;
      if (!messages.length) this.#unsent.delete(document);
      if (this.#unsentChars <= UNSENT_CHARS) break;
    }
  }

  #forget(realm: string): void {
    for (const { size } of this.#unsent.get(realm) ?? []) this.#unsentChars -= size;
    this.#unsent.delete(realm);
  }

  /** Kept console messages the client's subscriptions now cover: sent, in the order they came. */
  #sendUnsent(): void {
    const hub = this.#channel.hub;
    for (const [realm, kept] of this.#unsent) {
      const context = hub.contextOfRealm(realm);
      if (context !== undefined && !this.#channel.subscriptions.wants('log.entryAdded', hub.topLevel(context), hub.userContextOf(context))) continue;
      this.#forget(realm);
      if (context !== undefined) for (const { message } of kept) this.#listener(message);
    }
  }

  /** Remember what the client added, to remove it when it goes. */
  async #track(method: string, result: Params, params: Params): Promise<void> {
    const cleanup = entry(OWN_CLEANUP, method);
    const id = Object.values(result).find((v) => typeof v === 'string');
    if (cleanup && typeof id === 'string') this.#added.push(() => cleanup(this.#channel, id));
    await entry(this.#trackers, method)?.(result, params);
  }

  /** Answers read here: user contexts the client made are its own. */
  readonly #trackers: Record<string, (result: Params, params: Params) => Promise<void> | void> = {
    'browser.createUserContext': async (result) => {
      if (typeof result.userContext !== 'string') return;
      const userContext = result.userContext;
      this.#added.push(() => this.#channel.send('browser.removeUserContext', { userContext }));
      // Its subscriptions for every context cover the new user context before the client hears
      // of it, and so do the session's classic commands' (Switch To Window reaches its tabs).
      await Promise.all([this.#channel.gainUserContext(userContext), this.#session?.gained(userContext)]);
    },
    'browser.removeUserContext': (_result, params) => {
      const userContext = this.#scope.userContext(params.userContext) as string;
      this.#channel.userContexts.delete(userContext);
      this.#session?.lost(userContext);
    },
  };

  /** The client went: what it left in the shared session goes; its windows stay with the session. */
  async close(): Promise<void> {
    this.#unsent.clear();
    this.#unsentChars = 0;
    this.#created.clear();
    await Promise.all(this.#added.splice(0).map((undo) => undo().catch(() => {})));
    await this.#channel.close();
  }
}
