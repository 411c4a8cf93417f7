// Firefox allows one WebDriver BiDi session per process, and a session whose socket drops without
// session.end stays open and refuses every new one. The hub owns that one session for the whole
// life of the process and multiplexes it: each gateway session gets channels (./channel.ts: its
// classic commands' own, and its client's BiDi socket) scoped to its user contexts. Command ids
// are remapped into one space, and events go only to the channel whose subscriptions
// (./subscriptions.ts) cover them, for its own contexts (./scope.ts and ./ownership.ts decide
// what a client may touch). An event naming only a realm is its realm's document's (a worker's:
// its owner's), also once that document's context is gone.
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { SERIALIZED } from '../backend.ts';
import { withinBound } from '../shared.ts';
import { ACK_AFTER_MESSAGE_MS, FrameBoundaries } from './frames.ts';
import { Channel, type BidiMessage, type CredentialsRequest } from './channel.ts';

export { BidiError, Channel, RecentIds, type BidiMessage, type CredentialsRequest, type SubscriptionScope } from './channel.ts';

/** The sandbox the gateway's own scripts run in (./script.ts): its realms are no client's. */
export const GATEWAY_SANDBOX = 'wdgate';

/**
 * The hub's own subscriptions, for the whole browser (the first Firefox registers for each event,
 * so the first it tells of one):
 * - where contexts and realms are, and whose (contextCreated, contextDestroyed, realmCreated,
 *   realmDestroyed);
 * - browsingContext.fragmentNavigated: Firefox 153 names no browsing context in its own event
 *   (NavigationManager's "fragment-navigated" has no contextId), so a subscription scoped to
 *   contexts or user contexts never gets one (checked on a Firefox of its own); channels get
 *   it by their own subscriptions (./subscriptions.ts);
 * - network.authRequired, held by the hub's own intercept: a request for credentials no
 *   client's intercept holds becomes its session's user prompt (promptForCredentials), never
 *   Firefox's own prompt, which nothing the gateway speaks can see or answer.
 */
const ROOT_EVENTS = [
  'browsingContext.contextCreated',
  'browsingContext.contextDestroyed',
  'browsingContext.fragmentNavigated',
  'network.authRequired',
  'script.realmCreated',
  'script.realmDestroyed',
];

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


