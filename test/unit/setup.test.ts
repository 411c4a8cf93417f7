// scripts/setup.sh on a machine whose Node is too old (plain Debian 12 has 18): it stops before
// installing anything and says what to install. The node it finds is a stand-in that reports a version.
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

test("a Node older than package.json's engines stops setup.sh first, saying what to install", () => {
  const want = pkg.engines.node.replace('>=', '');
  for (const version of ['18.19.0', '20.14.1']) {
    const r = setupWithNode(version);
    assert.equal(r.status, 1, `Node ${version}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, new RegExp(`needs Node\\.js ${want.replace('.', '\\.')} or later.*has Node ${version.replace(/\./g, '\\.')}`));
    assert.match(r.stderr, /Debian 12's own nodejs package is Node 18/);
    assert.match(r.stderr, /Debian 13.*apt-get install nodejs npm/);
    assert.equal(r.stdout, '', 'nothing was installed or started');
  }
});
