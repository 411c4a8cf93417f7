// The shape of a command: parameters parsed at the edge, then a handler with typed values.
import type { Parser } from '../params.ts';
import type { Session } from '../session.ts';
import type { Gateway } from '../gateway.ts';

export interface CommandContext {
  gateway: Gateway;
  urlParams: Record<string, string>;
}

export interface SessionCommandContext extends CommandContext {
  session: Session;
}

export type Command =
  | { session: false; params?: Parser<unknown>; handler(ctx: CommandContext, params: unknown): Promise<unknown> | unknown }
  | { session: true; params?: Parser<unknown>; handler(ctx: SessionCommandContext, params: unknown): Promise<unknown> | unknown };

/** A command that runs inside a session (the usual case). */
export function sessionCommand<P>(def: {
  params?: Parser<P>;
  handler(ctx: SessionCommandContext, params: P): Promise<unknown> | unknown;
}): Command {
  return { session: true, params: def.params, handler: def.handler as Command['handler'] } as Command;
}

/** A command that needs no session: New Session, Status. */
export function globalCommand<P>(def: {
  params?: Parser<P>;
  handler(ctx: CommandContext, params: P): Promise<unknown> | unknown;
}): Command {
  return { session: false, params: def.params, handler: def.handler as Command['handler'] } as Command;
}
