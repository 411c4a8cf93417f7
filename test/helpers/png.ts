// A small PNG decoder for screenshot tests: 8-bit RGB/RGBA, non-interlaced (what Chromium
// writes), checking the format on the way.
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';

export interface Image {
  width: number;
  height: number;
  /** [r, g, b, a] at (x, y). */
  pixel(x: number, y: number): [number, number, number, number];
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function decodePng(base64: string): Image {
  assert.equal(typeof base64, 'string');
  assert.match(base64, /^[A-Za-z0-9+/]+=*$/, 'the screenshot is plain base64 (no data: URL prefix)');
  const png = Buffer.from(base64, 'base64');
  assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE, 'PNG signature');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [bitDepth, colorType, , , interlace] = data.subarray(8);
      assert.equal(bitDepth, 8);
      assert.equal(interlace, 0);
      assert.ok(colorType === 2 || colorType === 6, `color type ${colorType}`);
      channels = colorType === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  // Undo the per-row filters (PNG spec §9).
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? pixels[y * stride + i - channels]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + i]! : 0;
      const c = y > 0 && i >= channels ? pixels[(y - 1) * stride + i - channels]! : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      pixels[y * stride + i] = (line[i]! + predictor) & 0xff;
    }
  }
  return {
    width,
    height,
    pixel(x, y) {
      const i = y * stride + x * channels;
      return [pixels[i]!, pixels[i + 1]!, pixels[i + 2]!, channels === 4 ? pixels[i + 3]! : 255];
    },
  };
}

/** Every pixel of the image, counted by colour name (red, blue, white, other). */
export function colours(img: Image): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const [r, g, b] = img.pixel(x, y);
      const name =
        r > 240 && g < 15 && b < 15 ? 'red' : r < 15 && g < 15 && b > 240 ? 'blue' : r > 240 && g > 240 && b > 240 ? 'white' : 'other';
      counts[name] = (counts[name] ?? 0) + 1;
    }
  }
  return counts;
}
