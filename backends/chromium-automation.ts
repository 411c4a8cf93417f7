// The extension commands Chromium carries out through its DevTools protocol, for both backends
// that drive it (native over puppeteer-core, Playwright through its CDP sessions): virtual
// authenticators (WebAuthn.*), FedCM dialogs (FedCm.*), network conditions and permissions'
// parameters, and the browser log as chromedriver reads it from CDP events. Each takes a
// page's CDP client; what differs between the backends (how a client is had, how its errors
// carry their code) stays with them.
import {
  InvalidParametersError,
  type AuthenticatorConfiguration,
  type BrowserLogEntry,
  type CredentialParameters,
  type FedCmDialog,
  type FedCmDialogs,
  type NetworkConditions,
  type VirtualAuthenticators,
} from './backend.ts';

/** A page's CDP client: puppeteer's CDPSession and Playwright's both have this much. */
export interface CdpClient {
  send(...args: never[]): Promise<unknown>;
  on(...args: never[]): unknown;
}

type Params = Record<string, unknown>;
const send = (client: CdpClient, method: string, params: Params = {}) => (client as unknown as { send(m: string, p: Params): Promise<Params> }).send(method, params);
const on = (client: CdpClient, event: string, handler: (params: Params) => void) => (client as unknown as { on(e: string, h: (p: Params) => void): unknown }).on(event, handler);

/** CDP's "invalid params" code: the command's values were refused (chromedriver: invalid argument). */
const INVALID_PARAMS = -32602;

/**
 * A CDP command's refusal as the backend's error: refused values (an unknown authenticator, a
 * permission name) are InvalidParametersError; `code` is CDP's where the client keeps it (a
 * client that does not: every refusal counts as refused values).
 */
export function refusal(method: string, e: unknown): Error {
  const code = (e as { code?: unknown }).code;
  const message = (e instanceof Error ? e.message : String(e)).replace(/^Protocol error \([^)]*\):\s*/, '');
  if (/Target closed|Session closed|has been closed/i.test(message)) return e instanceof Error ? e : new Error(message);
  if (code === INVALID_PARAMS || code === undefined) return new InvalidParametersError(message);
  return new Error(`${method}: ${message}`);
}

async function command(client: CdpClient, method: string, params: Params = {}): Promise<Params> {
  try {
    return await send(client, method, params);
  } catch (e) {
    throw refusal(method, e);
  }
}

// ── WebAuthn Level 2 §11 over CDP's WebAuthn domain (as chromedriver's webauthn_commands.cc) ──

const toBase64 = (base64url: string) => Buffer.from(base64url, 'base64url').toString('base64');
const toBase64url = (base64: string) => Buffer.from(base64, 'base64').toString('base64url');
/** The binary members of a credential: base64url in WebDriver, base64 in CDP. */
const BINARY = ['credentialId', 'privateKey', 'userHandle', 'largeBlob'] as const;

