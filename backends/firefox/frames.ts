// Where the WebSocket frames (RFC 6455 §5.2) in a byte stream begin and end, without their
// contents: the hub reads the raw socket beside `ws` to see that a message arrived in part (the
// rest held back by the sender's Nagle until our ACK; see BidiHub's #acknowledge).

/**
 * How long a message of Firefox waits for our next command to carry its ACK before a pong does
 * (the hub's, and Playwright's socket to Firefox: backends/playwright/firefox-acks.ts).
 */
export const ACK_AFTER_MESSAGE_MS = 2;

export class FrameBoundaries {
  /** Header bytes of the next frame read so far (a header may arrive split, too). */
  #header: Buffer = Buffer.alloc(0);
  /** Payload bytes of the current frame still to come. */
  #payloadLeft = 0;

  /** Read `chunk`; true if it ended inside a frame (a header or payload not yet whole). */
  push(chunk: Buffer): boolean {
    let at = 0;
    while (at < chunk.length) {
      if (this.#payloadLeft > 0) {
        const taken = Math.min(this.#payloadLeft, chunk.length - at);
        this.#payloadLeft -= taken;
        at += taken;
        continue;
      }
      const needed = this.#headerLength();
      const taken = Math.min(needed - this.#header.length, chunk.length - at);
      this.#header = Buffer.concat([this.#header, chunk.subarray(at, at + taken)]);
      at += taken;
      // (Its whole length is known once its first two bytes are in.)
      if (this.#header.length < this.#headerLength()) continue;
      this.#payloadLeft = this.#payloadLength();
      this.#header = Buffer.alloc(0);
    }
    return this.#payloadLeft > 0 || this.#header.length > 0;
  }

  /** The header's whole length: 2 bytes, the extended length (2 or 8), the mask key (4) if masked. */
  #headerLength(): number {
    if (this.#header.length < 2) return 2;
    const length7 = this.#header[1]! & 0x7f;
    const masked = (this.#header[1]! & 0x80) !== 0;
    return 2 + (length7 === 126 ? 2 : length7 === 127 ? 8 : 0) + (masked ? 4 : 0);
  }

  #payloadLength(): number {
    const length7 = this.#header[1]! & 0x7f;
    if (length7 === 126) return this.#header.readUInt16BE(2);
    if (length7 === 127) return Number(this.#header.readBigUInt64BE(2));
    return length7;
  }
}
