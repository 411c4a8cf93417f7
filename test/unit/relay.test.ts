// Principals through a Selenium Grid relay (src/server/relay.ts, src/webdriver/relayed.ts): a
// client proves its principal to the gateway with an HMAC of its token's digest that the Grid
// passes on as a capability; only a relay may present one, each once, for a while; the
// capability never reaches the capabilities the session is made from. (With the real hub:
// test/integration/kubernetes.test.ts.)
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { collectTokens } from '../../src/server/auth.ts';
import { actingPrincipal, proofText, RelayedPrincipals } from '../../src/server/relay.ts';
import { takePrincipalClaim } from '../../src/webdriver/relayed.ts';
import { WebDriverError } from '../../src/webdriver/errors.ts';

const ALICE = 'alice-token-0123456789abcdef';
const tokens = collectTokens({
  file: null,
  env: undefined,
  list: [
    { name: 'grid', token: 'relay-token-0123456789abcdef', maxSessions: 8, relay: true },
    { name: 'alice', token: ALICE, maxSessions: 1, files: true },
    { name: 'bob', token: 'bob-token-0123456789abcdef', maxSessions: 2 },
  ],
});
const relay = tokens.named('grid')!.principal;
const bob = tokens.named('bob')!.principal;
const NOW = 1_800_000_000_000;

/** What a client computes (README, "Kubernetes"): HMAC-SHA256 with the key SHA-256(token). */
function proof(name: string, token: string, issued = NOW / 1000, nonce = `nonce-${Math.random().toString(36).slice(2)}xxxxxxxx`) {
  const key = createHash('sha256').update(token).digest();
  return { name, issued, nonce, proof: createHmac('sha256', key).update(proofText(name, issued, nonce)).digest('hex') };
}

const refused = (f: () => unknown, code: string, message: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof WebDriverError && e.code === code && message.test(e.message) && !e.message.includes(ALICE));

describe('principals through a Grid relay', () => {
  test("a relay's client proves its principal; the session is that principal's, with its limits", () => {
    const principals = new RelayedPrincipals(600_000);
    assert.deepEqual(principals.verify(tokens, relay, proof('alice', ALICE), NOW), tokens.named('alice')!.principal);
    // Issued a little ahead (a client's clock), or up to principalProofMaxAge ago.
    assert.equal(principals.verify(tokens, relay, proof('alice', ALICE, NOW / 1000 + 30), NOW).name, 'alice');
    assert.equal(principals.verify(tokens, relay, proof('alice', ALICE, NOW / 1000 - 590), NOW).name, 'alice');
  });

  test('a client cannot claim another principal, nor reuse a proof, nor present one without a relay', () => {
    const principals = new RelayedPrincipals(600_000);
    refused(() => principals.verify(tokens, relay, proof('alice', 'bob-token-0123456789abcdef'), NOW), 'session not created', /proof for alice does not hold/);
    refused(() => principals.verify(tokens, relay, proof('mallory', ALICE), NOW), 'session not created', /does not hold/);
    refused(() => principals.verify(tokens, relay, proof('alice', ALICE, NOW / 1000 - 601), NOW), 'session not created', /longer than principalProofMaxAge/);
    refused(() => principals.verify(tokens, relay, proof('alice', ALICE, NOW / 1000 + 120), NOW), 'session not created', /in the future/);
    const once = proof('alice', ALICE);
    principals.verify(tokens, relay, once, NOW);
    refused(() => principals.verify(tokens, relay, once, NOW + 1000), 'session not created', /used already/);
    refused(() => principals.verify(tokens, bob, proof('alice', ALICE), NOW), 'invalid argument', /for Selenium Grid relays/);
    for (const bad of ['alice', null, [], { ...proof('alice', ALICE), extra: 1 }, { ...proof('alice', ALICE), issued: '1' }, { ...proof('alice', ALICE), nonce: 'short' }, { ...proof('alice', ALICE), proof: 'zz' }]) {
      refused(() => principals.verify(tokens, relay, bad, NOW), 'invalid argument', /must be \{"name"/);
    }
  });

  test("the capability is taken out of alwaysMatch and every firstMatch (the Grid moves alwaysMatch there); differing copies are refused", () => {
    const claim = proof('alice', ALICE);
    const params = { capabilities: { alwaysMatch: { browserName: 'chrome' }, firstMatch: [{ 'wdgate:principal': claim, 'se:name': 't' }, { 'wdgate:principal': claim }] } };
    assert.deepEqual(takePrincipalClaim(params), claim);
    assert.deepEqual(params.capabilities, { alwaysMatch: { browserName: 'chrome' }, firstMatch: [{ 'se:name': 't' }, {}] });
    assert.equal(takePrincipalClaim({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }), undefined);
    assert.equal(takePrincipalClaim({ capabilities: 'nonsense' }), undefined);
    refused(() => takePrincipalClaim({ capabilities: { alwaysMatch: { 'wdgate:principal': claim }, firstMatch: [{ 'wdgate:principal': proof('bob', 'x') }] } }), 'invalid argument', /differs/);
  });

  test('a relay drives the sessions it opened for a principal as that principal; no other session, and no one else', () => {
    const sessions = { relayOf: (id: string) => (id === 's1' ? 'grid' : undefined), get: (id: string) => (id === 's1' || id === 's2' ? { owner: 'alice' } : undefined) };
    assert.equal(actingPrincipal(relay, 's1', sessions, tokens).name, 'alice');
    assert.equal(actingPrincipal(relay, 's2', sessions, tokens).name, 'grid');
    assert.equal(actingPrincipal(relay, undefined, sessions, tokens).name, 'grid');
    assert.equal(actingPrincipal(bob, 's1', sessions, tokens).name, 'bob');
  });
});
