// The extension commands beside the W3C core that Firefox's WebDriver BiDi carries out for a
// session's user context: its log module's entries as chromedriver's browser log takes them,
// permissions (permissions.setPermission), the network cut (emulation.setNetworkConditions:
// offline only), and add-ons (webExtension.*). What BiDi has no way to do is a declared gap.
import { InvalidParametersError, UnsupportedPrimitiveError, type BrowserLogEntry, type NetworkConditions, type PermissionDescriptor, type PermissionState } from '../backend.ts';
import { BIDI_GAPS } from './gaps.ts';
import { BidiError, type Channel } from './hub.ts';

const LEVELS: Record<string, BrowserLogEntry['level']> = { debug: 'DEBUG', info: 'INFO', warn: 'WARNING', error: 'SEVERE' };

/**
 * A BiDi log entry (log.entryAdded) as a browser log entry: its level, where its stack's top
 * frame is (0-based, as chromedriver writes CDP's), and BiDi's text as it gives it.
 */
export function browserLogEntry(params: Record<string, unknown>): BrowserLogEntry | undefined {
  const level = LEVELS[String(params.level)];
  if (!level || (params.type !== 'console' && params.type !== 'javascript')) return undefined;
  const frame = (params.stackTrace as { callFrames?: { url?: string; lineNumber?: number; columnNumber?: number }[] } | undefined)?.callFrames?.[0];
  return {
    level,
    source: params.type === 'console' ? 'console-api' : 'javascript',
    ...(frame && { url: frame.url ?? '', line: frame.lineNumber ?? 0, column: frame.columnNumber ?? 0 }),
    text: String(params.text ?? ''),
    timestamp: Date.now(),
  };
}

/** A BiDi refusal of the values given as the backend's (invalid argument); anything else as it is. */
function refused(e: unknown, codes: string[]): Error {
  if (e instanceof BidiError && codes.includes(e.error)) return new InvalidParametersError(e.message);
  return e instanceof BidiError ? new Error(`${e.error}: ${e.message}`) : (e as Error);
}

export async function setPermission(channel: Channel, userContext: string, descriptor: PermissionDescriptor, state: PermissionState, origin: string): Promise<void> {
  try {
    await channel.call('permissions.setPermission', { descriptor, state, origin, userContext });
  } catch (e) {
    throw refused(e, ['invalid argument']);
  }
}

/** Offline, or as it is: Firefox's BiDi emulates no latency and no throughput. */
export async function emulateNetworkConditions(channel: Channel, userContext: string, conditions: NetworkConditions | null): Promise<void> {
  const throttled = conditions !== null && (conditions.latency !== 0 || conditions.download_throughput >= 0 || conditions.upload_throughput >= 0);
  if (throttled) throw new UnsupportedPrimitiveError(BIDI_GAPS.networkThrottling);
  await channel.call('emulation.setNetworkConditions', { networkConditions: conditions?.offline ? { type: 'offline' } : null, userContexts: [userContext] });
}

/** geckodriver's install: a temporary add-on goes with the browser; a permanent one must be signed. */
export async function installAddon(channel: Channel, addon: { base64: string } | { path: string }, temporary: boolean): Promise<string> {
  const extensionData = 'base64' in addon ? { type: 'base64', value: addon.base64 } : { type: 'path', path: addon.path };
  try {
    const { extension } = await channel.call<{ extension: string }>('webExtension.install', { extensionData, ...(!temporary && { 'moz:permanent': true }) });
    return extension;
  } catch (e) {
    throw refused(e, ['invalid argument', 'invalid web extension']);
  }
}

export async function uninstallAddon(channel: Channel, id: string): Promise<void> {
  try {
    await channel.call('webExtension.uninstall', { extension: id });
  } catch (e) {
    throw refused(e, ['invalid argument', 'no such web extension']);
  }
}
