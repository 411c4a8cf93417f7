// The Firefox hub's view of WebSocket frame boundaries (RFC 6455 §5.2), and what it does with it:
// a message that arrives in part is acknowledged at once with a pong, so that Firefox (which
// writes without TCP_NODELAY) sends the rest without waiting for a delayed ACK.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { FrameBoundaries } from '../../backends/firefox/frames.ts';
import { BidiHub } from '../../backends/firefox/hub.ts';

/** A server-to-client frame (unmasked unless `mask`), as RFC 6455 lays it out. */
function frame(payloadLength: number, mask = false): Buffer {
  const length = payloadLength < 126 ? [payloadLength] : payloadLength < 65536 ? [126, payloadLength >> 8, payloadLength & 0xff] : [127, 0, 0, 0, 0, ...[24, 16, 8, 0].map((s) => (payloadLength >>> s) & 0xff)];
  length[0]! |= mask ? 0x80 : 0;
  return Buffer.concat([Buffer.from([0x81, ...length]), Buffer.alloc(mask ? 4 : 0, 7), Buffer.alloc(payloadLength, 0x61)]);
}

test('a chunk that ends inside a frame (header or payload) is told apart from one that ends on a boundary', () => {
  const frames = [0, 5, 125, 126, 300, 65535, 65536, 70000].map((n) => frame(n)).concat(frame(10, true));
  const stream = Buffer.concat(frames);
  const boundaries = new Set<number>();
  let end = 0;
  for (const f of frames) boundaries.add((end += f.length));
  // Every cut near each frame's start and end (headers split at each byte), and some inside.
  const cuts = new Set<number>();
  end = 0;
  for (const f of frames) {
    for (let d = -3; d <= 12; d++) cuts.add(end + d);
    cuts.add(end + (f.length >> 1));
    end += f.length;
  }
  for (const cut of [...cuts].filter((c) => c > 0 && c < stream.length)) {
    const reader = new FrameBoundaries();
    assert.equal(reader.push(stream.subarray(0, cut)), !boundaries.has(cut), `cut at ${cut}`);
    assert.equal(reader.push(stream.subarray(cut)), false, `the rest after a cut at ${cut}`);
  }
});

test('byte by byte, only the last byte of each frame ends it', () => {
  const frames = [3, 130].map((n) => frame(n));
  const reader = new FrameBoundaries();
  let end = 0;
  const ends = new Set(frames.map((f) => (end += f.length)));
  const stream = Buffer.concat(frames);
  for (let i = 0; i < stream.length; i++) assert.equal(reader.push(stream.subarray(i, i + 1)), !ends.has(i + 1), `byte ${i}`);
});

test('the hub answers a message that came in part with a pong, before the rest is sent', async (t) => {
  // A stand-in for Firefox's BiDi server: answers the hub's opening commands; the answer to the
  // command under test is written in two parts, the second only once a pong came after the command.
  const wss = new WebSocketServer({ noServer: true });
  const server = createServer();
  let raw: Socket | undefined;
  server.on('upgrade', (request, socket, head) => {
    raw = socket as Socket;
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws));
  });
  const big = 'x'.repeat(40000);
  wss.on('connection', (ws) => {
    // A pong written before the command was (an answer's pong of the opening) comes before it.
    let waiting: (() => void) | undefined;
    ws.on('pong', () => waiting?.());
    ws.on('message', (data) => {
      const { id, method } = JSON.parse(String(data));
      if (method !== 'script.evaluate') {
        const result = method === 'session.new' ? { sessionId: 's', capabilities: { browserVersion: '1' } } : method === 'browsingContext.getTree' ? { contexts: [] } : {};
        return ws.send(JSON.stringify({ type: 'success', id, result }));
      }
      const message = Buffer.from(JSON.stringify({ type: 'success', id, result: { type: 'success', result: { type: 'string', value: big } } }));
      const whole = frame(message.length);
      message.copy(whole, whole.length - message.length);
      raw!.write(whole.subarray(0, 1000));
      waiting = () => void raw!.write(whole.subarray(1000));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hub = await BidiHub.open(`ws://127.0.0.1:${(server.address() as { port: number }).port}`, false);
  t.after(async () => {
    await hub.close();
    await new Promise((resolve) => server.close(resolve));
  });

  let timer: NodeJS.Timeout | undefined;
  const answer = await Promise.race([
    hub.channel([]).call<{ result: { value: string } }>('script.evaluate', {}),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the hub sent no pong for an answer that came in part')), 5000))),
  ]);
  clearTimeout(timer);
  assert.equal(answer.result.value, big);
});
