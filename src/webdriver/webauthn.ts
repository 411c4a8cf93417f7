// WebAuthn Level 2 §11 "WebDriver Extensions": the values its commands take, checked as the spec
// and chromedriver check them (./commands/webauthn.ts runs the commands), and the capabilities
// New Session answers where virtual authenticators are had.
import type { AuthenticatorConfiguration, CredentialParameters, DrivenBrowser } from '../../backends/backend.ts';
import { error } from './errors.ts';

const PROTOCOLS = ['ctap1/u2f', 'ctap2', 'ctap2_1'] as const;
/** The authenticator extensions Chromium's virtual authenticators have (chromedriver's list). */
const EXTENSIONS = ['largeBlob', 'credBlob', 'minPinLength', 'prf'];

export type Body = Record<string, unknown>;

export function optionalBoolean(body: Body, key: string): boolean | undefined {
  const v = body[key];
  if (v !== undefined && typeof v !== 'boolean') throw error('invalid argument', `${key} must be a boolean`);
  return v as boolean | undefined;
}

function requiredString(body: Body, key: string): string {
  if (typeof body[key] !== 'string') throw error('invalid argument', `${key} must be a string`);
  return body[key] as string;
}

/** Base64url (RFC 4648 §5), padded or not, as chromedriver decodes it. */
export function base64url(value: unknown, key: string): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]*={0,2}$/.test(value) || value.replace(/=+$/, '').length % 4 === 1) {
    throw error('invalid argument', `${key} must be a base64url encoded string`);
  }
  return value;
}

export function authenticatorConfiguration(v: unknown): AuthenticatorConfiguration {
  const body = v as Body;
  const protocol = body.protocol;
  if (!(PROTOCOLS as readonly unknown[]).includes(protocol)) throw error('invalid argument', `${typeof protocol === 'string' ? protocol : JSON.stringify(protocol)} is not a recognized protocol version (one of ${PROTOCOLS.join(', ')})`);
  const extensions = body.extensions ?? [];
  if (!Array.isArray(extensions) || !extensions.every((e) => typeof e === 'string')) throw error('invalid argument', 'extensions must be a list of strings');
  // Spec §11.3: an extension the implementation does not support is unsupported operation.
  for (const extension of extensions) if (!EXTENSIONS.includes(extension)) throw error('unsupported operation', `${extension} is not a recognized extension (${EXTENSIONS.join(', ')})`);
  const configuration: AuthenticatorConfiguration = { protocol: protocol as AuthenticatorConfiguration['protocol'], transport: requiredString(body, 'transport'), extensions };
  for (const key of ['hasResidentKey', 'hasUserVerification', 'isUserConsenting', 'isUserVerified', 'defaultBackupEligibility', 'defaultBackupState'] as const) {
    const value = optionalBoolean(body, key);
    if (value !== undefined) configuration[key] = value;
  }
  return configuration;
}

export function credentialParameters(v: unknown): CredentialParameters {
  const body = v as Body;
  if (typeof body.isResidentCredential !== 'boolean') throw error('invalid argument', 'isResidentCredential must be a boolean');
  const credentialId = base64url(body.credentialId, 'credentialId');
  const rpId = requiredString(body, 'rpId');
  const privateKey = base64url(body.privateKey, 'privateKey');
  // §11.6: the credential's initial signature counter.
  if (!Number.isInteger(body.signCount) || (body.signCount as number) < 0) throw error('invalid argument', 'signCount must be a non-negative integer');
  const credential: CredentialParameters = { credentialId, isResidentCredential: body.isResidentCredential, rpId, privateKey, signCount: body.signCount as number };
  for (const key of ['userHandle', 'largeBlob'] as const) if (body[key] !== undefined && body[key] !== null) credential[key] = base64url(body[key], key);
  for (const key of ['backupEligibility', 'backupState'] as const) {
    const value = optionalBoolean(body, key);
    if (value !== undefined) credential[key] = value;
  }
  for (const key of ['userName', 'userDisplayName'] as const) {
    if (body[key] === undefined) continue;
    if (typeof body[key] !== 'string') throw error('invalid argument', `${key} must be a string`);
    credential[key] = body[key] as string;
  }
  return credential;
}

/** WebAuthn §11.1 "Authenticator Extension Capabilities": what New Session answers where virtual authenticators are had. */
export function webAuthnCapabilities(browser: DrivenBrowser): Record<string, true> {
  if (!browser.virtualAuthenticators) return {};
  return { 'webauthn:virtualAuthenticators': true, ...Object.fromEntries(EXTENSIONS.map((extension) => [`webauthn:extension:${extension}`, true as const])) };
}

/** The `webauthn:` capabilities a New Session asked for, each checked to be a boolean (§11.1: invalid argument otherwise). */
export function askedWebAuthnCapabilities(capabilities: Record<string, unknown>): string[] {
  const asked: string[] = [];
  for (const [name, value] of Object.entries(capabilities)) {
    if (!name.startsWith('webauthn:')) continue;
    if (typeof value !== 'boolean') throw error('invalid argument', `${name} must be a boolean`);
    if (value) asked.push(name);
  }
  return asked;
}

/** Why the leased browser does not match the `webauthn:` capabilities asked true (they are matched, §11.1), or null. */
export function webAuthnMismatch(asked: readonly string[], browser: DrivenBrowser): string | null {
  const had = webAuthnCapabilities(browser);
  const missing = asked.filter((name) => !(name in had));
  if (missing.length === 0) return null;
  return `${missing.join(', ')}: the ${browser.browserName} browser of this backend has ${browser.virtualAuthenticators ? 'not that extension' : 'no virtual authenticators'}`;
}
