// The W3C commands: name (as in src/webdriver/routes.ts) → implementation, one file per spec
// chapter. The whole table, with the operators' and the history's commands, is assembled where
// the rooms are wired (src/app.ts).
import type { CommandName } from '../routes.ts';
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
import * as logs from './logs.ts';
import * as permissions from './permissions.ts';
import * as webauthn from './webauthn.ts';
import * as networkConditions from './network-conditions.ts';
import * as fedcm from './fedcm.ts';
import * as gecko from './gecko.ts';

// Typed by the route table: an export whose name is no routed command does not compile.
export const webdriverCommands = {
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
  ...logs,
  ...permissions,
  ...webauthn,
  ...networkConditions,
  ...fedcm,
  ...gecko,
} satisfies Partial<Record<CommandName, Command>>;
