// Principals through a Selenium Grid (issue 41). A Grid's relay node opens every session on the
// gateway with its own credentials, so without this every Grid client would be the relay's one
// principal. The relay authenticates with a token marked `relay` (its URL's `user:token@`; the
// gateway challenges, the JDK client answers); its client proves who it is with a capability the
// Grid passes on, `wdgate:principal`, which the gateway checks against its tokens, strips, and
// makes the session's principal: quotas, shares and `files` hold per client through a fleet.
//
// The proof is not the token: the Grid shows a queued request's capabilities to anyone who asks
// its GraphQL (KEDA's scaler reads them there) and logs them. It is an HMAC with the key
// SHA-256(token) of "wdgate:principal\n<name>\n<issued>\n<nonce>": who has seen it cannot make
// another, it is taken for `principalProofMaxAge` after `issued`, and each nonce once per
// gateway. A relay (and no other principal) may present one; it then drives the sessions it
// opened so, as their principal.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../base/principal.ts';
import { error } from '../webdriver/errors.ts';
import { PRINCIPAL_CAPABILITY } from '../webdriver/relayed.ts';
import type { Tokens } from './auth.ts';

/** How far ahead of the gateway's clock a client's may be (ms). */
const CLOCK_SKEW_MS = 60_000;

/** The text a proof signs (the key: SHA-256 of the principal's token). */
export function proofText(name: string, issued: number, nonce: string): string {
  return `wdgate:principal\n${name}\n${issued}\n${nonce}`;
}

export class RelayedPrincipals {
  readonly #maxAgeMs: number;
  /** Nonces taken, with when they may be forgotten (their proof's end). */
  readonly #nonces = new Map<string, number>();

  constructor(maxAgeMs: number) {
    this.#maxAgeMs = maxAgeMs;
  }

  /**
   * The principal a `wdgate:principal` proof names, presented by `asker`; a WebDriverError
   * (invalid argument, session not created) when it may not present one or the proof fails.
   */
  verify(tokens: Tokens, asker: Principal, claim: unknown, now = Date.now()): Principal {
    if (!asker.relay) {
      throw error('invalid argument', `${PRINCIPAL_CAPABILITY} is for Selenium Grid relays (a principal with "relay" in the token file); ${asker.name} authenticates with its own token`);
    }
    const { name, issued, nonce, proof } = parseClaim(claim);
    const named = tokens.named(name);
    const expected = named && createHmac('sha256', named.key).update(proofText(name, issued, nonce)).digest();
    const given = Buffer.from(proof, 'hex');
    if (!expected || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw error('session not created', `${PRINCIPAL_CAPABILITY}: the proof for ${name} does not hold (not signed with its token, or no such principal)`);
    }
    const age = now - issued * 1000;
    if (age > this.#maxAgeMs) throw error('session not created', `${PRINCIPAL_CAPABILITY}: the proof was issued ${Math.round(age / 1000)} s ago, longer than principalProofMaxAge (${this.#maxAgeMs / 1000} s)`);
    if (age < -CLOCK_SKEW_MS) throw error('session not created', `${PRINCIPAL_CAPABILITY}: the proof was issued ${Math.round(-age / 1000)} s in the future`);
    for (const [seen, until] of this.#nonces) if (until < now) this.#nonces.delete(seen);
    if (this.#nonces.has(nonce)) throw error('session not created', `${PRINCIPAL_CAPABILITY}: this proof was used already (a nonce is good for one session)`);
    this.#nonces.set(nonce, issued * 1000 + this.#maxAgeMs);
    return named.principal;
  }
}

function parseClaim(claim: unknown): { name: string; issued: number; nonce: string; proof: string } {
  const shape = `${PRINCIPAL_CAPABILITY} must be {"name", "issued" (seconds since 1970), "nonce" (16 to 64 letters, digits, - or _), "proof" (64 hex digits)}`;
  if (typeof claim !== 'object' || claim === null || Array.isArray(claim)) throw error('invalid argument', shape);
  const { name, issued, nonce, proof, ...rest } = claim as Record<string, unknown>;
  const ok =
    Object.keys(rest).length === 0 &&
    typeof name === 'string' &&
    Number.isSafeInteger(issued) &&
    typeof nonce === 'string' &&
    /^[A-Za-z0-9_-]{16,64}$/.test(nonce) &&
    typeof proof === 'string' &&
    /^[0-9a-f]{64}$/i.test(proof);
  if (!ok) throw error('invalid argument', shape);
  return { name: name as string, issued: issued as number, nonce: nonce as string, proof: proof as string };
}

/**
 * Whose request it is: a relay's request about a session it opened for a principal is that
 * principal's (it drives the session as its client's); any other request is its asker's.
 */
export function actingPrincipal(asker: Principal, sessionId: string | undefined, sessions: { relayOf(id: string): string | undefined; get(id: string): { owner: string } | undefined }, tokens: Tokens): Principal {
  if (!asker.relay || sessionId === undefined || sessions.relayOf(sessionId) !== asker.name) return asker;
  const owner = sessions.get(sessionId)?.owner;
  return (owner !== undefined && tokens.named(owner)?.principal) || asker;
}
