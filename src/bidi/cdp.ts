// A client's CDP connection through the gateway (`se:cdp`: ws://host/session/{id}/se/cdp), as
// Selenium's createCDPConnection and Grid's CDP proxy use it: messages checked, then sent to the
// browser over the session's own CDP bridge (DrivenBrowser.openCdp). Only a session that has its
// browser to itself has one: CDP reaches every target of a browser.
import type { CdpEndpoint, CdpMessage } from '../../backends/backend.ts';

/** JSON-RPC's "invalid request", as Chromium answers a malformed message. */
const INVALID_REQUEST = -32600;
/** JSON-RPC's server error, as Chromium answers a command it refuses. */
const SERVER_ERROR = -32000;

/** Why a command may not be sent (backends/policy/cdp.ts), or null; a promise when files are looked at. */
export type CdpRefusal = (method: string, params: Record<string, unknown> | undefined) => string | null | Promise<string | null>;

export class CdpConnection {
  readonly #endpoint: Promise<CdpEndpoint>;
  readonly #write: (text: string) => void;
  readonly #refusal: CdpRefusal;
  /** The last command still waiting for the policy's look, if any: later ones go after it. */
  #checking: Promise<void> = Promise.resolve();

  constructor(endpoint: Promise<CdpEndpoint>, write: (text: string) => void, refusal: CdpRefusal = () => null) {
    this.#endpoint = endpoint;
    this.#write = write;
    this.#refusal = refusal;
    endpoint.then(
      (e) => e.onMessage((message) => this.#write(JSON.stringify(message))),
      () => {},
    );
  }

  /** A text frame from the client: a command `{id, method, params?, sessionId?}`. */
  receive(text: string): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text);
    } catch {
      return this.#refuse(undefined, 'Message must be a valid JSON');
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return this.#refuse(undefined, 'Message must be an object');
    const { id, method, params, sessionId } = message;
    if (typeof id !== 'number' || !Number.isInteger(id)) return this.#refuse(undefined, "Message must have integer 'id' property");
    if (typeof method !== 'string') return this.#refuse(id, "Message must have string 'method' property");
    if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) return this.#refuse(id, "Message has property 'params' which is not an object");
    if (sessionId !== undefined && typeof sessionId !== 'string') return this.#refuse(id, "Message has property 'sessionId' which is not a string");
    // In order: commands sent before the bridge is up, or the policy's look at a command's files, wait.
    const refusal = this.#refusal(method, params as Record<string, unknown> | undefined);
    const send = (refused: string | null) => {
      if (refused) return this.#write(JSON.stringify({ id, error: { code: SERVER_ERROR, message: refused } }));
      return this.#endpoint.then(
        (endpoint) => endpoint.send({ id, method, params: params as Record<string, unknown> | undefined, sessionId: sessionId as string | undefined }),
        (e: Error) => this.#write(JSON.stringify({ id, error: { code: SERVER_ERROR, message: `the browser's CDP could not be reached: ${e.message}` } })),
      );
    };
    this.#checking = this.#checking.then(() => refusal).then(send, (e: Error) => send(`${method}: ${e.message}`));
  }

  /** The socket closed: the bridge detaches (the browser stays). */
  closed(): void {
    void this.#endpoint.then((e) => e.close(), () => {});
  }

  #refuse(id: number | undefined, message: string): void {
    const reply: CdpMessage = { error: { code: INVALID_REQUEST, message } };
    if (id !== undefined) reply.id = id;
    this.#write(JSON.stringify(reply));
  }
}
