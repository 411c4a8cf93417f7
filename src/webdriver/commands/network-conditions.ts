// chromedriver's network conditions (Selenium's setNetworkConditions / getNetworkConditions /
// deleteNetworkConditions): `{network_conditions: {offline, latency, download_throughput,
// upload_throughput}}` (or one `throughput` for both), or a preset by its `network_name` as
// Chrome DevTools names it. They apply to every window of the session, those it opens later too;
// Get answers what was set.
import type { NetworkConditions } from '../../../backends/backend.ts';
import { error } from '../errors.ts';
import { isPlainObject } from '../params.ts';
import type { Session } from '../session.ts';
import { sessionCommand } from './types.ts';

/** chromedriver's presets (network_list.cc, from Chrome DevTools): latency ms, throughput kbit/s. */
const PRESETS: Record<string, { latency: number; throughput: number }> = {
  Offline: { latency: 0, throughput: 0 },
  GPRS: { latency: 500, throughput: 50 },
  'Regular 2G': { latency: 300, throughput: 250 },
  'Good 2G': { latency: 150, throughput: 450 },
  'Regular 3G': { latency: 100, throughput: 750 },
  'Good 3G': { latency: 40, throughput: 1536 },
  'Regular 4G': { latency: 20, throughput: 4096 },
  DSL: { latency: 5, throughput: 2048 },
  WiFi: { latency: 2, throughput: 30720 },
  'No throttling': { latency: 0, throughput: -1 },
};

/** What each session set (Get answers it). */
const current = new WeakMap<Session, NetworkConditions>();

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function networkConditions(v: unknown): NetworkConditions {
  const { network_conditions: conditions, network_name: name } = v as Record<string, unknown>;
  if (isPlainObject(conditions)) {
    const { offline = false, latency, throughput, download_throughput: download, upload_throughput: upload } = conditions;
    if (typeof offline !== 'boolean') throw error('invalid argument', "invalid 'offline'");
    if (!isNumber(latency)) throw error('invalid argument', "invalid 'network_conditions' is missing 'latency'");
    if (isNumber(throughput)) return { offline, latency, download_throughput: throughput, upload_throughput: throughput };
    if (isNumber(download) && isNumber(upload)) return { offline, latency, download_throughput: download, upload_throughput: upload };
    throw error('invalid argument', "invalid 'network_conditions' is missing 'throughput' or 'download_throughput'/'upload_throughput' pair");
  }
  if (typeof name === 'string') {
    const preset = Object.hasOwn(PRESETS, name) ? PRESETS[name]! : undefined;
    if (!preset) throw error('invalid argument', `network_name must be a valid network (one of ${Object.keys(PRESETS).join(', ')})`);
    // The presets' throughputs are kbit/s; the conditions' bytes per second, as chromedriver converts.
    return { offline: false, latency: preset.latency, download_throughput: preset.throughput * 1024, upload_throughput: preset.throughput * 1024 };
  }
  throw error('invalid argument', "either 'network_conditions' or 'network_name' must be supplied");
}

function emulate(session: Session, conditions: NetworkConditions | null): Promise<void> {
  const { browser } = session;
  if (!browser.emulateNetworkConditions) throw error('unsupported operation', `chromium/network_conditions: the ${browser.browserName} browser of this backend cannot change its network conditions`);
  return browser.emulateNetworkConditions(conditions);
}

export const getNetworkConditions = sessionCommand({
  handlesUserPrompts: false,
  handler({ session }) {
    const conditions = current.get(session);
    // chromedriver's answer (unknown error) when none were set.
    if (!conditions) throw error('unknown error', 'network conditions must be set before it can be retrieved');
    return conditions;
  },
});

export const setNetworkConditions = sessionCommand({
  handlesUserPrompts: false,
  params: networkConditions,
  async handler({ session }, conditions: NetworkConditions) {
    await emulate(session, conditions);
    current.set(session, conditions);
    return null;
  },
});

export const deleteNetworkConditions = sessionCommand({
  handlesUserPrompts: false,
  async handler({ session }) {
    if (current.has(session)) await emulate(session, null);
    current.delete(session);
    return null;
  },
});
