// What a client names and what it is told, between it and the Firefox session it shares (./hub.ts).
// Its session's user context is its `default` (a Firefox of its own names its first user context
// so); contexts, user contexts and client windows of other sessions do not exist for it; a command
// that would reach the whole browser is scoped to the session. A parameter rewritten to scope it
// is checked first, as Firefox checks it (in Firefox's words): a malformed one is invalid argument.
import { BidiError, type BidiMessage, type Channel } from './hub.ts';
import { InvalidArgument } from './subscriptions.ts';

export type Params = Record<string, unknown>;

/** What a client calls its own session's user context. */
const DEFAULT = 'default';

/** Given, as Firefox reads an optional parameter whose default is null. */
export const given = (value: unknown): boolean => value !== undefined && value !== null;

/** How Firefox shows a value in a message (its pprint): `[object Array] []`. */
function pprint(value: unknown): string {
  return `${Object.prototype.toString.call(value)} ${JSON.stringify(value)}`;
}

/** A list of ids, checked as Firefox checks one (a non-empty array of strings); the list. */
export function ids(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || value.length === 0) throw new InvalidArgument(`Expected "${name}" to be a non-empty array, got ${pprint(value)}`);
  for (const item of value) if (typeof item !== 'string') throw new InvalidArgument(`Expected elements of "${name}" to be a string, got ${pprint(item)}`);
  return value as string[];
}

/**
 * Commands that act on the whole browser unless given a scope (which parameters are one), and
 * the scope the gateway gives them: the session's user contexts, or its windows for commands
 * that take only `contexts`. `nullIsAbsent`: Firefox reads null as not given (else it refuses
 * null). Commands Firefox refuses without a scope (the other emulation overrides, setViewport)
 * are left to refuse. A network intercept without `contexts` stays the browser's, so that it
 * covers the windows the session opens later: it blocks only what its session is told it
 * blocked (./channel.ts Channel#blocking).
 */
const UNSCOPED_IS_GLOBAL: Record<string, { keys: string[]; nullIsAbsent: boolean; scope: 'userContexts' | 'contexts' }> = {
  'script.addPreloadScript': { keys: ['contexts', 'userContexts'], nullIsAbsent: true, scope: 'userContexts' },
  'network.addDataCollector': { keys: ['contexts', 'userContexts'], nullIsAbsent: true, scope: 'userContexts' },
  'network.setCacheBehavior': { keys: ['contexts'], nullIsAbsent: true, scope: 'contexts' },
  'network.setExtraHeaders': { keys: ['contexts', 'userContexts'], nullIsAbsent: false, scope: 'userContexts' },
  'browser.setDownloadBehavior': { keys: ['userContexts'], nullIsAbsent: false, scope: 'userContexts' },
  'emulation.setNetworkConditions': { keys: ['contexts', 'userContexts'], nullIsAbsent: false, scope: 'userContexts' },
  'emulation.setUserAgentOverride': { keys: ['contexts', 'userContexts'], nullIsAbsent: false, scope: 'userContexts' },
};

/** Commands whose `userContext`, when not given, is the browser's default one: the session's. */
const DEFAULT_USER_CONTEXT = new Set(['browsingContext.create', 'permissions.setPermission']);

/** Commands on a cookie store (`partition`, the default store when not given). */
const STORAGE = new Set(['storage.getCookies', 'storage.setCookie', 'storage.deleteCookies']);

function entry<T>(table: Record<string, T>, method: string): T | undefined {
  return Object.hasOwn(table, method) ? table[method] : undefined;
}

export class ClientScope {
  readonly #channel: Channel;
  /** The user context the session was opened with: the client's `default`. */
  readonly #primary: string;

  constructor(channel: Channel, primary: string) {
    this.#channel = channel;
    this.#primary = primary;
  }

  /** A browsing context the client named: refused unless its session's (another's does not exist for it). */
  ownContext(context: unknown): void {
    if (typeof context !== 'string') return; // Firefox answers a malformed one itself
    if (!this.#owns(context)) throw new BidiError('no such frame', `Browsing Context with id ${context} not found`);
  }

  #owns(context: string | undefined): boolean {
    const userContext = context === undefined ? undefined : this.#channel.hub.userContextOf(context);
    return userContext !== undefined && this.#channel.userContexts.has(userContext);
  }

