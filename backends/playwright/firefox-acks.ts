// Playwright's own WebSocket to Firefox's BiDi server meets the waits the native backend's hub
// avoids (backends/firefox/hub.ts, #acknowledge): Firefox writes without TCP_NODELAY, so the rest
// of a message that came in part, or a message after one we have not acknowledged yet, waits for
// our ACK, which Linux delays up to 40 ms (a Find Element right after a navigation took ≈ 100 ms
// instead of ≈ 17). Playwright gives no hold of that socket: it is the one TCP connection opened
// while Playwright launches Firefox. node:diagnostics_channel reports each client socket as it is
// made, and AsyncLocalStorage tells whether a launch made it. Read beside Playwright's ws, it gets
// an unsolicited empty pong (RFC 6455 §5.5.3: no answer expected; masked, as a client's frames
// are), whose segment carries the ACK: at once when a read ends inside a frame, and after
// ACK_AFTER_MESSAGE_MS when messages came and nothing was written since.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomFillSync } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { ACK_AFTER_MESSAGE_MS, FrameBoundaries } from '../firefox/frames.ts';

/** The handshake's answer is a few hundred bytes: past this, the socket is not a WebSocket's. */
const MAX_HANDSHAKE_BYTES = 16 * 1024;

/** A launch under way. (What Playwright starts in it keeps the store after: `done` ends it.) */
const launching = new AsyncLocalStorage<{ done: boolean }>();

subscribe('net.client.socket', (message) => {
  if (launching.getStore()?.done === false) acknowledge((message as { socket: Socket }).socket);
});

/** Run Playwright's launch of Firefox: the socket it opens to Firefox is acknowledged promptly. */
export async function launchWithPromptAcks<T>(launch: () => Promise<T>): Promise<T> {
  const underWay = { done: false };
  try {
    return await launching.run(underWay, launch);
  } finally {
    underWay.done = true;
  }
}

function acknowledge(socket: Socket): void {
  const frames = new FrameBoundaries();
  /** The upgrade's HTTP answer so far; undefined once it is whole (frames follow). */
  let handshake: Buffer | undefined = Buffer.alloc(0);
  let writtenAtData = 0;
  const pong = () => {
    if (socket.destroyed || !socket.writable) return;
    const frame = Buffer.from([0x8a, 0x80, 0, 0, 0, 0]);
    socket.write(randomFillSync(frame, 2, 4));
  };
  // One timer, moved on by each read (refresh() arms it again after it fired).
  let timer: NodeJS.Timeout | undefined;
  const afterData = () => socket.bytesWritten === writtenAtData && pong();
  const onData = (chunk: Buffer) => {
    if (handshake) {
      const read = Buffer.concat([handshake, chunk]);
      const end = read.indexOf('\r\n\r\n');
      if (end < 0 && read.length < MAX_HANDSHAKE_BYTES) return void (handshake = read);
      if (end < 0 || !read.subarray(0, 13).toString('latin1').startsWith('HTTP/1.1 101')) return void socket.off('data', onData);
      // What came after the answer in this read, ws puts back on the socket (unshift): it is
      // read again, as the first frames.
      handshake = undefined;
      return;
    }
    if (frames.push(chunk)) return pong();
    writtenAtData = socket.bytesWritten;
    if (timer) timer.refresh();
    else timer = setTimeout(afterData, ACK_AFTER_MESSAGE_MS).unref();
  };
  socket.on('data', onData);
  socket.once('close', () => clearTimeout(timer));
}
