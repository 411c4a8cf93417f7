// One channel of the Firefox session a process's gateway sessions share (./hub.ts): a gateway
// session's classic commands, or its client's BiDi socket. It sees and touches only its user
// contexts; it gets the events it subscribed to (./subscriptions.ts), and of the network's, only
// the blocking its own intercepts did (a request so blocked is its to go on with, ./ownership.ts).
import type { BidiHub } from './hub.ts';
import { eventNames, knownEventName, Subscriptions } from './subscriptions.ts';

export type BidiMessage = Record<string, unknown>;

/** A request for credentials held for the gateway (network.authRequired: its parameters). */
export interface CredentialsRequest {
  request: { request: string; url: string; destination?: string };
  context: string | null;
  response: { status: number };
}

/** A BiDi error answer, as an exception of the gateway's own calls. */
export class BidiError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a subscription is for: top-level `contexts`, or `userContexts` (the channel's); neither: all the channel's. */
export interface SubscriptionScope {
  contexts?: string[];
  userContexts?: string[];
}

export class Channel {
  /** The user contexts this channel may see and touch. */
  readonly userContexts: Set<string>;
  /** What it subscribed to: the events it gets (./subscriptions.ts). */
  readonly subscriptions = new Subscriptions();
  /** The network intercepts its client added: a request is blocked for it only by these. */
  readonly intercepts = new Set<string>();
  /** Requests blocked for it (by its intercepts, in an event it got): id → their context, top-level context and phase's event. */
  readonly blocked = new Map<string, { context: unknown; top: string | undefined; event: BidiMessage }>();
  /**
   * Shows a request for credentials as a user prompt of its session (the classic side's,
   * ./context.ts), where a Firefox of its own would show its prompt; unset on a client's channel.
   */
  promptForCredentials: ((request: CredentialsRequest) => void) | undefined;
  /** Requests of its user contexts seen in events, while its client collects network data (./ownership.ts). */
  requests: RecentIds | undefined;
  /** Firefox's subscriptions (of the channel's user contexts) that bring each of ours its events. */
  readonly #upstream = new Map<string, string[]>();
  #listener: (message: BidiMessage) => void = () => {};
  #unwanted: (message: BidiMessage, size: number) => void = () => {};
  closed = false;

  constructor(
    readonly hub: BidiHub,
    userContexts: Iterable<string>,
  ) {
    this.userContexts = new Set(userContexts);
  }

  /**
   * Send a command; its answer (success or error) as the engine gives it. `passThrough`: the
   * caller needs no more than the answer's text (a large one may come unparsed, SERIALIZED).
   */
  send(method: string, params: Record<string, unknown>, passThrough = false): Promise<BidiMessage> {
    return this.hub.send(this, method, params, passThrough);
  }

  /** Send a command; its result, or a BidiError. */
  async call<T = BidiMessage>(method: string, params: Record<string, unknown>): Promise<T> {
    const answer = await this.send(method, params);
    if (answer.type === 'error') throw new BidiError(String(answer.error), String(answer.message ?? answer.error));
    return answer.result as T;
  }

  /** Events this channel subscribed to, for its own contexts. */
  onEvent(listener: (message: BidiMessage) => void): void {
    this.#listener = listener;
  }

  /** Events of its user contexts that it did not subscribe to (and their size as Firefox wrote them). */
  onUnwanted(listener: (message: BidiMessage, size: number) => void): void {
    this.#unwanted = listener;
  }

  /**
   * An event of one of the channel's user contexts (in a top-level context, if any). True when it
   * is a request blocked for this channel (./network-scope.ts): its client is to go on with it.
   */
  offer(message: BidiMessage, method: string, top: string | undefined, userContext: string, size: number): boolean {
    if (this.closed) return false;
    const wanted = this.subscriptions.wants(method, top, userContext);
    let blocked = false;
    if (method.startsWith('network.')) [message, blocked] = this.#blocking(message, wanted, top);
    if (method === 'browsingContext.contextDestroyed') {
      const gone = (message.params as { context?: unknown } | undefined)?.context;
      for (const [request, { context, top: itsTop }] of this.blocked) if (context === gone || itsTop === gone) this.blocked.delete(request);
    }
    if (wanted) this.#listener(message);
    else this.#unwanted(message, size);
    return blocked;
  }

  /**
   * A network event as this channel is told it. Upstream an intercept without contexts is the
   * browser's (so that it covers the windows its session opens later): it blocks requests of
   * every session listening for the phase. A request is blocked for this channel only when it
   * listens and one of its own intercepts blocked it; it is told of those intercepts alone, and
   * of any other blocking as none (the hub goes on with such a request: BidiHub#event).
   */
  #blocking(message: BidiMessage, wanted: boolean, top: string | undefined): [BidiMessage, boolean] {
    const params = message.params as { isBlocked?: boolean; intercepts?: string[]; context?: unknown; request?: { request?: string } };
    const request = params.request?.request;
    if (request !== undefined) this.requests?.add(request);
    if (params.isBlocked !== true) {
      if (request !== undefined) this.blocked.delete(request);
      return [message, false];
    }
    const own = wanted ? (params.intercepts ?? []).filter((intercept) => this.intercepts.has(intercept)) : [];
    if (own.length === 0) {
      if (request !== undefined) this.blocked.delete(request);
      const { intercepts: _others, ...rest } = params;
      return [{ ...message, params: { ...rest, isBlocked: false } }, false];
    }
    if (request !== undefined) this.blocked.set(request, { context: params.context, top, event: message });
    return [own.length === params.intercepts!.length ? message : { ...message, params: { ...params, intercepts: own } }, true];
  }

  /**
   * Subscribe to the events `names` stand for (Firefox checks the names), as scoped; its id.
   * Upstream an unscoped subscription is for the channel's user contexts, never the browser's.
   */
  async subscribe(names: string[], scope: SubscriptionScope = {}): Promise<string> {
    const { contexts, userContexts } = scope;
    const params = contexts ? { events: names, contexts } : { events: names, userContexts: userContexts ?? [...this.userContexts] };
    const { subscription } = await this.call<{ subscription: string }>('session.subscribe', params);
    this.subscriptions.add({
      id: subscription,
      // Names Firefox accepted that the table does not know (a newer Firefox) stand for themselves.
      events: eventNames(names, (name) => !knownEventName(name)),
      contexts: new Set(contexts?.map((c) => this.hub.topLevel(c))),
      userContexts: new Set(userContexts),
    });
    this.#upstream.set(subscription, [subscription]);
    return subscription;
  }

  /** A user context the channel gains (its client made it): its global subscriptions cover it too. */
  async gainUserContext(userContext: string): Promise<void> {
    this.userContexts.add(userContext);
    for (const { id, events } of this.subscriptions.global()) {
      const { subscription } = await this.call<{ subscription: string }>('session.subscribe', { events: [...events], userContexts: [userContext] });
      this.#upstream.get(id)?.push(subscription);
    }
  }

  /** Firefox's subscriptions for ours that have no events left end (after an unsubscribe). */
  async settle(): Promise<void> {
    const live = this.subscriptions.live();
    const ended = [...this.#upstream].filter(([id]) => !live.has(id));
    for (const [id] of ended) this.#upstream.delete(id);
    const subscriptions = ended.flatMap(([, upstream]) => upstream);
    if (subscriptions.length) await this.call('session.unsubscribe', { subscriptions });
  }

  /** Undo what this channel left in the shared session: its subscriptions. Never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.subscriptions.clear();
    await this.settle().catch(() => {});
    this.closed = true;
    this.hub.forget(this);
  }
}

/** The ids most recently added, at most `limit` (a session's own requests, for network data). */
export class RecentIds {
  readonly #ids = new Set<string>();

  constructor(readonly limit = 10_000) {}

  add(id: string): void {
    this.#ids.delete(id);
    this.#ids.add(id);
    if (this.#ids.size > this.limit) this.#ids.delete(this.#ids.values().next().value!);
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }
}