  /** Whether a realm is of the session's user contexts (a worker's too: by its owner). */
  #ownsRealm(realm: string): boolean {
    const userContext = this.#channel.hub.userContextOfRealm(realm);
    return userContext !== undefined && this.#channel.userContexts.has(userContext);
  }

  /** A user context the client named, as the shared session knows it (`default`: the session's). */
  userContext<T>(userContext: T): T | string {
    if (typeof userContext !== 'string') return userContext; // Firefox answers a malformed one itself
    if (userContext === DEFAULT) return this.#primary;
    if (!this.#channel.userContexts.has(userContext)) throw new BidiError('no such user context', `User context with id: ${userContext} doesn't exist`);
    return userContext;
  }

  /** A user context as the client is told it. */
  reported(userContext: unknown): unknown {
    return userContext === this.#primary ? DEFAULT : userContext;
  }

  /** The command as Firefox gets it: checked against the session's contexts, scoped to them. */
  command(method: string, params: Params): Params {
    this.ownContext(params.context);
    this.ownContext(params.referenceContext);
    this.ownContext(params.root);
    const target = params.target as Params | undefined;
    if (target && typeof target === 'object') {
      this.ownContext(target.context);
      if (typeof target.realm === 'string' && !this.#ownsRealm(target.realm)) throw new BidiError('no such frame', `Realm with id ${target.realm} not found`);
    }
    if (Array.isArray(params.contexts)) for (const context of params.contexts) this.ownContext(context);
    if (method === 'browser.setClientWindowState' && typeof params.clientWindow === 'string' && !this.#clientWindows().has(params.clientWindow)) {
      throw new BidiError('no such client window', `Client window with id ${params.clientWindow} not found`);
    }
    let scoped = params;
    const set = (key: string, value: unknown) => {
      if (scoped === params) scoped = { ...params };
      if (value === undefined) delete scoped[key];
      else scoped[key] = value;
    };
    if (typeof params.userContext === 'string') set('userContext', this.userContext(params.userContext));
    if (Array.isArray(params.userContexts)) set('userContexts', params.userContexts.map((u) => this.userContext(u)));
    if (method === 'browser.removeUserContext' && scoped.userContext === this.#primary) throw new InvalidArgument('Default user context cannot be removed');
    // A new tab next to a reference context is of the reference's user context (Firefox's
    // create); without either, of the default one: the session's.
    if (DEFAULT_USER_CONTEXT.has(method) && !given(params.userContext) && !(method === 'browsingContext.create' && given(params.referenceContext))) set('userContext', this.#primary);
    // Firefox opens a tab without a reference context in its most recent window, which may be
    // another session's (one closing as the tab opens, then the tab never loads): the
    // session's own newest window is the reference (the window a Firefox of its own would use).
    if (method === 'browsingContext.create' && params.type === 'tab' && !given(params.referenceContext)) set('referenceContext', this.#channel.hub.newestTopLevel(this.#channel.userContexts));
    if (STORAGE.has(method)) set('partition', this.#partition(params.partition));
    const scoping = entry(UNSCOPED_IS_GLOBAL, method);
    if (scoping && !scoping.keys.some((key) => (scoping.nullIsAbsent ? given(params[key]) : params[key] !== undefined))) {
      for (const key of scoping.keys) set(key, undefined);
      set(scoping.scope, scoping.scope === 'contexts' ? this.#topLevelContexts() : [...this.#channel.userContexts]);
    }
    return scoped;
  }

  /**
   * A cookie store the client named, checked as Firefox checks it: the session's user context
   * when it names none (Firefox's default store is the default user context's).
   */
  #partition(partition: unknown): Params {
    if (!given(partition)) return { type: 'storageKey', userContext: this.#primary };
    if (typeof partition !== 'object' || Array.isArray(partition)) throw new InvalidArgument(`Expected "partition" to be an object, got ${pprint(partition)}`);
    const spec = partition as Params;
    if (typeof spec.type !== 'string') throw new InvalidArgument(`Expected partition "type" to be a string, got ${pprint(spec.type)}`);
    if (spec.type === 'context') {
      this.ownContext(spec.context);
      return spec;
    }
    if (spec.type !== 'storageKey') throw new InvalidArgument(`Expected "partition.type" to be one of context,storageKey, got ${spec.type}`);
    return { ...spec, userContext: given(spec.userContext) ? this.userContext(spec.userContext) : this.#primary };
  }

  /** Whether the answer to `method` is told otherwise than Firefox wrote it. */
  reports(method: string): boolean {
    return STORAGE.has(method) || Object.hasOwn(this.#results, method);
  }

  /** The answer as the client is told it: only its session's part, its user context `default`. */
  result(method: string, result: Params, params: Params): Params {
    if (STORAGE.has(method)) return this.#partitionKey(result, params.partition);
    return entry(this.#results, method)?.(result) ?? result;
  }

  /** An event as the client is told it: its user context `default`. */
  event(message: BidiMessage): BidiMessage {
    const params = message.params as Params | undefined;
    if (params?.userContext !== this.#primary) return message;
    return { ...message, params: this.#info(params) };
  }

  /** A browsing context's info (getTree, contextCreated): its user context, and its children's, as told. */
  #info(info: Params): Params {
    const told: Params = { ...info };
    if ('userContext' in info) told.userContext = this.reported(info.userContext);
    if (Array.isArray(info.children)) told.children = info.children.map((child: Params) => this.#info(child));
    return told;
  }

  /** A cookie store's key: Firefox names the user context only when the client named one. */
  #partitionKey(result: Params, partition: unknown): Params {
    const key = result.partitionKey as Params | undefined;
    if (!key || typeof key !== 'object' || !('userContext' in key)) return result;
    const { userContext, ...rest } = key;
    const named = given(partition) && ((partition as Params).type === 'context' || given((partition as Params).userContext));
    return { ...result, partitionKey: named ? { ...rest, userContext: this.reported(userContext) } : rest };
  }

  /** Replies that list what the whole browser has: only this session's part. */
  readonly #results: Record<string, (result: Params) => Params> = {
    'browsingContext.getTree': (result) => ({
      ...result,
      contexts: ((result.contexts ?? []) as Params[]).filter((c) => typeof c.userContext !== 'string' || this.#channel.userContexts.has(c.userContext)).map((c) => this.#info(c)),
    }),
    'browsingContext.create': (result) => ('userContext' in result ? { ...result, userContext: this.reported(result.userContext) } : result),
    'browser.getUserContexts': (result) => ({
      ...result,
      // The session's first, as a Firefox of its own lists its default first.
      userContexts: ((result.userContexts ?? []) as { userContext: string }[])
        .filter((u) => this.#channel.userContexts.has(u.userContext))
        .sort((a, b) => Number(b.userContext === this.#primary) - Number(a.userContext === this.#primary))
        .map((u) => ({ ...u, userContext: this.reported(u.userContext) })),
    }),
    'script.getRealms': (result) => ({
      ...result,
      realms: ((result.realms ?? []) as { realm: string; context?: string }[]).filter((r) => {
        if (this.#channel.hub.gatewayRealm(r.realm)) return false;
        if (r.context === undefined) return this.#ownsRealm(r.realm); // a worker's
        const userContext = this.#channel.hub.userContextOf(r.context);
        return userContext !== undefined && this.#channel.userContexts.has(userContext);
      }),
    }),
    'browser.getClientWindows': (result) => {
      const windows = this.#clientWindows();
      return { ...result, clientWindows: ((result.clientWindows ?? []) as { clientWindow: string }[]).filter((w) => windows.has(w.clientWindow)) };
    },
  };

  #topLevelContexts(): string[] {
    return [...this.#channel.userContexts].flatMap((userContext) => this.#channel.hub.topLevelContexts(userContext));
  }

  #clientWindows(): Set<string | undefined> {
    return new Set(this.#topLevelContexts().map((c) => this.#channel.hub.clientWindowOf(c)));
  }
}
