// WebDriver BiDi on Chromium: chromium-bidi's mapper runs in the gateway's process, over a CDP
// session of its own on the session's browser (Target.attachToBrowserTarget), beside puppeteer's
// connection on the same pipe. chromedriver injects the same mapper into a tab instead; here no
// tab is spent and each message crosses the pipe once. The mapper sees the whole browser, so a
// BiDi session has its browser to itself (LaunchSpec.ownBrowser). It checks each command's
// parameters with the protocol parser chromedriver's copy uses (the mapper alone checks none),
// so a malformed command is `invalid argument`, as chromedriver answers it. What puppeteer
// does on the same pages (its utility world) is kept from the mapper: a client sees only its
// pages' realms, as chromedriver's client does.
import { EventEmitter } from 'chromium-bidi/out/Default/gen/src/utils/EventEmitter.js';
import type { Browser, CDPSession } from 'puppeteer-core';
import { attachToBrowser } from './cdp.ts';
import type { BidiEndpoint, BidiOptions } from '../backend.ts';

type Listener = (message: Record<string, unknown>) => void;

/** Start the mapper on `browser` and begin its session; resolves once it answers commands. */
export async function openMapper(browser: Browser, options: BidiOptions): Promise<BidiEndpoint> {
  const { connection, session: browserSession } = await attachToBrowser(browser);
  const browserClient = new CdpClientAdapter(browserSession, undefined);
  const clients = new Map<string, CdpClientAdapter>();
  const cdpConnection = {
    getCdpClient(id: string) {
      let client = clients.get(id);
      if (!client) {
        const session = connection.session(id);
        if (!session) throw new Error(`unknown CDP session ${id}`);
        client = new CdpClientAdapter(session, id, browserClient);
        clients.set(id, client);
      }
      return client;
    },
  };
  const transport = new Transport();
  // Loaded with the first BiDi session (the mapper and its parser are most of chromium-bidi).
  const [{ BidiServer }, { BidiParser }] = await Promise.all([import('chromium-bidi/out/Default/gen/src/bidiMapper/BidiMapper.js'), import('chromium-bidi/out/Default/gen/src/bidiTab/BidiParser.js')]);
  const server = await BidiServer.createAndStart(transport as never, cdpConnection as never, browserClient as never, '', new BidiParser());
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.close();
    for (const client of [browserClient, ...clients.values()]) client.close();
    // Not waited for: the session's browser (its own) ends next, which detaches it anyway.
    void browserSession.detach().catch(() => {});
  };
  // The mapper's own session: the classic session handles user prompts (its prompt guard),
  // so the mapper leaves them to it and to the client's browsingContext.handleUserPrompt.
  const begun = await transport.call({
    method: 'session.new',
    params: { capabilities: { alwaysMatch: { acceptInsecureCerts: options.acceptInsecureCerts, unhandledPromptBehavior: { default: 'ignore' } } } },
  });
  if (begun.type !== 'success') {
    await close();
    throw new Error(`the BiDi mapper refused its session: ${String(begun.message ?? begun.error)}`);
  }
  return {
    send: (command) => transport.deliver(command),
    onMessage: (listener) => transport.listeners.push(listener),
    close,
  };
}

/** A node's shared id as the mapper writes it: frame, document (loader) and backend node id. */
export function parseSharedId(sharedId: string): { frameId: string; loaderId: string; backendNodeId: number } | undefined {
  const m = /^f\.([0-9A-F]+)\.d\.([0-9A-F]+)\.e\.(\d+)$/.exec(sharedId);
  return m ? { frameId: m[1]!, loaderId: m[2]!, backendNodeId: Number(m[3]) } : undefined;
}

/** The mapper's side of the messages: what it is sent and what it answers. */
class Transport {
  readonly listeners: Listener[] = [];
  #onMessage: (message: never) => Promise<void> | void = () => {};
  /** The gateway's own commands (below the client's id space: negative ids). */
  readonly #own = new Map<number, (message: Record<string, unknown>) => void>();
  #nextOwnId = -1;

