// W3C Permissions §"Automation": Set Permission, `POST /session/{id}/permissions`
// {descriptor, state, oneRealm}: the permission's state for the origin of the current browsing
// context's document, in this session's browser context only. chromedriver's words for bad
// parameters; `oneRealm` is accepted and, as in chromedriver, the whole origin is set.
import type { PermissionDescriptor, PermissionState } from '../../../backends/backend.ts';
import { error } from '../errors.ts';
import { isPlainObject } from '../params.ts';
import { sessionCommand } from './types.ts';

const STATES: readonly PermissionState[] = ['granted', 'denied', 'prompt'];

function setPermissionParams(v: unknown): { descriptor: PermissionDescriptor; state: PermissionState } {
  const { descriptor, state } = v as { descriptor?: unknown; state?: unknown };
  if (!isPlainObject(descriptor)) throw error('invalid argument', 'no descriptor dictionary');
  if (typeof descriptor.name !== 'string') throw error('invalid argument', 'no name in descriptor');
  if (state === undefined) throw error('invalid argument', 'no permission state');
  if (!STATES.includes(state as PermissionState)) throw error('invalid argument', `unrecognized permission state (one of ${STATES.join(', ')})`);
  return { descriptor: descriptor as PermissionDescriptor, state: state as PermissionState };
}

export const setPermission = sessionCommand({
  params: setPermissionParams,
  async handler({ session }, { descriptor, state }) {
    const { browser } = session;
    if (!browser.setPermission) throw error('unsupported operation', `permissions: the ${browser.browserName} browser of this backend cannot set permissions`);
    const context = await session.currentContext();
    const origin = await browser.callFunction(context, 'function () { return self.origin; }', []);
    if (typeof origin !== 'string' || origin === 'null') {
      throw error('invalid argument', "the current document's origin is opaque (about:blank, data:, a sandboxed frame): a permission is set for an origin");
    }
    await browser.setPermission(context.window, descriptor, state, origin);
    return null;
  },
});
