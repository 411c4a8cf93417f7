// A client's BiDi socket on a Firefox session, over its own channel of the process's one session
// (./hub.ts). The client sees and touches only its session's user contexts: commands naming
// another context are refused as the spec refuses unknown ones, commands that would reach the
// whole browser are scoped to the session's user contexts, and replies that list contexts,
// realms or user contexts are filtered. What it subscribed to, added and intercepted goes when
// it goes; the Firefox session stays for the next client.
import type { BidiEndpoint } from '../backend.ts';
import { answerWithId, type BidiMessage, type Channel } from './hub.ts';

type Params = Record<string, unknown>;

/** A refusal answered without asking Firefox. */
class Refused extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a client may add to the session, and how it is removed when the client goes. */
const OWN_CLEANUP: Record<string, (channel: Channel, id: string) => Promise<unknown>> = {
  'script.addPreloadScript': (channel, script) => channel.send('script.removePreloadScript', { script }),
  'network.addIntercept': (channel, intercept) => channel.send('network.removeIntercept', { intercept }),
  'network.addDataCollector': (channel, collector) => channel.send('network.removeDataCollector', { collector }),
};

/** A table's entry for a method a client named (never one of Object's own members). */
function entry<T>(table: Record<string, T>, method: string): T | undefined {
  return Object.hasOwn(table, method) ? table[method] : undefined;
}

export class FirefoxBidiEndpoint implements BidiEndpoint {
  readonly #channel: Channel;
  /** The user context the session was opened with (where its windows are created by default). */
  readonly #primary: string;
  #listener: (message: BidiMessage) => void = () => {};
  /** What the client added to the shared session (preload scripts, intercepts): removed at close. */
  readonly #added: (() => Promise<unknown>)[] = [];

