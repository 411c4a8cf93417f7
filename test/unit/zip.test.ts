// The ZIP reader behind remote file upload: real archives read back, broken or hostile ones refused.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { constants, deflateRawSync } from 'node:zlib';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, readZip, writeZip, ZipError, type ZipLimits } from '../../src/webdriver/zip.ts';
import { makeZip } from '../helpers/zip.ts';

const LIMITS: ZipLimits = { maxEntryBytes: 1 << 20, maxTotalBytes: 1 << 20, maxEntries: 16 };

function refuses(archive: Buffer, pattern: RegExp, limits = LIMITS): void {
  assert.throws(
    () => readZip(archive, limits),
    (e: unknown) => e instanceof ZipError && pattern.test(e.message),
  );
}

describe('reading', () => {
  test('a deflated and a stored file come back byte for byte', () => {
    const text = 'hello, world\n'.repeat(100);
    const binary = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) % 256));
    const entries = readZip(makeZip([{ name: 'a.txt', data: text }, { name: 'b.bin', data: binary, method: 0 }]), LIMITS);
    assert.deepEqual(
      entries.map((e) => [e.name, e.directory]),
      [
        ['a.txt', false],
        ['b.bin', false],
      ],
    );
    assert.equal(entries[0]!.data.toString(), text);
    assert.deepEqual(entries[1]!.data, binary);
  });

  test('empty files, directories, nested names, an archive comment and a non-ASCII name', () => {
    const entries = readZip(
      makeZip(
        [
          { name: 'dir/', method: 0 },
          { name: 'dir/ünï €.txt', data: 'x' },
          { name: 'empty', data: '' },
        ],
        { comment: 'made by a test' },
      ),
      LIMITS,
    );
    assert.deepEqual(
      entries.map((e) => [e.name, e.directory, e.data.length]),
      [
        ['dir/', true, 0],
        ['dir/ünï €.txt', false, 1],
        ['empty', false, 0],
      ],
    );
  });

  test('names without the UTF-8 flag are code page 437', () => {
    const [entry] = readZip(makeZip([{ name: Buffer.from([0x81, 0x62, 0xe1, 0x2e, 0x74]), data: 'x' }]), LIMITS);
    assert.equal(entry!.name, 'übß.t');
  });

  test("an archive made by Python's zipfile, as Selenium's LocalFileDetector makes it", (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'wdgate-zip-test-'));
    try {
      const file = join(dir, 'report.csv');
      writeFileSync(file, 'a,b\n1,2\n'.repeat(500));
      const script =
        'import io,sys,zipfile\nfp=io.BytesIO()\nz=zipfile.ZipFile(fp,"w",zipfile.ZIP_DEFLATED)\n' +
        'z.write(sys.argv[1],"report.csv")\nz.close()\nsys.stdout.buffer.write(fp.getvalue())';
      const made = spawnSync('python3', ['-c', script, file]);
      if (made.error || made.status !== 0) return t.skip('python3 is not available');
      const [entry, ...rest] = readZip(made.stdout, LIMITS);
      assert.equal(rest.length, 0);
      assert.equal(entry!.name, 'report.csv');
      assert.deepEqual(entry!.data, readFileSync(file));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('writeZip makes an archive of one file that this reader and Python\'s zipfile both read back', (t) => {
    const data = Buffer.from('Grüße, line\n'.repeat(300));
    const archive = writeZip('résumé (1).txt', data, new Date(2026, 10, 25, 13, 45, 30));
    const [entry, ...rest] = readZip(archive, LIMITS);
    assert.equal(rest.length, 0);
    assert.deepEqual({ name: entry!.name, data: entry!.data }, { name: 'résumé (1).txt', data });
    assert.ok(archive.length < data.length, 'not deflated');
    const script = 'import sys,zipfile,io\nz=zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))\ni=z.infolist()[0]\nassert z.testzip() is None\nprint(i.filename, i.date_time, len(z.read(i)))';
    const read = spawnSync('python3', ['-c', script], { input: archive, encoding: 'utf8' });
    if (read.error) return t.skip('python3 is not available');
    assert.equal(read.status, 0, read.stderr);
    assert.equal(read.stdout.trim(), `résumé (1).txt (2026, 11, 25, 13, 45, 30) ${data.length}`);
  });

  test('writeZip: a file from before 1980 gets the first MS-DOS time, and a file may be called __proto__', () => {
    const data = Buffer.from('old');
    const archive = writeZip('__proto__', data, new Date(0));
    const [entry, ...rest] = readZip(archive, LIMITS);
    assert.equal(rest.length, 0);
    assert.deepEqual({ name: entry!.name, data: entry!.data }, { name: '__proto__', data });
    const central = archive.readUInt32LE(archive.length - 22 + 16);
    assert.deepEqual([archive.readUInt16LE(central + 12), archive.readUInt16LE(central + 14)], [0, (1 << 5) | 1], '1980-01-01 00:00:00');
  });

  test('crc32 is the ZIP one', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
    assert.equal(crc32(Buffer.alloc(0)), 0);
  });
});

