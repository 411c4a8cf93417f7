// WebAuthn Level 2 §11 "WebDriver Extensions": virtual authenticators and their credentials, in
// the current window's page (Chromium keeps them per page, as chromedriver uses them), and
// Level 3's Set Credential Properties. Binary values are base64url both ways; an unknown
// authenticator or credential is invalid argument (the spec's). Private keys and credential ids
// never reach a trace (src/webdriver/redact.ts hides them by name).
import type { VirtualAuthenticators } from '../../../backends/backend.ts';
import { error } from '../errors.ts';
import { authenticatorConfiguration, base64url, credentialParameters, optionalBoolean, type Body } from '../webauthn.ts';
import type { Session } from '../session.ts';
import { sessionCommand } from './types.ts';

async function authenticators(session: Session): Promise<VirtualAuthenticators> {
  const { browser } = session;
  if (!browser.virtualAuthenticators) throw error('unsupported operation', `webauthn: the ${browser.browserName} browser of this backend has no virtual authenticators`);
  return browser.virtualAuthenticators(await session.currentTopLevel());
}

// None touches the page: a user prompt stays for the next command.
const NO_PROMPTS = { handlesUserPrompts: false };

export const addVirtualAuthenticator = sessionCommand({
  ...NO_PROMPTS,
  params: authenticatorConfiguration,
  async handler({ session }, configuration) {
    return (await authenticators(session)).add(configuration);
  },
});

export const removeVirtualAuthenticator = sessionCommand({
  ...NO_PROMPTS,
  async handler({ session, urlParams }) {
    await (await authenticators(session)).remove(urlParams.authenticatorId!);
    return null;
  },
});

export const addCredential = sessionCommand({
  ...NO_PROMPTS,
  params: credentialParameters,
  async handler({ session, urlParams }, credential) {
    await (await authenticators(session)).addCredential(urlParams.authenticatorId!, credential);
    return null;
  },
});

export const getCredentials = sessionCommand({
  ...NO_PROMPTS,
  async handler({ session, urlParams }) {
    return (await authenticators(session)).getCredentials(urlParams.authenticatorId!);
  },
});

export const removeCredential = sessionCommand({
  ...NO_PROMPTS,
  async handler({ session, urlParams }) {
    const credentialId = base64url(urlParams.credentialId, 'credentialId');
    await (await authenticators(session)).removeCredential(urlParams.authenticatorId!, credentialId);
    return null;
  },
});

export const removeAllCredentials = sessionCommand({
  ...NO_PROMPTS,
  async handler({ session, urlParams }) {
    await (await authenticators(session)).removeAllCredentials(urlParams.authenticatorId!);
    return null;
  },
});

export const setUserVerified = sessionCommand({
  ...NO_PROMPTS,
  params: (v) => {
    const isUserVerified = (v as Body).isUserVerified;
    if (typeof isUserVerified !== 'boolean') throw error('invalid argument', 'isUserVerified must be a boolean');
    return isUserVerified;
  },
  async handler({ session, urlParams }, isUserVerified: boolean) {
    await (await authenticators(session)).setUserVerified(urlParams.authenticatorId!, isUserVerified);
    return null;
  },
});

export const setCredentialProperties = sessionCommand({
  ...NO_PROMPTS,
  params: (v) => ({ backupEligibility: optionalBoolean(v as Body, 'backupEligibility'), backupState: optionalBoolean(v as Body, 'backupState') }),
  async handler({ session, urlParams }, properties: { backupEligibility?: boolean; backupState?: boolean }) {
    const credentialId = base64url(urlParams.credentialId, 'credentialId');
    await (await authenticators(session)).setCredentialProperties(urlParams.authenticatorId!, credentialId, properties);
    return null;
  },
});

