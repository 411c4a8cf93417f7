// Traces by default (issue 30): a gateway started with no trace setting traces every session
// "retain-on-failure" — a failed session's trace is kept, an unnamed passed one's is not (a named
// test's pass is kept as its next failure's baseline: traces.test.ts) — and what the
// kept trace shows: the DOM after each page-changing step (a step that changed nothing shares the
// snapshot before it), and the failure's picture, which is also the picture of the click before
// it when the page did not change in between.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync } from 'fflate';
import { Snapshots } from '../../src/trace/viewer/snapshots.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';

let gw: TestGateway;
let pages: PageServer;

before(async () => {
  [gw, pages] = await Promise.all([startGateway(), startPageServer()]);
});

after(async () => {
  const pid = gw?.process.pid;
  await gw?.stop();
  await pages?.close();
  if (pid) assert.equal(await leftoverBrowsers(pid), 0);
});

/** The ended session's history entry, once written. */
async function ended(id: string): Promise<any> {
  let entry: any;
  await eventually(async () => {
    const reply = await gw.client.raw('GET', `/wdgate/sessions/${id}`);
    entry = reply.value;
    return reply.status === 200 && entry.state === 'ended';
  }, `session ${id} never showed as ended`);
  return entry;
}

test('with no trace option, a failed session keeps its trace (DOM per page-changing step, the failure pictured) and an unnamed passed one keeps none', async () => {
  const page = pages.page(
    `<h1 id="heading">Cart</h1>
     <button id="noop">nothing</button>
     <button id="change" onclick="document.getElementById('heading').textContent = 'Paid'">pay</button>`,
    'Cart',
  );

  const passing = await gw.client.newSession();
  await passing.navigate(page);
  await passing.post(`/element/${await passing.find('#change')}/click`);
  await passing.end();

  const failing = await gw.client.newSession({ 'se:name': 'fails untold' });
  await failing.navigate(page);
  const [noop, change] = [await failing.find('#noop'), await failing.find('#change')];
  await failing.post(`/element/${noop}/click`);
  await failing.post(`/element/${change}/click`);
  await failing.fails('POST', '/element', { using: 'css selector', value: '#receipt' }, 'no such element');
  await failing.end();

  const [pass, fail] = await Promise.all([ended(passing.id), ended(failing.id)]);
  assert.deepEqual([pass.trace, pass.result, pass.links.trace], ['retain-on-failure', 'passed', undefined]);
  await gw.client.fails('GET', `/wdgate/sessions/${passing.id}/trace`, undefined, 'invalid session id');
  assert.deepEqual([fail.trace, fail.result], ['retain-on-failure', 'failed']);
  assert.match(fail.resultReason, /findElement: no such element/);

  const res = await fetch(`${gw.url}/wdgate/sessions/${failing.id}/trace`);
  assert.equal(res.status, 200);
  const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
  const steps: any[] = JSON.parse(Buffer.from(files['trace.json']!).toString()).steps;
  const [navigate, clickNoop, clickChange] = ['navigateTo', 'elementClick', 'elementClick'].map((name, i) => steps.filter((s) => s.name === name)[i === 2 ? 1 : 0]);
  const missed = steps.find((s) => s.error);
  assert.equal(missed.error.code, 'no such element');
  // Every page-changing step and the failure have the DOM; a click that changed nothing shares the one before it.
  for (const step of [navigate, clickNoop, clickChange, missed]) assert.ok(step.snapshot && files[step.snapshot], JSON.stringify(step));
  assert.equal(clickNoop.snapshot, navigate.snapshot);
  assert.notEqual(clickChange.snapshot, clickNoop.snapshot);
  // A snapshot read back as HTML, its references into earlier snapshots resolved.
  const snapshots = new Snapshots((name) => (files[name] ? Buffer.from(files[name]!).toString() : undefined));
  const text = (name: string) => snapshots.html(name)!;
  assert.match(text(clickChange.snapshot), /<h1 id="heading">Paid<\/h1>/);
  assert.match(text(navigate.snapshot), /<h1 id="heading">Cart<\/h1>/);
  // The failure is pictured; the page did not change since the click, so the click shows that picture.
  assert.equal(missed.snapshot, clickChange.snapshot);
  assert.ok(missed.screenshot, JSON.stringify(missed));
  assert.deepEqual([...files[missed.screenshot]!.subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
  assert.equal(clickChange.screenshot, missed.screenshot);

  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  assert.match(metrics, /wdgate_traces_dropped_total\{reason="retain-on-failure"\} 1\b/);
  assert.match(metrics, /wdgate_traces_written_total 1\b/);
});