describe('refusing', () => {
  test('what is not a ZIP archive', () => {
    refuses(Buffer.alloc(0), /not a ZIP archive/);
    refuses(Buffer.from('just some text, certainly not an archive'), /not a ZIP archive/);
    refuses(Buffer.from('%PDF-1.4 ...'.repeat(10)), /not a ZIP archive/);
  });

  test('truncated archives, wherever they are cut', () => {
    const archive = makeZip([{ name: 'a.txt', data: 'hello '.repeat(200) }]);
    for (const cut of [1, 10, 22, 40, archive.length - 30, archive.length - 60]) {
      assert.throws(() => readZip(archive.subarray(0, archive.length - cut), LIMITS), ZipError, `cut ${cut} bytes`);
    }
    // The front cut away: offsets no longer match.
    assert.throws(() => readZip(archive.subarray(5), LIMITS), ZipError);
  });

  test('a CRC that does not match the data', () => {
    refuses(makeZip([{ name: 'a.txt', data: 'hello', crc: 1234 }]), /CRC-32/);
    refuses(makeZip([{ name: 'a.txt', data: 'hello', method: 0, crc: 0 }]), /CRC-32/);
  });

  test('corrupt deflate data and unsupported methods or encryption', () => {
    const archive = makeZip([{ name: 'a.txt', data: 'hello world, hello world' }]);
    archive[30 + 5] = 0xff; // first byte of the deflate stream: an invalid block type
    archive[30 + 6] = 0xff;
    assert.throws(() => readZip(archive, LIMITS), ZipError);
    refuses(makeZip([{ name: 'a.bz2', data: 'x', method: 12 }]), /compression method 12/);
    refuses(makeZip([{ name: 'a.txt', data: 'x', flags: 0x0801 }]), /encrypted/);
  });

  test('zip bombs: data inflating past its declared size stops at the declared size', () => {
    refuses(makeZip([{ name: 'bomb', data: Buffer.alloc(4 << 20), size: 100 }]), /inflates past its declared size/);
  });

  test('zip bombs are refused at their declared size, not inflated to their end', () => {
    // 64 MiB of zeros in 1 MiB deflate pieces, and no final block: inflated to its end, it would
    // be refused as cut short; stopped at its declared size, it never gets there.
    const piece = deflateRawSync(Buffer.alloc(1 << 20), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
    const bomb = Buffer.concat(Array.from({ length: 64 }, () => piece));
    refuses(makeZip([{ name: 'bomb', stored: bomb, size: 100 }]), /inflates past its declared size/);
  });

  test('declared sizes over the limits, per entry and together', () => {
    refuses(makeZip([{ name: 'big', data: 'x', size: (1 << 20) + 1 }]), /larger than 1048576 bytes/);
    refuses(makeZip([{ name: 'big', data: Buffer.alloc((1 << 20) + 1), method: 0 }]), /larger than/);
    const half = Buffer.alloc(600 * 1024);
    refuses(makeZip([{ name: 'a', data: half }, { name: 'b', data: half }]), /together/);
    refuses(makeZip([{ name: 'a' }, { name: 'b' }, { name: 'c' }]), /more than 2/, { ...LIMITS, maxEntries: 2 });
  });

  test('a file shorter than its declared size', () => {
    refuses(makeZip([{ name: 'a', data: 'hello', size: 9, method: 0 }]), /not the 9 its header declares|CRC/);
  });

  test('zip slip: names escaping the target directory, and odd names', () => {
    for (const name of ['../x', '/x', '/etc/passwd', 'a/../../x', 'a/..', '..', 'a\\..\\x', 'x\\y', 'a\0b', 'C:/x', 'c:x', 'a//b', './x', '', '/']) {
      refuses(makeZip([{ name, data: 'x' }]), /unsafe entry name/);
    }
  });

  test('the same name twice', () => {
    refuses(makeZip([{ name: 'a', data: '1' }, { name: 'a', data: '2' }]), /twice/);
  });

  test('ZIP64 markers', () => {
    const archive = makeZip([{ name: 'a', data: 'x' }]);
    archive.writeUInt16LE(0xffff, archive.length - 22 + 10);
    refuses(archive, /ZIP64/);
  });
});
