// Every command the route table names, by name: the W3C commands (src/webdriver/commands/),
// the operators' (src/ops/) and the history's (src/trace/). Assembled here, by the route table's
// owner, so that webdriver/ never imports the rooms built on it. A route whose command is in
// none of them answers `unsupported operation`.
import type { Command } from '../webdriver/commands/types.ts';
import { webdriverCommands } from '../webdriver/commands/index.ts';
import * as ops from '../ops/commands.ts';
import * as admin from '../ops/admin.ts';
import * as history from '../trace/commands.ts';

export const commands: Record<string, Command> = { ...webdriverCommands, ...ops, ...admin, ...history } as Record<string, Command>;
