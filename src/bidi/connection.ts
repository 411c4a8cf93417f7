// One WebSocket connection of a WebDriver BiDi session (W3C BiDi §5, "Transport"): each text
// message is a command `{id, method, params}`, checked here before the engine sees it; answers
// and events go back as text. The gateway answers what concerns the session itself (session.new,
// session.status, session.end, browser.close); everything else goes to the engine's end.
import { SERIALIZED, type BidiEndpoint } from '../../backends/backend.ts';

/** The BiDi error codes this layer answers itself. */
type BidiErrorCode = 'invalid argument' | 'invalid session id' | 'session not created' | 'unknown error' | 'unsupported operation';

/** What a connection needs of its session and the socket under it. */
export interface ConnectionHost {
  /** The engine's end (the mapper, a multiplexed Firefox session); none before session.new. */
  endpoint(): BidiEndpoint | undefined;
  /**
   * A direct connection (`/session`) creates its session with session.new: the result to answer,
   * or a W3C error. Absent on a session's own socket.
   */
  newSession?(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** session.status without a session: whether a session could be created now. */
  status(): { ready: boolean; message: string };
  /** Write one text frame; false when the socket is gone. */
  write(text: string): boolean;
  /** End the session (session.end, browser.close); resolves once it is ended. */
  endSession(reason: string): Promise<void>;
  /** Close the socket after the last answer. */
  close(): void;
  /** A message came or went: the session is in use (the idle reaper), and it is counted. */
  activity(direction: 'in' | 'out'): void;
  /** A command answered an error (logged by method and code, never the message's body). */
  failed(method: string, error: string): void;
  /** A command sent on to the engine was answered (the command seam: src/webdriver/seam.ts). */
  answered?(command: { method: string; params: Record<string, unknown>; startedAt: number; started: number }, error: { code: string; message: string } | undefined, result: unknown): void;
  /**
   * Before a command goes to the engine: the params with classic element references turned into
   * the engine's ids (and whatever must happen first); undefined when there is nothing to wait for.
   */
  translate?(params: Record<string, unknown>, method: string): Promise<Record<string, unknown>> | undefined;
  /**
   * Why the session may not send this command (it would reach the gateway's machine:
   * backends/policy/bidi.ts), or null; a promise when files must be looked at first.
   */
  refusal?(method: string, params: Record<string, unknown>): string | null | Promise<string | null>;
}

const MAX_ID = Number.MAX_SAFE_INTEGER;

export class BidiConnection {
  readonly #host: ConnectionHost;
  #open = true;
  /** Commands sent on to the engine and not answered yet: id → the command (for the log and the history). */
  readonly #forwarded = new Map<number, { method: string; params: Record<string, unknown>; startedAt: number; started: number }>();
  /** The last command still waiting to be sent (its ids being translated), if any. */
  #sending: Promise<void> | undefined;
  /** A session.new of this connection is running. */
  #creating = false;

  constructor(host: ConnectionHost) {
    this.#host = host;
  }

