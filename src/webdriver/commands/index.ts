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
import * as actions from './actions.ts';
import * as prompts from './prompts.ts';
import * as document from './document.ts';
import * as upload from './upload.ts';
import * as downloads from './downloads.ts';
import * as cdp from './cdp.ts';
import * as ops from '../../ops/commands.ts';
import * as admin from '../../ops/admin.ts';

export const commands: Record<string, Command> = {
  ...session,
  ...navigation,
  ...contexts,
  ...elements,
  ...interaction,
  ...script,
  ...cookies,
  ...screenshots,
  ...actions,
  ...prompts,
  ...document,
  ...upload,
  ...downloads,
  ...cdp,
  ...ops,
  ...admin,
} as Record<string, Command>;
