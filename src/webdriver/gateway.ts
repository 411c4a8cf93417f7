// The W3C layer's entry point: find the command, the session, parse parameters, run the handler.
// The HTTP edge calls `execute`; it never sees a session or a backend.
import type { Backend, BackendEnvironment } from '../../backends/backend.ts';
import { commands } from './commands/index.ts';
import { UserPromptOpenedError } from '../../backends/backend.ts';
import { error } from './errors.ts';
import { handleAnyUserPrompts } from './prompts.ts';
import { Sessions } from './sessions.ts';

export interface GatewayOptions {
  backends: Backend[];
  environment: BackendEnvironment;
  /** Most sessions at once; New Session beyond it is `session not created`. */
  maxSessions: number;
}

export class Gateway {
  readonly sessions = new Sessions();
  readonly backends: Backend[];
  readonly environment: BackendEnvironment;
  readonly maxSessions: number;
  #closing = false;

  constructor(options: GatewayOptions) {
    this.backends = options.backends;
    this.environment = options.environment;
    this.maxSessions = options.maxSessions;
  }

  get closing(): boolean {
    return this.#closing;
  }

  /** Run one command. Throws WebDriverError (or anything, which the edge maps to unknown error). */
  async execute(name: string, urlParams: Record<string, string>, body: unknown): Promise<unknown> {
    const command = commands[name];
    if (!command) throw error('unsupported operation', `${name} is not implemented yet`);
    if (!command.session) {
      const params = command.params ? command.params(body, '') : body;
      return command.handler({ gateway: this, urlParams }, params);
    }
    const session = this.sessions.get(urlParams.sessionId!);
    if (!session) throw error('invalid session id', `no active session with id ${urlParams.sessionId}`);
    const params = command.params ? command.params(body, '') : body;
    return session.serialize(async () => {
      if (session.ended) throw error('invalid session id', `session ${session.id} has ended`);
      if (command.handlesUserPrompts) await handleAnyUserPrompts(session);
      try {
        return await command.handler({ gateway: this, urlParams, session }, params);
      } catch (e) {
        // A user prompt opened during the command and blocks the page: the command ends there
        // with success and null (spec Execute Script; chromedriver for every command). The
        // prompt is the next command's to handle.
        if (e instanceof UserPromptOpenedError) return null;
        throw e;
      }
    });
  }

  /** End every session (gateway shutdown). */
  async close(): Promise<void> {
    this.#closing = true;
    for (const session of this.sessions.all()) void this.sessions.end(session);
    await this.sessions.settled();
  }
}
