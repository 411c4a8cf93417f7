// The registry of backends: the only place that names concrete backends.
import type { AnyBackend } from './backend.ts';
import { createNativeBackend, type NativeOptions } from './native/index.ts';
import { createPlaywrightBackend, type PlaywrightOptions } from './playwright/index.ts';
import { createRemoteBackend, type RemoteOptions } from './remote/index.ts';

export interface BackendsConfig {
  native: NativeOptions;
  remote: RemoteOptions;
  playwright: PlaywrightOptions;
}

/** Every backend, in the order they are asked when no route names one (native first). */
export async function createBackends(config: BackendsConfig): Promise<AnyBackend[]> {
  return [await createNativeBackend(config.native), await createPlaywrightBackend(config.playwright), createRemoteBackend(config.remote)];
}

export { removeDeadGatewayDirs } from './shared.ts';
export { DEBUG_PROCESS_SWITCHES } from './native/index.ts';