  constructor(channel: Channel, primary: string) {
    this.#channel = channel;
    this.#primary = primary;
    channel.onEvent((message) => this.#listener(message));
  }

  onMessage(listener: (message: BidiMessage) => void): void {
    this.#listener = listener;
  }

  send(command: { id: number; method: string; params: Params }): void {
    void this.#run(command).then((answer) => this.#listener(answerWithId(answer, command.id)));
  }

  async #run({ method, params }: { id: number; method: string; params: Params }): Promise<BidiMessage> {
    try {
      const scoped = this.#scope(method, params);
      if (method === 'session.subscribe') return { type: 'success', result: await this.#subscribe(scoped) };
      if (method === 'session.unsubscribe') return await this.#unsubscribe(scoped);
      // An answer that is neither filtered nor tracked here goes on as Firefox wrote it.
      const passThrough = !entry(OWN_CLEANUP, method) && !entry(this.#trackers, method) && !entry(this.#filters, method);
      const answer = await this.#channel.send(method, scoped, passThrough);
      if (answer.type !== 'success' || passThrough) return answer;
      const result = (answer.result ?? {}) as Params;
      this.#track(method, result, params);
      return { type: 'success', result: entry(this.#filters, method)?.(result) ?? result };
    } catch (e) {
      if (e instanceof Refused) return { type: 'error', error: e.error, message: e.message };
      return { type: 'error', error: 'unknown error', message: (e as Error).message };
    }
  }

  #ownContext(context: unknown, what = 'context'): void {
    if (typeof context !== 'string') return; // the engine answers malformed parameters itself
    const userContext = this.#channel.hub.userContextOf(context);
    if (userContext === undefined || !this.#channel.userContexts.has(userContext)) throw new Refused('no such frame', `${what} ${context} not found`);
  }

  #ownUserContext(userContext: unknown): void {
    if (typeof userContext === 'string' && !this.#channel.userContexts.has(userContext)) throw new Refused('no such user context', `user context ${userContext} not found`);
  }

  /** The command as Firefox gets it: checked against the session's contexts, and scoped to them. */
  #scope(method: string, params: Params): Params {
    this.#ownContext(params.context);
    this.#ownContext(params.referenceContext, 'reference context');
    this.#ownContext(params.root, 'root context');
    const target = params.target as Params | undefined;
    if (target) {
      this.#ownContext(target.context);
      if (typeof target.realm === 'string') this.#ownContext(this.#channel.hub.contextOfRealm(target.realm) ?? `realm ${target.realm}`, 'realm of');
    }
    if (Array.isArray(params.contexts)) for (const context of params.contexts) this.#ownContext(context);
    if (Array.isArray(params.userContexts)) for (const userContext of params.userContexts) this.#ownUserContext(userContext);
    this.#ownUserContext(params.userContext);
    const partition = params.partition as Params | undefined;
    if (partition) {
      this.#ownContext(partition.context);
      this.#ownUserContext(partition.userContext);
    }
    const mine = [...this.#channel.userContexts];
    switch (method) {
      case 'browsingContext.create':
        return params.userContext === undefined ? { ...params, userContext: this.#primary } : params;
      case 'browser.removeUserContext':
        if (params.userContext === this.#primary) throw new Refused('invalid argument', "the session's own user context is removed with the session");
        return params;
      case 'storage.getCookies':
      case 'storage.setCookie':
      case 'storage.deleteCookies':
        return partition?.context !== undefined || partition?.userContext !== undefined ? params : { ...params, partition: { ...partition, type: 'storageKey', userContext: this.#primary } };
      case 'network.addIntercept':
        // An intercept of the whole browser would hold every session's requests: this session's windows.
        return params.contexts !== undefined ? params : { ...params, contexts: this.#topLevelContexts() };
      case 'script.addPreloadScript':
      case 'browser.setDownloadBehavior':
      case 'emulation.setGeolocationOverride':
      case 'emulation.setLocaleOverride':
      case 'emulation.setTimezoneOverride':
      case 'emulation.setScreenOrientationOverride':
      case 'emulation.setUserAgentOverride':
      case 'emulation.setNetworkConditions':
      case 'browsingContext.setViewport':
      case 'network.setCacheBehavior':
      case 'network.setExtraHeaders':
        return params.contexts !== undefined || params.userContexts !== undefined || params.context !== undefined ? params : { ...params, userContexts: mine };
    }
    return params;
  }

  #topLevelContexts(): string[] {
    return [...this.#channel.userContexts].flatMap((userContext) => this.#channel.hub.topLevelContexts(userContext));
  }

  async #subscribe(params: Params): Promise<Params> {
    if (!Array.isArray(params.events) || !params.events.every((e) => typeof e === 'string')) throw new Refused('invalid argument', 'events must be a list of event names');
    if (params.contexts !== undefined && params.userContexts !== undefined) throw new Refused('invalid argument', 'contexts and userContexts cannot be given together');
    const contexts = Array.isArray(params.contexts) ? (params.contexts as string[]) : undefined;
    if (Array.isArray(params.userContexts)) {
      // Scoped further than the session: a channel-wide subscription still filters by user context.
      const subscription = await this.#channel.call<{ subscription: string }>('session.subscribe', params);
      this.#channel.subscriptions.set(subscription.subscription, { id: subscription.subscription, events: params.events as string[] });
      return subscription;
    }
    return { subscription: await this.#channel.subscribe(params.events as string[], contexts) };
  }

  async #unsubscribe(params: Params): Promise<BidiMessage> {
    if (Array.isArray(params.subscriptions)) {
      const ids = params.subscriptions as string[];
      const foreign = ids.find((id) => !this.#channel.subscriptions.has(id));
      if (foreign !== undefined) throw new Refused('invalid argument', `no such subscription: ${foreign}`);
      const answer = await this.#channel.send('session.unsubscribe', { subscriptions: ids });
      if (answer.type === 'success') for (const id of ids) this.#channel.subscriptions.delete(id);
      return answer;
    }
    if (!Array.isArray(params.events)) throw new Refused('invalid argument', 'subscriptions must be a list of subscription ids');
    // By event names (the older form): those events leave every subscription of the client that
    // has them; the rest of such a subscription stays (subscribed again without them).
    const names = params.events as string[];
    const named = (event: string) => names.some((name) => event === name || event.startsWith(`${name}.`));
    const touched = [...this.#channel.subscriptions.values()].filter((s) => s.events.some(named));
    if (touched.length === 0) throw new Refused('invalid argument', `not subscribed to ${names.join(', ')}`);
    const answer = await this.#channel.send('session.unsubscribe', { subscriptions: touched.map((s) => s.id) });
    if (answer.type !== 'success') return answer;
    for (const subscription of touched) {
      this.#channel.subscriptions.delete(subscription.id);
      const rest = subscription.events.filter((event) => !named(event));
      if (rest.length) await this.#channel.subscribe(rest, subscription.contexts);
    }
    return answer;
  }

  /** Remember what the client added, to remove it when it goes. */
  #track(method: string, result: Params, params: Params): void {
    const cleanup = entry(OWN_CLEANUP, method);
    const id = Object.values(result).find((v) => typeof v === 'string');
    if (cleanup && typeof id === 'string') this.#added.push(() => cleanup(this.#channel, id));
    entry(this.#trackers, method)?.(result, params);
  }

  /** Answers read here: user contexts the client made are its own. */
  readonly #trackers: Record<string, (result: Params, params: Params) => void> = {
    'browser.createUserContext': (result) => {
      if (typeof result.userContext !== 'string') return;
      const userContext = result.userContext;
      this.#channel.userContexts.add(userContext);
      this.#added.push(() => this.#channel.send('browser.removeUserContext', { userContext }));
    },
    'browser.removeUserContext': (_result, params) => void this.#channel.userContexts.delete(params.userContext as string),
  };

  /** Replies that list what the whole browser has: only this session's part. */
  readonly #filters: Record<string, (result: Params) => Params> = {
    'browsingContext.getTree': (result) => ({
      ...result,
      contexts: ((result.contexts ?? []) as { userContext?: string }[]).filter((c) => c.userContext === undefined || this.#channel.userContexts.has(c.userContext)),
    }),
    'browser.getUserContexts': (result) => ({
      ...result,
      userContexts: ((result.userContexts ?? []) as { userContext: string }[]).filter((u) => this.#channel.userContexts.has(u.userContext)),
    }),
    'script.getRealms': (result) => ({
      ...result,
      realms: ((result.realms ?? []) as { context?: string }[]).filter((r) => {
        const userContext = r.context === undefined ? undefined : this.#channel.hub.userContextOf(r.context);
        return userContext !== undefined && this.#channel.userContexts.has(userContext);
      }),
    }),
    'browser.getClientWindows': (result) => {
      const windows = new Set(this.#topLevelContexts().map((c) => this.#channel.hub.clientWindowOf(c)));
      return { ...result, clientWindows: ((result.clientWindows ?? []) as { clientWindow: string }[]).filter((w) => windows.has(w.clientWindow)) };
    },
  };

  /** The client went: what it left in the shared session goes; its windows stay with the session. */
  async close(): Promise<void> {
    await Promise.all(this.#added.splice(0).map((undo) => undo().catch(() => {})));
    await this.#channel.close();
  }
}
