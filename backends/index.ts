// The registry of backends: the only place that names concrete backends.
import type { Backend } from './backend.ts';
import { createNativeBackend, type NativeOptions } from './native/index.ts';

export interface BackendsConfig {
  native: NativeOptions;
}

export async function createBackends(config: BackendsConfig): Promise<Backend[]> {
  return [await createNativeBackend(config.native)];
}

export { deadGatewayDirs } from './native/processes.ts';
export { DEBUG_PROCESS_SWITCHES } from './native/index.ts';
