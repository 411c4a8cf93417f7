// The README's "A session with curl" block, run as written by bash against a real gateway: only
// its port (the test's gateway takes a free one) and example.com (no network here: a page of the
// test's own) are put in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../helpers/gateway.ts';
import { leftoverBrowsers, startPageServer } from '../helpers/pages.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test("the README's curl session runs as written: status, a session, its title, an element, a screenshot, the end", async () => {
  const block = /## A session with curl\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)?.[1];
  assert.ok(block?.includes('localhost:8000') && block.includes('https://example.com'), 'the curl block as the test knows it');
  const [gw, pages] = await Promise.all([startGateway(), startPageServer()]);
  const dir = mkdtempSync(join(tmpdir(), 'wdgate-readme-test-'));
  const pid = gw.process.pid!;
  try {
    const page = pages.page('<h1>Example Domain</h1>', 'Example Domain');
    const script = block!.replaceAll('localhost:8000', `localhost:${gw.port}`).replaceAll('https://example.com', page);
    const out = await new Promise<string>((resolve, reject) =>
      execFile('bash', ['-euo', 'pipefail', '-c', script], { cwd: dir, timeout: 60_000 }, (e, stdout, stderr) => (e ? reject(new Error(`${e.message}\n${stdout}\n${stderr}`)) : resolve(stdout))),
    );
    // Each command's answer, in order: status, navigate, title, find, delete (the screenshot went to page.png).
    const answers = out.replace(/\}\{/g, '}\n{').split('\n').filter(Boolean).map((line) => JSON.parse(line).value);
    assert.equal(answers[0].ready, true);
    assert.equal(answers[1], null);
    assert.equal(answers[2], 'Example Domain');
    assert.equal(typeof answers[3]['element-6066-11e4-a52e-4f735466cecf'], 'string');
    assert.equal(answers[4], null);
    assert.equal(answers.length, 5);
    const png = readFileSync(join(dir, 'page.png'));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'page.png is a PNG');
    assert.equal((await gw.client.ok('GET', '/status')).sessions.active, 0, 'the session was deleted');
  } finally {
    await gw.stop();
    await pages.close();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});
