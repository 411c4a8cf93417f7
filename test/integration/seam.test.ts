// The command seam (src/webdriver/seam.ts): a classic command, a BiDi message and a forwarded
// pass-through request each reach an observer once, as one step of its session, through the same
// interface; every session's opening and end reach it too, with the result. The gateway runs in
// this process so that the test can add an observer of its own, as a program embedding wdgate would.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../../src/app.ts';
import { resolveConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/base/log.ts';
import type { Observer, SessionEnd, Step } from '../../src/webdriver/seam.ts';
import { Client } from '../helpers/client.ts';
import { BidiSocket } from '../helpers/bidi.ts';
import { eventually, startPageServer, type PageServer } from '../helpers/pages.ts';

const steps: Step[] = [];
const opened: string[] = [];
const ended = new Map<string, SessionEnd>();
const observer: Observer = {
  opened: (session) => void opened.push(session.id),
  answered: (step) => void steps.push(step),
  ended: (session, end) => void ended.set(session.id, end),
};

let running: RunningGateway;
let client: Client;
let pages: PageServer;
let history: string;

before(async () => {
  pages = await startPageServer();
  history = mkdtempSync(join(tmpdir(), 'wdgate-seam-history-'));
  // Nothing traced (the default is retain-on-failure): an untraced session's steps carry nothing.
  const config = resolveConfig({ port: 0, listenAddress: '127.0.0.1', headless: true, shutdownGracePeriod: 0, history: { directory: history }, trace: { mode: 'off' } });
  running = await startGateway(config, silentLogger, [observer]);
  client = new Client(running.url);
});

after(async () => {
  await running?.close();
  await pages?.close();
  rmSync(history, { recursive: true, force: true });
});

/** The steps of one session with this name. */
const stepsOf = (id: string, name: string) => steps.filter((step) => step.session?.id === id && step.name === name);

test('a classic command, a BiDi message and a forwarded request each make one step through the same observer', async () => {
  const page = pages.page('<p>seam</p>', 'Seam');
  // A classic command of a driven session.
  const classic = await client.newSession({});
  await classic.navigate(page);
  assert.equal(await classic.get('/title'), 'Seam');
  // A BiDi message of a session's socket.
  const bidi = await client.newSession({ webSocketUrl: true });
  const socket = await BidiSocket.open(bidi.capabilities.webSocketUrl);
  await socket.call('browsingContext.getTree', {});
  socket.close();
  // A request of a pass-through session, forwarded to chromedriver.
  const forwarded = await client.newSession({ 'goog:chromeOptions': { args: ['--headless=new', '--no-sandbox'] }, 'wdgate:options': { backend: 'remote' } });
  await forwarded.navigate(page);
  assert.equal(await forwarded.get('/title'), 'Seam');
  await forwarded.fails('POST', '/element', { using: 'css selector', value: '#missing' }, 'no such element');

  const [title] = stepsOf(classic.id, 'getTitle');
  assert.equal(stepsOf(classic.id, 'getTitle').length, 1);
  assert.equal(title!.kind, 'command');
  assert.equal(stepsOf(bidi.id, 'browsingContext.getTree').length, 1);
  assert.equal(stepsOf(bidi.id, 'browsingContext.getTree')[0]!.kind, 'bidi');
  assert.equal(stepsOf(forwarded.id, 'getTitle').length, 1);
  assert.equal(stepsOf(forwarded.id, 'getTitle')[0]!.kind, 'forwarded');
  // A forwarded request is named by the route table, and its upstream's error read from the answer.
  const failed = stepsOf(forwarded.id, 'findElement');
  assert.equal(failed.length, 1);
  assert.equal(failed[0]!.error?.code, 'no such element');
  // Navigation changes the page (the route table's fact), whichever way it came.
  assert.equal(stepsOf(classic.id, 'navigateTo')[0]!.changesPage, true);
  assert.equal(stepsOf(forwarded.id, 'navigateTo')[0]!.changesPage, true);
  assert.equal(title!.changesPage, false);
  // An untraced session's steps carry no parameters or answers (nothing is kept of them).
  assert.equal(title!.params, undefined);
  assert.equal(title!.value, undefined);

  for (const s of [classic, bidi, forwarded]) await s.end();
  await eventually(() => ended.size === 3, 'every session ended through the seam');
  assert.deepEqual(new Set(opened), new Set([classic.id, bidi.id, forwarded.id]));
  assert.equal(ended.get(classic.id)!.result, 'passed');
  // Deleted right after a failure nothing recovered from: failed, by the same rule for every kind.
  assert.equal(ended.get(forwarded.id)!.result, 'failed');
  assert.match(ended.get(forwarded.id)!.resultReason, /findElement: no such element/);
});
