// The shape of a command: parameters parsed at the edge, then a handler with typed values.
import type { Parser } from '../params.ts';
import type { Session } from '../session.ts';
import type { Gateway, RequestContext } from '../gateway.ts';

export interface CommandContext {
  gateway: Gateway;
  urlParams: Record<string, string>;
  request: RequestContext;
}

export interface SessionCommandContext extends CommandContext {
  session: Session;
}

export type Command =
  | { session: false; params?: Parser<unknown>; handler(ctx: CommandContext, params: unknown): Promise<unknown> | unknown }
  | {
      session: true;
      params?: Parser<unknown>;
      /** Spec: the command's steps "handle any user prompts" before acting (see sessionCommand). */
      handlesUserPrompts: boolean;
      /** Delete Session: it waits for the commands before it at most a bound (see sessionCommand). */
      endsSession?: true;
      handler(ctx: SessionCommandContext, params: unknown): Promise<unknown> | unknown;
    };

/** A command that runs inside a session (the usual case). */
export function sessionCommand<P>(def: {
  params?: Parser<P>;
  /**
   * Spec §16: whether the session's user prompt handler runs first ("handle any user prompts").
   * Most commands do; false for those whose steps do not say so: Delete Session, Get/Set
   * Timeouts, Get Window Handle(s), Switch To Window, Release Actions and the alert commands.
   */
  handlesUserPrompts?: boolean;
  /**
   * Delete Session: the session ends even while a command before it still runs (after
   * ENDING_WAITS_AT_MOST_MS, src/webdriver/session.ts); any other waits for those before it.
   */
  endsSession?: true;
  handler(ctx: SessionCommandContext, params: P): Promise<unknown> | unknown;
}): Command {
  return {
    session: true,
    params: def.params,
    handlesUserPrompts: def.handlesUserPrompts ?? true,
    ...(def.endsSession && { endsSession: true }),
    handler: def.handler as Command['handler'],
  } as Command;
}

/** A command that needs no session: New Session, Status. */
export function globalCommand<P>(def: {
  params?: Parser<P>;
  handler(ctx: CommandContext, params: P): Promise<unknown> | unknown;
}): Command {
  return { session: false, params: def.params, handler: def.handler as Command['handler'] } as Command;
}