  setOnMessage(handler: (message: never) => Promise<void> | void): void {
    this.#onMessage = handler;
  }

  sendMessage(message: Record<string, unknown>): void {
    const own = typeof message.id === 'number' ? this.#own.get(message.id) : undefined;
    if (own) {
      this.#own.delete(message.id as number);
      return own(message);
    }
    for (const listener of this.listeners) listener(message);
  }

  deliver(command: object): void {
    void this.#onMessage(command as never);
  }

  call(command: { method: string; params: object }): Promise<Record<string, unknown>> {
    const id = this.#nextOwnId--;
    return new Promise((resolve) => {
      this.#own.set(id, resolve);
      this.deliver({ id, ...command });
    });
  }

  close(): void {
    this.#onMessage = () => {};
  }
}

/** The isolated world puppeteer makes in every frame for itself (`__puppeteer_utility_world__` and its version). */
const PUPPETEER_WORLD = /^__puppeteer_utility_world__/;

/**
 * An execution context of the gateway's own (puppeteer's utility world): the mapper never hears
 * of it, so no client is told of a realm it did not make (chromedriver's mapper sees none).
 */
function gatewayOwn(method: unknown, event: unknown): boolean {
  if (method !== 'Runtime.executionContextCreated') return false;
  const context = (event as { context?: { name?: string; auxData?: { type?: string } } }).context;
  return context?.auxData?.type === 'isolated' && PUPPETEER_WORLD.test(context.name ?? '');
}

/**
 * The JSON-RPC code CDP answered with (crdtp's dispatcher: -32601 an unknown method, -32602 bad
 * parameters, -32001 a session gone, -32000 every domain's own error). puppeteer keeps CDP's
 * message but drops its code, and the mapper reads both to turn some errors into BiDi's (an
 * unknown handle is `no such handle`, as chromedriver answers it).
 */
export function cdpErrorCode(message: string): number {
  if (/^'.*' wasn't found$/.test(message)) return -32601;
  if (/^Invalid parameters/.test(message)) return -32602;
  if (/^Session with given id not found/.test(message)) return -32001;
  return -32000;
}

/** A puppeteer CDP session as the mapper's CdpClient. */
class CdpClientAdapter extends EventEmitter<Record<string, unknown>> {
  readonly sessionId: string | undefined;
  readonly #session: CDPSession;
  readonly #browserClient: CdpClientAdapter;
  #closed = false;
  readonly #forward = (method: unknown, event: unknown) => {
    if (!gatewayOwn(method, event)) this.emit(method as string, event);
  };

  constructor(session: CDPSession, sessionId: string | undefined, browserClient?: CdpClientAdapter) {
    super();
    this.#session = session;
    this.sessionId = sessionId;
    this.#browserClient = browserClient ?? this;
    session.on('*', this.#forward as never);
  }

  browserClient(): CdpClientAdapter {
    return this.#browserClient;
  }

  async sendCommand(method: string, params?: object): Promise<unknown> {
    if (this.#closed) return undefined;
    try {
      return await this.#session.send(method as never, params as never);
    } catch (e) {
      if (this.#closed) return undefined;
      // The mapper reads CDP's own error (its message decides some answers, e.g. "Failed to
      // find browser context" is `no such user context`); puppeteer prefixes "Protocol error (…):".
      const { code, originalMessage } = e as { code?: number; originalMessage?: string };
      if (originalMessage) throw Object.assign(new Error(originalMessage), { code: code ?? cdpErrorCode(originalMessage) });
      throw e;
    }
  }

  isCloseError(error: unknown): boolean {
    return /Target closed|Session closed|detached/i.test(String(error));
  }

  close(): void {
    this.#session.off('*', this.#forward as never);
    this.#closed = true;
  }
}