/** The virtual authenticators of one page (CDP enables its WebAuthn domain before each command, as chromedriver does). */
export function virtualAuthenticators(client: CdpClient): VirtualAuthenticators {
  const run = async (method: string, params: Params = {}) => {
    await command(client, 'WebAuthn.enable', { enableUI: false });
    return command(client, method, params);
  };
  return {
    async add(configuration: AuthenticatorConfiguration) {
      const { protocol, extensions, isUserConsenting, ...rest } = configuration;
      const options: Params = {
        ...rest,
        // CDP has no slash in its enum, and names CTAP 2.1 by ctap2Version.
        protocol: protocol === 'ctap1/u2f' ? 'u2f' : 'ctap2',
        ...(protocol !== 'ctap1/u2f' && { ctap2Version: protocol === 'ctap2_1' ? 'ctap2_1' : 'ctap2_0' }),
        ...(isUserConsenting !== undefined && { automaticPresenceSimulation: isUserConsenting }),
      };
      for (const extension of extensions) options[`has${extension[0]!.toUpperCase()}${extension.slice(1)}`] = true;
      const { authenticatorId } = await run('WebAuthn.addVirtualAuthenticator', { options });
      return String(authenticatorId);
    },
    async remove(authenticatorId) {
      await run('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    },
    async addCredential(authenticatorId, credential) {
      const converted: Params = { ...credential };
      for (const key of BINARY) if (typeof credential[key] === 'string') converted[key] = toBase64(credential[key]);
      await run('WebAuthn.addCredential', { authenticatorId, credential: converted });
    },
    async getCredentials(authenticatorId) {
      const { credentials } = await run('WebAuthn.getCredentials', { authenticatorId });
      return (credentials as Params[]).map((credential) => {
        const converted = { ...credential };
        for (const key of BINARY) if (typeof credential[key] === 'string') converted[key] = toBase64url(credential[key]);
        return converted as unknown as CredentialParameters;
      });
    },
    async removeCredential(authenticatorId, credentialId) {
      await run('WebAuthn.removeCredential', { authenticatorId, credentialId: toBase64(credentialId) });
    },
    async removeAllCredentials(authenticatorId) {
      await run('WebAuthn.clearCredentials', { authenticatorId });
    },
    async setUserVerified(authenticatorId, isUserVerified) {
      await run('WebAuthn.setUserVerified', { authenticatorId, isUserVerified });
    },
    async setCredentialProperties(authenticatorId, credentialId, properties) {
      await run('WebAuthn.setCredentialProperties', { authenticatorId, credentialId: toBase64(credentialId), ...properties });
    },
  };
}

// ── FedCM over CDP's FedCm domain (as chromedriver's fedcm_tracker.cc) ──────────────────────

/**
 * The FedCM dialogs of one page, from now on: FedCm.enable hands them to DevTools (no dialog is
 * shown to a user), and the last one shown is kept until it closes.
 */
export async function fedCmDialogs(client: CdpClient): Promise<FedCmDialogs> {
  let shown: (FedCmDialog & { dialogId: string }) | undefined;
  on(client, 'FedCm.dialogShown', (e) => {
    shown = {
      dialogId: String(e.dialogId ?? ''),
      dialogType: String(e.dialogType ?? ''),
      title: String(e.title ?? ''),
      ...(typeof e.subtitle === 'string' && { subtitle: e.subtitle }),
      accounts: Array.isArray(e.accounts) ? e.accounts : [],
    };
  });
  on(client, 'FedCm.dialogClosed', (e) => {
    if (shown?.dialogId === e.dialogId) shown = undefined;
  });
  await command(client, 'FedCm.enable', {});
  const dialogId = () => shown?.dialogId ?? '';
  return {
    dialog: () => shown && { dialogType: shown.dialogType, title: shown.title, ...(shown.subtitle !== undefined && { subtitle: shown.subtitle }), accounts: shown.accounts },
    async selectAccount(accountIndex) {
      // A dialog that is no account chooser refuses, and stays (a later dismiss still closes it).
      await command(client, 'FedCm.selectAccount', { dialogId: dialogId(), accountIndex });
      shown = undefined;
    },
    async clickDialogButton(button, index) {
      if (button === 'TermsOfService' || button === 'PrivacyPolicy') {
        await command(client, 'FedCm.openUrl', { dialogId: dialogId(), accountIndex: index, accountUrlType: button });
        return;
      }
      await command(client, 'FedCm.clickDialogButton', { dialogId: dialogId(), dialogButton: button });
      shown = undefined;
    },
    async dismiss() {
      await command(client, 'FedCm.dismissDialog', { dialogId: dialogId() });
      shown = undefined;
    },
    async setDelayEnabled(enabled) {
      await command(client, 'FedCm.enable', { disableRejectionDelay: !enabled });
    },
    async resetCooldown() {
      await command(client, 'FedCm.resetCooldown', {});
    },
  };
}

// ── Network conditions and permissions ───────────────────────────────────────────────────────

/** CDP Network.emulateNetworkConditions' parameters; null: no emulation (online, not throttled). */
export function networkConditionsParams(conditions: NetworkConditions | null): Params {
  const c = conditions ?? { offline: false, latency: 0, download_throughput: -1, upload_throughput: -1 };
  return { offline: c.offline, latency: c.latency, downloadThroughput: c.download_throughput, uploadThroughput: c.upload_throughput };
}

/** Set a permission through a browser-wide CDP client (Browser.setPermission), in one browser context. */
export async function setPermission(browserClient: CdpClient, params: { descriptor: Params; state: string; origin: string; browserContextId?: string }): Promise<void> {
  const { descriptor, state, origin, browserContextId } = params;
  await command(browserClient, 'Browser.setPermission', { permission: descriptor, setting: state, origin, ...(browserContextId && { browserContextId }) });
}

// ── The browser log, as chromedriver's console_logger.cc reads CDP ───────────────────────────

/** CDP's console and log levels as chromedriver's log levels; what has none is not logged. */
const LEVELS: Record<string, BrowserLogEntry['level']> = {
  verbose: 'DEBUG',
  debug: 'DEBUG',
  timeEnd: 'DEBUG',
  log: 'INFO',
  info: 'INFO',
  warning: 'WARNING',
  error: 'SEVERE',
  assert: 'SEVERE',
};

/** A console API call (Runtime.consoleAPICalled): its arguments' descriptions (strings as JSON), spaced. */
export function consoleEntry(e: { type: string; args: Params[]; stackTrace?: { callFrames: Params[] } }): BrowserLogEntry | undefined {
  const level = LEVELS[e.type];
  if (!level || !e.args?.length) return undefined;
  const frame = e.stackTrace?.callFrames[0];
  const text = e.args.map((arg) => (arg.type === 'undefined' ? 'undefined' : typeof arg.description === 'string' ? arg.description : JSON.stringify(arg.value ?? null))).join(' ');
  return {
    level,
    source: 'console-api',
    ...(frame && { url: String(frame.url ?? ''), line: Number(frame.lineNumber), column: Number(frame.columnNumber) }),
    text,
    // When it reached the gateway, as chromedriver stamps its entries.
    timestamp: Date.now(),
  };
}

/** A browser message (Log.entryAdded: a failed resource load, an intervention …). */
export function logEntry({ entry }: { entry: { level: string; source: string; text: string; url?: string; lineNumber?: number } }): BrowserLogEntry | undefined {
  const level = LEVELS[entry.level];
  if (!level) return undefined;
  return {
    level,
    source: entry.source,
    ...(entry.url && { url: entry.url }),
    ...(entry.lineNumber !== undefined && entry.lineNumber >= 0 && { line: entry.lineNumber }),
    text: entry.text,
    timestamp: Date.now(),
  };
}

/** An uncaught exception (Runtime.exceptionThrown): "Uncaught Error: message", as chromedriver writes it. */
export function exceptionEntry({ exceptionDetails: d }: { exceptionDetails: Params }): BrowserLogEntry {
  const exception = d.exception as { className?: string; preview?: { properties?: { name: string; value?: string }[] } } | undefined;
  const properties = exception?.preview?.properties;
  let text = '';
  if (properties) {
    // An Error's message, after its class; a thrown object without one leaves the text empty (as chromedriver).
    const message = properties.find((p) => p.name === 'message' && typeof p.value === 'string')?.value;
    if (message !== undefined) text = exception?.className ? `Uncaught ${exception.className}: ${message}` : message;
  } else {
    text = String(d.text ?? '');
  }
  return {
    level: 'SEVERE',
    source: 'javascript',
    ...(typeof d.url === 'string' && { url: d.url }),
    line: Number(d.lineNumber),
    column: Number(d.columnNumber),
    text,
    timestamp: Date.now(),
  };
}
