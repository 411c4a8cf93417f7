// scripts/setup.sh on a machine whose Node wdgate does not run on (too old, as plain Debian 12's 18,
// or without a native uWebSockets.js build): it stops before installing anything and says what to install. The node it finds is a stand-in that reports a version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pkg from '../../package.json' with { type: 'json' };

const SETUP = fileURLToPath(new URL('../../scripts/setup.sh', import.meta.url));

function setupWithNode(version: string) {
  const bin = mkdtempSync(join(tmpdir(), 'wdgate-setup-test-'));
  try {
    writeFileSync(join(bin, 'node'), `#!/bin/sh\necho v${version}\n`);
    chmodSync(join(bin, 'node'), 0o755);
    return spawnSync('bash', [SETUP], { encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, timeout: 30_000 });
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

test("a Node outside package.json's engines stops setup.sh first, saying which Node versions have a native uWebSockets.js build", () => {
  assert.equal(pkg.engines.node, '^20.15 || ^22.2 || ^24');
  // Too old (plain Debian 12's 18; Node 20 and 22 before zlib.crc32), or without a native build (23, 26).
  for (const version of ['18.19.0', '20.14.1', '22.1.0', '23.11.0', '26.1.0']) {
    const r = setupWithNode(version);
    assert.equal(r.status, 1, `Node ${version}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /needs Node\.js 20 \(20\.15 or later\), 22 \(22\.2 or later\) or 24, with npm: the versions its uWebSockets\.js build has\s+native binaries for/);
    assert.match(r.stderr, /the one for Node 24 needs glibc 2\.38 or later: Debian 13, Ubuntu 24\.04/);
    assert.match(r.stderr, new RegExp(`This machine has Node ${version.replace(/\./g, '\\.')}\\.`));
    assert.match(r.stderr, /Debian 12's own nodejs package is Node 18/);
    assert.match(r.stderr, /Debian 13.*apt-get install nodejs npm/);
    assert.equal(r.stdout, '', 'nothing was installed or started');
  }
});
