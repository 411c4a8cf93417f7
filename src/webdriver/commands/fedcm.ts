// FedCM's automation (Federated Credential Management §"Automation"), as chromedriver routes it
// (`/fedcm/…`, Selenium's FedCM dialog API): the current window's account chooser and its
// buttons. Without a dialog shown, the dialog commands are `no such alert`, as chromedriver;
// the window's dialogs are the session's to answer from its first FedCM command on.
import type { FedCmDialog, FedCmDialogs } from '../../../backends/backend.ts';
import { error } from '../errors.ts';
import type { Session } from '../session.ts';
import { sessionCommand } from './types.ts';

async function dialogs(session: Session): Promise<FedCmDialogs> {
  const { browser } = session;
  if (!browser.fedCm) throw error('unsupported operation', `fedcm: the ${browser.browserName} browser of this backend has no FedCM automation`);
  return browser.fedCm(await session.currentTopLevel());
}

async function shown(session: Session): Promise<{ dialogs: FedCmDialogs; dialog: FedCmDialog }> {
  const all = await dialogs(session);
  const dialog = all.dialog();
  if (!dialog) throw error('no such alert', 'no FedCM dialog is shown');
  return { dialogs: all, dialog };
}

/** A member of the body, checked inside the command (after the dialog is known to be there, as chromedriver checks). */
function member<T>(body: unknown, key: string, check: (v: unknown) => v is T, what: string): T {
  const value = (body as Record<string, unknown> | undefined)?.[key];
  if (!check(value)) throw error('invalid argument', `${key} must be specified (${what})`);
  return value;
}
const isIndex = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';

// The dialog is the browser's, not the page's: a user prompt of the page stays for the next command.
const NO_PROMPTS = { handlesUserPrompts: false };

export const cancelFedCmDialog = sessionCommand({
  ...NO_PROMPTS,
  async handler({ session }) {
    await (await shown(session)).dialogs.dismiss();
    return null;
  },
});

export const selectFedCmAccount = sessionCommand({
  ...NO_PROMPTS,
  async handler({ session }, body: unknown) {
    const { dialogs: all } = await shown(session);
    await all.selectAccount(member(body, 'accountIndex', isIndex, 'an index of the account list'));
    return null;
  },
});

export const clickFedCmDialogButton = sessionCommand({
  ...NO_PROMPTS,
  async handler({ session }, body: unknown) {
    const { dialogs: all } = await shown(session);
    const button = member(body, 'dialogButton', isString, 'ConfirmIdpLoginContinue, ErrorGotIt, ErrorMoreDetails, TermsOfService or PrivacyPolicy');
    // The terms and the privacy policy are an account's: which one is `index`.
    const index = button === 'TermsOfService' || button === 'PrivacyPolicy' ? member(body, 'index', isIndex, "the account's index") : undefined;
    await all.clickDialogButton(button, index);
    return null;
  },
});

export const getFedCmAccountList = sessionCommand({
  ...NO_PROMPTS,
  async handler({ session }) {
    return (await shown(session)).dialog.accounts;
  },
});

export const getFedCmTitle = sessionCommand({
  ...NO_PROMPTS,
  async handler({ session }) {
    const { title, subtitle } = (await shown(session)).dialog;
    return { title, ...(subtitle !== undefined && { subtitle }) };
  },
});

export const getFedCmDialogType = sessionCommand({
  ...NO_PROMPTS,
  async handler({ session }) {
    return (await shown(session)).dialog.dialogType;
  },
});

export const setFedCmDelay = sessionCommand({
  ...NO_PROMPTS,
  async handler({ session }, body: unknown) {
    const all = await dialogs(session);
    await all.setDelayEnabled(member(body, 'enabled', isBoolean, 'true or false'));
    return null;
  },
});

export const resetFedCmCooldown = sessionCommand({
  ...NO_PROMPTS,
  async handler({ session }) {
    await (await dialogs(session)).resetCooldown();
    return null;
  },
});
