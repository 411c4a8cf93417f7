// `wdgate show-trace`'s refusals, in-process (test/integration/trace-viewer.test.ts runs the
// command itself): each is exit code 2 with the reason, before anything listens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { showTrace } from '../../src/trace/show.ts';

/** The exit code and what was written to standard error. */
async function refused(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
  try {
    return { code: await showTrace(args), stderr };
  } finally {
    process.stderr.write = write;
  }
}

test('a missing file, a directory, a zip without trace.json, a broken zip, a bad port, two files: exit code 2 and why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wdgate-show-trace-'));
  try {
    const trace = join(dir, 'trace.zip');
    writeFileSync(trace, zipSync({ 'trace.json': strToU8('{"version":1,"session":{"id":"x"},"steps":[]}') }));
    writeFileSync(join(dir, 'other.zip'), zipSync({ 'readme.txt': strToU8('not a trace') }));
    writeFileSync(join(dir, 'broken.zip'), Buffer.from('PK\x03\x04 and then nothing a zip has'));
    for (const [args, reason] of [
      [[join(dir, 'nowhere.zip')], /nowhere\.zip: no such file/],
      [[dir], /is not a file/],
      [[join(dir, 'other.zip')], /other\.zip is a zip file but not a wdgate trace \(it has no trace\.json\)/],
      [[join(dir, 'broken.zip')], /broken\.zip cannot be read as a zip file/],
      [['--port', 'eighty', trace], /--port must be a port number/],
      [['--port', '70000', trace], /--port must be a port number/],
      [[trace, trace], /name one trace file/],
      [[], /name one trace file/],
      [['--verbose', trace], /Unknown option '--verbose'/],
    ] as const) {
      const { code, stderr } = await refused([...args]);
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
      assert.match(stderr, reason);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
