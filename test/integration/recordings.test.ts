// Session recordings (wdgate:options recordVideo): a valid WebM whose frame count grows with the
// session's length (ffprobe), the browser console log beside it, both downloadable once the
// session has ended (moved into its history entry) and gone after the history retention time.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import type { Session } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';

const run = promisify(execFile);
let gw: TestGateway;
let pages: PageServer;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wdgate-recordings-test-'));
  [gw, pages] = await Promise.all([startGateway([], { config: { recordings: { fps: 4 }, history: { retention: 4000 } } }), startPageServer()]);
});

after(async () => {
  const pid = gw?.process.pid;
  await gw?.stop();
  await pages?.close();
  rmSync(dir, { recursive: true, force: true });
  if (pid) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

/** The session's video, saved; what ffprobe says of it. */
async function probe(s: Session): Promise<{ format: string; codec: string; frames: number; width: number }> {
  const reply = await fetch(`${gw.url}/wdgate/sessions/${s.id}/video`);
  assert.equal(reply.status, 200, await reply.clone().text());
  assert.equal(reply.headers.get('content-type'), 'video/webm');
  const file = join(dir, `${s.id}.webm`);
  writeFileSync(file, Buffer.from(await reply.arrayBuffer()));
  const { stdout } = await run('ffprobe', ['-v', 'error', '-count_frames', '-show_entries', 'format=format_name:stream=codec_name,nb_read_frames,width', '-of', 'json', file]);
  const info = JSON.parse(stdout) as { format: { format_name: string }; streams: { codec_name: string; nb_read_frames: string; width: number }[] };
  return { format: info.format.format_name, codec: info.streams[0]!.codec_name, frames: Number(info.streams[0]!.nb_read_frames), width: info.streams[0]!.width };
}

/** Some work for the session: navigations, each to a page that logs to the console. */
async function work(s: Session, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await s.navigate(pages.page(`<body style="background: hsl(${i * 37}, 70%, 60%)"><h1>page ${i}</h1><script>console.log('hello from page ${i}')</script></body>`, `page ${i}`));
  }
}

test('a recorded session: a valid WebM once it has ended, with more frames the longer it ran, and its console log', async () => {
  const short = await gw.client.newSession({ 'wdgate:options': { recordVideo: true } });
  assert.equal(short.capabilities['wdgate:options'].recordVideo, true);
  await work(short, 1);
  const running = await gw.client.raw('GET', `/wdgate/sessions/${short.id}/video`);
  assert.equal(running.value.error, 'unsupported operation');
  assert.match(running.value.message, /still being recorded/);
  await short.end();
  const long = await gw.client.newSession({ 'wdgate:options': { recordVideo: true } });
  await work(long, 12);
  await long.end();
  const [a, b] = await Promise.all([eventuallyProbe(short), eventuallyProbe(long)]);
  for (const video of [a, b]) {
    assert.match(video.format, /webm/);
    assert.equal(video.codec, 'vp8');
    assert.equal(video.width, 960);
  }
  assert.ok(a.frames > 0, 'the short session has frames');
  assert.ok(b.frames > a.frames, `the longer session has more frames (${b.frames} vs ${a.frames})`);
  const log = await fetch(`${gw.url}/wdgate/sessions/${long.id}/log`);
  assert.equal(log.status, 200);
  const entries = (await log.text()).trim().split('\n').map((line) => JSON.parse(line) as { level: string; text: string });
  assert.ok(entries.some((e) => e.text === 'hello from page 11' && e.level === 'log'), JSON.stringify(entries.slice(-3)));
  // Moved into the session's history entry, and kept as the history is (4 s here), then gone.
  const entry = await gw.client.raw('GET', `/wdgate/sessions/${long.id}`);
  assert.equal(entry.value.links?.video, `/wdgate/sessions/${long.id}/video`, JSON.stringify(entry.value));
  await eventually(async () => (await gw.client.raw('GET', `/wdgate/sessions/${long.id}/video`)).status === 404, 'the recording outlived the history retention');
  assert.equal((await gw.client.raw('GET', `/wdgate/sessions/${long.id}`)).status, 404, 'the entry went with it');
});

test('Firefox (screenshots, not a screencast) is recorded too; a recordVideo that is not a boolean is invalid argument', async () => {
  const s = await gw.client.newSession({ browserName: 'firefox', 'wdgate:options': { backend: 'native', recordVideo: true } });
  await work(s, 2);
  await s.end();
  const video = await eventuallyProbe(s);
  assert.equal(video.codec, 'vp8');
  assert.ok(video.frames > 0);
  await gw.client.fails('POST', '/session', { capabilities: { alwaysMatch: { 'wdgate:options': { recordVideo: 'yes' } } } }, 'invalid argument', 400);
});

/** The video once its session has finished ending (ffmpeg closes the file first). */
async function eventuallyProbe(s: Session): Promise<Awaited<ReturnType<typeof probe>>> {
  await eventually(async () => (await gw.client.raw('GET', `/wdgate/sessions/${s.id}/video`)).status === 200, 'the recording never became available');
  return probe(s);
}
