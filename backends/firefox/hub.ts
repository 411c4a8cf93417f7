// Firefox allows one WebDriver BiDi session per process, and a session whose socket drops without
// session.end stays open and refuses every new one. The hub owns that one session for the whole
// life of the process and multiplexes it: each gateway session gets channels (its classic
// commands' own, and its client's BiDi socket) scoped to its user contexts. Command ids are
// remapped into one space, and events go only to the channel whose subscriptions (./subscriptions.ts)
// cover them, for its own contexts (./scope.ts decides what a client may touch).
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { SERIALIZED } from '../backend.ts';
import { withinBound } from '../shared.ts';
import { ACK_AFTER_MESSAGE_MS, FrameBoundaries } from './frames.ts';
import { eventNames, knownEventName, Subscriptions } from './subscriptions.ts';

export type BidiMessage = Record<string, unknown>;

/** Answers at least this long may pass through unparsed; smaller ones cost little to parse. */
const PASS_THROUGH_MIN_CHARS = 16 * 1024;
/** The start of a success answer as Firefox writes it, up to its id. */
const ANSWER_HEAD = /^\{"type":"success","id":(\d+),/;

/**
 * An answer for the client whose command had `id`: a serialized one gets the id in its text
 * (Firefox's text carries the hub's id), a parsed one as a field.
 */
export function answerWithId(answer: BidiMessage, id: number): BidiMessage {
  const text = (answer as { [SERIALIZED]?: string })[SERIALIZED];
  if (text === undefined) return { ...answer, id };
  return { type: answer.type, id, [SERIALIZED]: text.replace(ANSWER_HEAD, `{"type":"success","id":${id},`) };
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

/** `passThrough`: a large success answer may come back unparsed (SERIALIZED, see #receive and answerWithId). */
type Pending = { channel: Channel; reply: (message: BidiMessage) => void; passThrough: boolean };

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

  /** An event of one of the channel's user contexts (in a top-level context, if any). */
  offer(message: BidiMessage, method: string, top: string | undefined, userContext: string, size: number): void {
    if (this.closed) return;
    if (this.subscriptions.wants(method, top, userContext)) this.#listener(message);
    else this.#unwanted(message, size);
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

/** A browsing context the hub knows of: its user context and parent. */
interface ContextInfo {
  userContext: string;
  parent: string | null;
  clientWindow?: string;
}

export class BidiHub {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, Pending>();
  readonly #channels = new Set<Channel>();
  readonly #contexts = new Map<string, ContextInfo>();
  /** Realm id → the browsing context it belongs to (events naming only a realm). */
  readonly #realms = new Map<string, string>();
  /** Browsing context → the realm of its current document's main world (window, no sandbox). */
  readonly #windowRealms = new Map<string, string>();
  #nextId = 0;
  #closed = false;
  /** A pong on its way: at once ('now'), or a timer after an answer. */
  #acknowledging: 'now' | NodeJS.Timeout | undefined;
  /** Commands sent so far, and when the last message came: one sent after it carried its ACK. */
  #sent = 0;
  #sentAtReceipt = 0;
  /** When the last message came (performance.now()). */
  #receivedAt = 0;
  readonly #gone: (() => void)[] = [];
  /** The session's capabilities, as Firefox answered session.new. */
  capabilities: BidiMessage = {};

  private constructor(socket: WebSocket, stream: Socket) {
    this.#socket = socket;
    const frames = new FrameBoundaries();
    stream.on('data', (chunk: Buffer) => {
      if (frames.push(chunk)) this.#pongNow();
    });
    socket.on('message', (data) => this.#receive(String(data)));
    socket.on('close', () => this.#lost());
    socket.on('error', () => this.#lost());
  }

  /** Connect to Firefox's BiDi server and begin the process's one session. */
  static async open(url: string, acceptInsecureCerts: boolean): Promise<BidiHub> {
    const socket = new WebSocket(`${url}/session`, { perMessageDeflate: false, maxPayload: 1024 ** 3 });
    // The TCP socket under it, read beside ws for messages that arrive in part (#acknowledge).
    let stream: Socket | undefined;
    socket.once('upgrade', (response) => (stream = response.socket));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const hub = new BidiHub(socket, stream!);
    const root = new Channel(hub, []);
    hub.#channels.add(root);
    const { capabilities } = await root.call<{ capabilities: BidiMessage }>('session.new', {
      // Prompts stay open for the gateway (its prompt guard and the session's handler decide).
      capabilities: { alwaysMatch: { acceptInsecureCerts, unhandledPromptBehavior: { default: 'ignore' } } },
    });
    hub.capabilities = capabilities;
    // The hub's own view of which context belongs to whom: every context, every realm.
    await root.call('session.subscribe', { events: ['browsingContext.contextCreated', 'browsingContext.contextDestroyed', 'script.realmCreated', 'script.realmDestroyed'] });
    const { contexts } = await root.call<{ contexts: TreeNode[] }>('browsingContext.getTree', {});
    hub.#learnTree(contexts, null);
    hub.#channels.delete(root);
    return hub;
  }

  get connected(): boolean {
    return !this.#closed;
  }

  onGone(listener: () => void): void {
    this.#gone.push(listener);
  }

  channel(userContexts: Iterable<string>): Channel {
    const channel = new Channel(this, userContexts);
    this.#channels.add(channel);
    return channel;
  }

  forget(channel: Channel): void {
    this.#channels.delete(channel);
  }

  send(channel: Channel, method: string, params: Record<string, unknown>, passThrough = false): Promise<BidiMessage> {
    if (this.#closed) return Promise.resolve({ type: 'error', error: 'unknown error', message: 'the browser is gone' });
    const id = ++this.#nextId;
    return new Promise((reply) => {
      this.#pending.set(id, { channel, reply, passThrough });
      this.#sent++;
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** The user context of a browsing context (a frame's is its top-level context's). */
  userContextOf(context: string): string | undefined {
    return this.#contexts.get(context)?.userContext;
  }

  /** The top-level browsing context of a context (itself when top-level). */
  topLevel(context: string): string {
    let id = context;
    for (let info = this.#contexts.get(id); info?.parent; info = this.#contexts.get(id)) id = info.parent;
    return id;
  }

  /** The client window (OS window) a top-level context is shown in, if known. */
  clientWindowOf(context: string): string | undefined {
    return this.#contexts.get(context)?.clientWindow;
  }

  /** The realm of the context's current document (its main world), if Firefox has said. */
  windowRealm(context: string): string | undefined {
    return this.#windowRealms.get(context);
  }

  /** The browsing context of a realm, if known. */
  contextOfRealm(realm: string): string | undefined {
    return this.#realms.get(realm);
  }

  /** Top-level contexts in a user context. */
  topLevelContexts(userContext: string): string[] {
    return [...this.#contexts].filter(([, info]) => info.parent === null && info.userContext === userContext).map(([id]) => id);
  }

  /** End the session and the socket (the process is about to end). Never throws. */
  async close(): Promise<void> {
    if (this.#closed) return;
    const root = this.channel([]);
    await withinBound(root.send('session.end', {}), 1000, undefined);
    this.#closed = true;
    this.#socket.terminate();
  }

  /**
   * Firefox's BiDi server writes without TCP_NODELAY: while one message of it is unacknowledged,
   * Nagle holds the next, and Linux delays our ACK by up to 40 ms. A navigation sends several
   * events in a row, so each waited that long (a navigation took ≈ 50 ms instead of ≈ 25). Any
   * segment we send carries the ACK: a command does, else an unsolicited pong (RFC 6455 §5.5.3:
   * no answer expected). After events at once (more tend to follow); after an answer only if no
   * command went out within ACK_AFTER_MESSAGE_MS: a client's next command usually comes sooner,
   * and a pong per answer would be one more write per message.
   * Firefox also writes a large message (a screenshot) in two parts: the second is held until the
   * first is acknowledged, and a connection on which we answer quickly has Linux delay that ACK
   * too (a screenshot took ≈ 60 ms instead of ≈ 20). So a message that came in part gets a pong at
   * once (#pongNow): the rest follows without waiting.
   */
  #acknowledge(event: boolean): void {
    this.#sentAtReceipt = this.#sent;
    this.#receivedAt = performance.now();
    if (event) {
      if (this.#acknowledging === 'now') return;
      clearTimeout(this.#acknowledging);
      this.#acknowledging = 'now';
      setImmediate(this.#pong);
    } else if (this.#acknowledging === undefined) {
      this.#acknowledging = setTimeout(this.#pong, ACK_AFTER_MESSAGE_MS).unref();
    }
  }

  /** A pong now: the first part of a message came, the rest waits for its ACK. */
  readonly #pongNow = () => {
    if (!this.#closed && this.#socket.readyState === WebSocket.OPEN) this.#socket.pong();
  };

  /**
   * A pong, unless a command went out since the last message came (it carried the ACK). After an
   * answer, the wait counts from the last message: a later answer's own command may be on its way.
   */
  readonly #pong = () => {
    const wait = this.#acknowledging === 'now' ? 0 : this.#receivedAt + ACK_AFTER_MESSAGE_MS - performance.now();
    this.#acknowledging = undefined;
    if (this.#sent !== this.#sentAtReceipt) return;
    if (wait > 0) this.#acknowledging = setTimeout(this.#pong, wait).unref();
    else this.#pongNow();
  };

  #receive(text: string): void {
    // A large answer whose caller only passes it on (a screenshot, say) is not parsed here.
    const head = text.length >= PASS_THROUGH_MIN_CHARS ? ANSWER_HEAD.exec(text.slice(0, 64)) : null;
    const waiting = head ? this.#pending.get(Number(head[1])) : undefined;
    if (waiting?.passThrough) {
      this.#acknowledge(false);
      this.#pending.delete(Number(head![1]));
      return waiting.reply({ type: 'success', id: Number(head![1]), [SERIALIZED]: text });
    }
    let message: BidiMessage;
    try {
      message = JSON.parse(text) as BidiMessage;
    } catch {
      return;
    }
    this.#acknowledge(message.type === 'event');
    if (message.type === 'event') return this.#event(message, text.length);
    const pending = typeof message.id === 'number' ? this.#pending.get(message.id) : undefined;
    if (!pending) return;
    this.#pending.delete(message.id as number);
    pending.reply(message);
  }

  /** An event, `size` characters as Firefox wrote it. */
  #event(message: BidiMessage, size: number): void {
    const method = String(message.method);
    const params = (message.params ?? {}) as Record<string, unknown>;
    if (method === 'browsingContext.contextCreated') this.#learnTree([params as unknown as TreeNode], (params.parent as string | null) ?? null);
    if (method === 'script.realmCreated' && typeof params.context === 'string') {
      this.#realms.set(String(params.realm), params.context);
      if (params.type === 'window' && params.sandbox === undefined) this.#windowRealms.set(params.context, String(params.realm));
    }
    const context = eventContext(params, this.#realms);
    const userContext = context === undefined ? undefined : (this.#contexts.get(context)?.userContext ?? (params.userContext as string | undefined));
    const top = context === undefined ? undefined : this.topLevel(context);
    if (userContext !== undefined) {
      for (const channel of this.#channels) if (channel.userContexts.has(userContext)) channel.offer(message, method, top, userContext, size);
    }
    // Forgotten after delivery: a destroyed context's event still names its user context.
    if (method === 'browsingContext.contextDestroyed') this.#forgetTree(params as unknown as TreeNode);
    if (method === 'script.realmDestroyed') {
      const of = this.#realms.get(String(params.realm));
      if (of !== undefined && this.#windowRealms.get(of) === params.realm) this.#windowRealms.delete(of);
      this.#realms.delete(String(params.realm));
    }
  }

  #learnTree(nodes: TreeNode[], parent: string | null): void {
    for (const node of nodes) {
      const userContext = node.userContext ?? (parent ? this.#contexts.get(parent)?.userContext : undefined) ?? 'default';
      this.#contexts.set(node.context, { userContext, parent: node.parent ?? parent, ...(node.clientWindow && { clientWindow: node.clientWindow }) });
      if (node.children) this.#learnTree(node.children, node.context);
    }
  }

  #forgetTree(node: TreeNode): void {
    for (const [id, info] of this.#contexts) if (info.parent === node.context) this.#forgetTree({ context: id });
    this.#contexts.delete(node.context);
    this.#windowRealms.delete(node.context);
  }

  #lost(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const [, pending] of this.#pending) pending.reply({ type: 'error', error: 'unknown error', message: 'the browser is gone' });
    this.#pending.clear();
    for (const listener of this.#gone) listener();
  }
}

/** browsingContext.getTree's and contextCreated's shape. */
export interface TreeNode {
  context: string;
  userContext?: string;
  parent?: string | null;
  url?: string;
  children?: TreeNode[] | null;
  clientWindow?: string;
  originalOpener?: string | null;
}

/** The browsing context an event is about: its `context`, its source's, or its realm's. */
function eventContext(params: Record<string, unknown>, realms: Map<string, string>): string | undefined {
  if (typeof params.context === 'string') return params.context;
  const source = params.source as Record<string, unknown> | undefined;
  if (typeof source?.context === 'string') return source.context;
  const realm = typeof source?.realm === 'string' ? source.realm : typeof params.realm === 'string' ? params.realm : undefined;
  return realm === undefined ? undefined : realms.get(realm);
}
