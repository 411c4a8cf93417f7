// The socket Playwright opens to Firefox while launching it is acknowledged promptly
// (backends/playwright/firefox-acks.ts): a stand-in for Firefox's BiDi server, over a real
// WebSocket, holds back what Firefox's Nagle would hold until our ACK, here until a pong comes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { launchWithPromptAcks } from '../../backends/playwright/firefox-acks.ts';

/** A text frame's header for `length` payload bytes (server to client: not masked). */
function header(length: number): Buffer {
  return length < 126 ? Buffer.from([0x81, length]) : Buffer.from([0x81, 126, length >> 8, length & 0xff]);
}

/**
 * A server whose connection writes messages raw. `send(text, held)` writes the frame; its last
 * `held` bytes only once a pong came after it.
 */
async function standIn() {
  const wss = new WebSocketServer({ noServer: true });
  const server = createServer();
  let raw!: Socket;
  let onPong: (() => void) | undefined;
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  server.on('upgrade', (request, socket, head) => {
    raw = socket as Socket;
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.on('pong', () => {
        const next = onPong;
        onPong = undefined;
        next?.();
      });
      connected();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as { port: number }).port}`,
    ready,
    send(text: string, held = 0) {
      const whole = Buffer.concat([header(Buffer.byteLength(text)), Buffer.from(text)]);
      raw.write(whole.subarray(0, whole.length - held));
      if (held > 0) onPong = () => void raw.write(whole.subarray(whole.length - held));
    },
    /** Write `text` once a pong comes (as Nagle holds a message until the last is acknowledged). */
    sendAfterPong(text: string) {
      onPong = () => this.send(text);
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function open(url: string): Promise<{ socket: WebSocket; messages: AsyncIterator<string> }> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  socket.on('message', (data) => {
    queue.push(String(data));
    wake?.();
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const messages = {
    async next(): Promise<IteratorResult<string>> {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return { value: queue.shift()!, done: false };
    },
  };
  return { socket, messages };
}

/** `work`, or a failure saying `what` did not happen (the stand-in waits for a pong forever). */
async function within<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), 5000)))]);
  } finally {
    clearTimeout(timer);
  }
}

test("a message that came in part, and one held after the last, reach Playwright's socket: each got a pong", async (t) => {
  const server = await standIn();
  const { socket, messages } = await launchWithPromptAcks(() => open(server.url));
  t.after(async () => {
    socket.terminate();
    await server.close();
  });
  await server.ready;
  // A large answer in two parts: the second waits for the pong the first part brings.
  const large = JSON.stringify({ id: 1, result: 'x'.repeat(40_000) });
  server.send(large, 30_000);
  assert.equal((await within(messages.next(), 'no pong for a message that came in part')).value, large);
  // A message after which nothing is written (events in a row): the next waits for its ACK.
  server.send('{"method":"event 1"}');
  server.sendAfterPong('{"method":"event 2"}');
  assert.equal((await messages.next()).value, '{"method":"event 1"}');
  assert.equal((await within(messages.next(), 'no pong after a message when nothing was written')).value, '{"method":"event 2"}');
});