  /** An answer or event of the engine, for this client. */
  deliver(message: Record<string, unknown>): void {
    if (typeof message.id === 'number' && message.type !== 'event') {
      const command = this.#forwarded.get(message.id);
      this.#forwarded.delete(message.id);
      const error = message.type === 'error' ? { code: String(message.error), message: String(message.message ?? '') } : undefined;
      if (command && error) this.#host.failed(command.method, error.code);
      if (command) this.#host.answered?.(command, error, message.result);
    }
    if (!this.#open) return;
    this.#host.activity('out');
    const serialized = (message as { [SERIALIZED]?: string })[SERIALIZED];
    this.#host.write(serialized ?? JSON.stringify(message));
  }

  /** The session ended: close the socket. */
  end(): void {
    if (this.#open) this.#host.close();
  }

  /** The socket closed: nothing more is written. */
  closed(): void {
    this.#open = false;
  }

  /** A binary frame: BiDi messages are text (§5.2: invalid argument, id null). */
  receiveBinary(): void {
    this.#host.activity('in');
    this.#error(null, 'invalid argument', 'BiDi messages are text frames, not binary');
  }

  /** A text frame: parse, check, then answer here or send it on. */
  receive(text: string): void {
    this.#host.activity('in');
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (e) {
      return this.#error(null, 'invalid argument', `the message is not JSON: ${(e as Error).message}`);
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return this.#error(null, 'invalid argument', 'a command must be a JSON object');
    const { id, method, params } = message as Record<string, unknown>;
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > MAX_ID) {
      return this.#error(null, 'invalid argument', `a command's id must be an integer from 0 to ${MAX_ID}, got ${JSON.stringify(id) ?? 'none'}`);
    }
    if (typeof method !== 'string') return this.#error(id, 'invalid argument', "a command's method must be a string");
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return this.#error(id, 'invalid argument', `${method}: params must be an object`);
    const endpoint = this.#host.endpoint();
    switch (method) {
      case 'session.new':
        if (endpoint || !this.#host.newSession) return this.#error(id, 'session not created', 'this connection belongs to a session already');
        return void this.#newSession(id, params as Record<string, unknown>);
      case 'session.status':
        if (!endpoint) return this.#success(id, this.#host.status());
        return this.#success(id, { ready: false, message: 'this connection belongs to a session already' });
      case 'session.end':
      case 'browser.close':
        if (!endpoint) return this.#error(id, 'invalid session id', `${method}: there is no session`);
        // Answered, then ended: the socket closes with the session. The session's browser is
        // its own, so ending the session ends the browser too (the pool retires it).
        this.#success(id, {});
        void this.#host.endSession(`its BiDi client sent ${method}`);
        return;
      default:
        if (!endpoint) return this.#error(id, 'invalid session id', `${method}: there is no session yet (send session.new first)`);
        const refusal = this.#host.refusal?.(method, params as Record<string, unknown>) ?? null;
        if (typeof refusal === 'string') return this.#error(id, 'invalid argument', `${method}: ${refusal}`);
        this.#forwarded.set(id, { method, params: params as Record<string, unknown>, startedAt: Date.now(), started: performance.now() });
        this.#send(endpoint, id, method, params as Record<string, unknown>, refusal);
    }
  }

  /**
   * Commands reach the engine in the order they came, also when one waits for its ids or for the
   * policy's look at its files (`refusal`: refused then, it is answered and never sent).
   */
  #send(endpoint: BidiEndpoint, id: number, method: string, params: Record<string, unknown>, refusal: Promise<string | null> | null): void {
    // Translated (and shown to the seam) once it may be sent: at once, or after the policy's look.
    const translate = () => this.#host.translate?.(params, method);
    const translated = refusal ? undefined : translate();
    if (!refusal && !translated && !this.#sending) return endpoint.send({ id, method, params });
    const previous = this.#sending ?? Promise.resolve();
    const sending = previous
      .then(() => refusal)
      .then(
        async (refused) => {
          if (refused) {
            this.#forwarded.delete(id);
            return this.#error(id, 'invalid argument', `${method}: ${refused}`);
          }
          const p = await Promise.resolve((refusal ? translate() : translated) ?? params).catch(() => params);
          endpoint.send({ id, method, params: p });
        },
        (e: Error) => {
          this.#forwarded.delete(id);
          this.#error(id, 'unknown error', `${method}: ${e.message}`);
        },
      );
    this.#sending = sending;
    void sending.finally(() => {
      if (this.#sending === sending) this.#sending = undefined;
    });
  }

  /** session.new on a direct connection: one at a time, then the connection belongs to it. */
  async #newSession(id: number, params: Record<string, unknown>): Promise<void> {
    if (this.#creating) return this.#error(id, 'session not created', 'a session is being created on this connection already');
    this.#creating = true;
    try {
      this.#success(id, await this.#host.newSession!(params));
    } catch (e) {
      const { error, message } = e as { error?: string; message?: string };
      this.#error(id, (typeof error === 'string' ? error : 'session not created') as BidiErrorCode, message ?? String(e));
    } finally {
      this.#creating = false;
    }
  }

  #success(id: number, result: Record<string, unknown>): void {
    this.deliver({ type: 'success', id, result });
  }

  #error(id: number | null, error: BidiErrorCode, message: string): void {
    this.#host.failed('(refused by the gateway)', error);
    this.deliver({ type: 'error', id, error, message });
  }
}
