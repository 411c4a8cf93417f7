// New Session through a Selenium Grid relay (src/server/relay.ts checks the proof): the client's
// `wdgate:principal` is taken out of the capabilities before they are processed, so that no
// backend, answer, trace or log ever holds it. The Grid passes a client's alwaysMatch on as
// firstMatch[0]: it may be in either, and in each firstMatch entry, the same each time.
import { isDeepStrictEqual } from 'node:util';
import { error } from './errors.ts';

/** The capability a relay's client proves its principal with. */
export const PRINCIPAL_CAPABILITY = 'wdgate:principal';

/** The claim, removed from New Session's parameters (undefined: none); malformed parameters are left to processCapabilities. */
export function takePrincipalClaim(params: unknown): unknown {
  const capabilities = (params as { capabilities?: unknown } | null)?.capabilities;
  if (typeof capabilities !== 'object' || capabilities === null) return undefined;
  const { alwaysMatch, firstMatch } = capabilities as { alwaysMatch?: unknown; firstMatch?: unknown };
  const sets = [alwaysMatch, ...(Array.isArray(firstMatch) ? firstMatch : [])].filter(
    (set): set is Record<string, unknown> => typeof set === 'object' && set !== null && !Array.isArray(set) && Object.hasOwn(set, PRINCIPAL_CAPABILITY),
  );
  if (sets.length === 0) return undefined;
  const claim = sets[0]![PRINCIPAL_CAPABILITY];
  if (!sets.every((set) => isDeepStrictEqual(set[PRINCIPAL_CAPABILITY], claim))) {
    throw error('invalid argument', `${PRINCIPAL_CAPABILITY} differs between alwaysMatch and firstMatch: send it once`);
  }
  for (const set of sets) delete set[PRINCIPAL_CAPABILITY];
  return claim;
}
