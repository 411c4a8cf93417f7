// Command name (as in src/server/routes.ts) → implementation. One file per spec chapter.
import type { Command } from './types.ts';
import * as session from './session.ts';
import * as navigation from './navigation.ts';
import * as contexts from './contexts.ts';

export const commands: Record<string, Command> = {
  ...session,
  ...navigation,
  ...contexts,
};
