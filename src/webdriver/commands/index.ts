// Command name (as in src/server/routes.ts) → implementation. One file per spec chapter.
// A route whose command is not exported by any of these answers `unsupported operation`.
import type { Command } from './types.ts';
import * as session from './session.ts';
import * as navigation from './navigation.ts';
import * as contexts from './contexts.ts';
import * as elements from './elements.ts';
import * as interaction from './interaction.ts';
import * as script from './script.ts';
import * as cookies from './cookies.ts';
import * as screenshots from './screenshots.ts';

export const commands: Record<string, Command> = {
  ...session,
  ...navigation,
  ...contexts,
  ...elements,
  ...interaction,
  ...script,
  ...cookies,
  ...screenshots,
} as Record<string, Command>;
