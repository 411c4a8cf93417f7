// The security gate: loopback peers only, Host naming this machine, no Origin.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRequest, isLoopbackAddress } from '../../src/server/security.ts';

describe('isLoopbackAddress', () => {
  test('IPv4 loopback, IPv6 loopback in every spelling, IPv4-mapped loopback', () => {
    for (const a of [
      '127.0.0.1',
      '127.1.2.3',
      '127.255.255.254',
      '::1',
      '0:0:0:0:0:0:0:1',
      '0000:0000:0000:0000:0000:0000:0000:0001',
      '::ffff:127.0.0.1',
      '::FFFF:127.0.0.1',
      '0:0:0:0:0:ffff:127.0.0.1',
      '0000:0000:0000:0000:0000:ffff:127.0.0.1',
      '::ffff:7f00:1',
      '0000:0000:0000:0000:0000:ffff:7f00:0001',
      '::ffff:7fff:fffe',
    ]) {
      assert.equal(isLoopbackAddress(a), true, a);
    }
  });

  test('everything else is not loopback', () => {
    for (const a of [
      '10.231.0.2',
      '192.168.1.1',
      '0.0.0.0',
      '128.0.0.1',
      '1.127.0.0',
      '::',
      '::2',
      '::11',
      '::101',
      'fe80::1',
      '2001:db8::1',
      '::ffff:10.0.0.1',
      '::ffff:0a00:0001',
      '::ffff:8000:1',
      '::fffe:127.0.0.1',
      '1::ffff:127.0.0.1',
      '',
      'localhost',
    ]) {
      assert.equal(isLoopbackAddress(a), false, a);
    }
  });
});

describe('checkRequest', () => {
  test('loopback peer, IP or localhost Host, no Origin: allowed', () => {
    for (const host of ['127.0.0.1:4444', '127.0.0.1', 'localhost:4444', 'localhost', 'LOCALHOST:4444', '[::1]:4444', '[::1]', '']) {
      assert.deepEqual(checkRequest('127.0.0.1', host, ''), { ok: true }, host);
    }
    assert.deepEqual(checkRequest('::1', '[::1]:9', ''), { ok: true });
    assert.deepEqual(checkRequest('::ffff:127.0.0.1', 'localhost:9', ''), { ok: true });
  });

  test('a peer off loopback is refused with 403 naming it', () => {
    const v = checkRequest('10.231.7.2', '10.231.7.1:4444', '');
    assert.equal(v.ok, false);
    assert.ok(!v.ok && v.status === 403 && v.message.includes('10.231.7.2'));
    assert.equal(checkRequest('::ffff:10.231.7.2', '10.231.7.1:4444', '').ok, false);
  });

  test('a DNS name in Host is refused (DNS rebinding)', () => {
    for (const host of ['evil.example:4444', 'evil.example', 'localhost.evil.example:4444', '127.0.0.1.nip.io:4444', 'localhostx:1', 'local host', '[::1]evil.example', '[::1]:80x', '127.0.0.1:']) {
      const v = checkRequest('127.0.0.1', host, '');
      assert.ok(!v.ok && v.status === 403, host);
      assert.ok(!v.ok && v.message.includes(JSON.stringify(host)), host);
    }
  });

  test('any Origin is refused: web pages may not drive the browser', () => {
    for (const origin of ['http://evil.example', 'http://127.0.0.1:8080', 'null']) {
      const v = checkRequest('127.0.0.1', '127.0.0.1:4444', origin);
      assert.ok(!v.ok && v.status === 403 && v.message.includes(origin), origin);
    }
  });
});