/** `passThrough`: a large success answer may come back unparsed (SERIALIZED, see #receive and answerWithId). */
type Pending = { channel: Channel; reply: (message: BidiMessage) => void; passThrough: boolean };

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
  /**
   * Realm id → whose it is (events naming only a realm): kept until its realmDestroyed, which
   * Firefox sends after the context's contextDestroyed when a tab closes.
   */
  readonly #realms = new Map<string, RealmOwner>();
  /** Realms of the gateway's own sandbox. */
  readonly #gatewayRealms = new Set<string>();
  /** Browsing context → the realm of its current document's main world (window, no sandbox). */
  readonly #windowRealms = new Map<string, string>();
  #nextId = 0;
  #closed = false;
  /** Commands that open or close OS windows, one after another (#changesWindows). */
  #windowChanges: Promise<unknown> = Promise.resolve();
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
    // The hub's own view of which context belongs to whom: every context, every realm; and the
    // events that only a subscription for the whole browser brings (ROOT_EVENTS).
    await root.call('session.subscribe', { events: ROOT_EVENTS });
    // Every request for credentials is held for the gateway (promptForCredentials, unless a client's own intercept holds it).
    await root.call('network.addIntercept', { phases: ['authRequired'] });
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
    if (!this.#changesWindows(method, params)) return this.#send(channel, method, params, passThrough);
    const turn = this.#windowChanges.then(() => this.#send(channel, method, params, passThrough));
    this.#windowChanges = turn;
    return turn;
  }

  /**
   * Whether a command opens an OS window or may close one: Firefox opens a window from its most
   * recent one, and when that one is closing (another session's ending, its user context
   * removed) the new window never comes and browsingContext.create never answers (checked on a
   * Firefox of its own, every time). Such commands of all sessions run one at a time. A close
   * that may ask the page first (promptUnload) is not held back for: its answer may wait for a user.
   */
  #changesWindows(method: string, params: Record<string, unknown>): boolean {
    if (method === 'browser.removeUserContext') return true;
    if (method === 'browsingContext.create') return params.type === 'window';
    if (method !== 'browsingContext.close' || params.promptUnload === true || typeof params.context !== 'string') return false;
    // The last tab of its window: the window closes with it.
    const info = this.#contexts.get(params.context);
    if (!info || info.parent !== null) return false;
    return info.clientWindow === undefined || ![...this.#contexts].some(([id, other]) => id !== params.context && other.parent === null && other.clientWindow === info.clientWindow);
  }

  #send(channel: Channel, method: string, params: Record<string, unknown>, passThrough: boolean): Promise<BidiMessage> {
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

  /** The browsing context of a realm (a worker's: its owner document's), if known. */
  contextOfRealm(realm: string): string | undefined {
    return this.#realms.get(realm)?.context;
  }

  /** The user context of a realm, if known (also once its browsing context is gone). */
  userContextOfRealm(realm: string): string | undefined {
    return this.#realms.get(realm)?.userContext;
  }

  /** The top-level context made last of those in `userContexts`, if any is open. */
  newestTopLevel(userContexts: ReadonlySet<string>): string | undefined {
    let newest: string | undefined;
    // A Map iterates in the order its keys were added: the order Firefox told of the contexts.
    for (const [id, info] of this.#contexts) if (info.parent === null && userContexts.has(info.userContext)) newest = id;
    return newest;
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
    if (method === 'script.realmCreated') this.#learnRealm(params);
    if (this.#gatewayRealm(method, params)) return;
    const { userContext, top } = this.#owner(params);
    let goneOnWith = false;
    if (userContext !== undefined) {
      for (const channel of this.#channels) if (channel.userContexts.has(userContext) && channel.offer(message, method, top, userContext, size)) goneOnWith = true;
    }
    // Blocked by the gateway's or another session's intercept (or one whose client does not listen): on at once.
    if (params.isBlocked === true && !goneOnWith) {
      if (method === 'network.authRequired') this.promptForCredentials(params as unknown as CredentialsRequest);
      else this.#goOn(method, params);
    }
    // Forgotten after delivery: a destroyed context's event still names its user context.
    if (method === 'browsingContext.contextDestroyed') this.#forgetTree(params as unknown as TreeNode);
    if (method === 'script.realmDestroyed') {
      const of = this.#realms.get(String(params.realm))?.context;
      if (of !== undefined && this.#windowRealms.get(of) === params.realm) this.#windowRealms.delete(of);
      this.#realms.delete(String(params.realm));
    }
  }

  /** Whether a realm event is of the gateway's own sandbox (told to no client), forgotten with it. */
  #gatewayRealm(method: string, params: Record<string, unknown>): boolean {
    if (method === 'script.realmCreated' && params.sandbox === GATEWAY_SANDBOX) this.#gatewayRealms.add(String(params.realm));
    else if (method !== 'script.realmDestroyed' || !this.#gatewayRealms.delete(String(params.realm))) return false;
    return true;
  }

  /** Whether a realm is the gateway's own (a client is not told of it). */
  gatewayRealm(realm: string): boolean {
    return this.#gatewayRealms.has(realm);
  }

  /**
   * A request for credentials that goes on as by Firefox's default (no client's intercept holds
   * it, or its client answered "default"): Firefox would show its own prompt, which no command
   * of the gateway could see or answer (the browser is headless; BiDi tells of it in no event).
   * The session whose user context it is shows it as a user prompt of its own instead, as
   * geckodriver shows Firefox's (./context.ts); a request no session's is cancelled.
   */
  promptForCredentials(params: CredentialsRequest): void {
    const userContext = params.context === null ? undefined : this.userContextOf(params.context);
    for (const channel of this.#channels) {
      if (userContext === undefined || !channel.userContexts.has(userContext) || !channel.promptForCredentials) continue;
      return channel.promptForCredentials(params);
    }
    this.#goOn('network.authRequired', params as unknown as Record<string, unknown>);
  }

  /**
   * A blocked request no client is to go on with: on as if never blocked (BiDi §7.4: its phase's
   * "continue"); a request for credentials no session shows is cancelled (its 401 or 407
   * response is the document).
   */
  #goOn(method: string, params: Record<string, unknown>): void {
    const request = (params.request as { request?: unknown } | undefined)?.request;
    const root = this.channel([]);
    const sent =
      method === 'network.beforeRequestSent'
        ? root.send('network.continueRequest', { request })
        : method === 'network.responseStarted'
          ? root.send('network.continueResponse', { request })
          : method === 'network.authRequired'
            ? root.send('network.continueWithAuth', { request, action: 'cancel' })
            : undefined;
    // Its answer does not matter (the request may be gone already).
    void (sent ?? Promise.resolve()).finally(() => this.forget(root));
  }

  /**
   * Whose an event is: the user context and top-level context of the browsing context it names
   * (its `context`, its source's), else of the realm it names. A realm outlives its context's
   * contextDestroyed (its realmDestroyed comes after), and a worker's realm names no context.
   */
  #owner(params: Record<string, unknown>): { userContext?: string; top?: string } {
    const source = params.source as Record<string, unknown> | undefined;
    const context = typeof params.context === 'string' ? params.context : typeof source?.context === 'string' ? source.context : undefined;
    const known = context === undefined ? undefined : this.#contexts.get(context);
    if (known) return { userContext: known.userContext, top: this.topLevel(context!) };
    const realmId = typeof source?.realm === 'string' ? source.realm : typeof params.realm === 'string' ? params.realm : undefined;
    const realm = realmId === undefined ? undefined : this.#realms.get(realmId);
    if (realm) return { userContext: realm.userContext, top: realm.top };
    return { userContext: params.userContext as string | undefined, top: context };
  }

  /**
   * A realm Firefox made: a document's (of its context) or a worker's (BiDi §7.6.2 "get the
   * worker's owners": its owners' context). One whose owner is unknown belongs to no session.
   */
  #learnRealm(params: Record<string, unknown>): void {
    const realm = String(params.realm);
    let context = typeof params.context === 'string' ? params.context : undefined;
    if (context === undefined && Array.isArray(params.owners)) context = params.owners.map((owner) => this.#realms.get(String(owner))?.context).find((c) => c !== undefined);
    const userContext = context === undefined ? undefined : this.#contexts.get(context)?.userContext;
    if (context === undefined || userContext === undefined) return;
    this.#realms.set(realm, { context, userContext, top: this.topLevel(context) });
    if (params.type === 'window' && params.sandbox === undefined) this.#windowRealms.set(context, realm);
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

/** Whose a realm is: its browsing context (a worker's: its owner's), that one's user context and top-level context. */
interface RealmOwner {
  context: string;
  userContext: string;
  top: string;
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
