// Processes the remote backend starts itself: W3C drivers (chromedriver, WebKitWebDriver) and the
// Xvfb display WebKit needs without a display, each an OwnedProcess (../owned-process.ts).
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { LaunchError } from '../backend.ts';
import { DRIVER_DIR_PREFIX, OwnedProcess } from '../owned-process.ts';
import { giveToBrowsers } from '../policy/index.ts';

/** Ask the kernel for a free loopback port (for a driver that cannot pick its own). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Start a driver and resolve with its URL once it answers `/status`. `portFromOutput` reads the
 * port a driver chose itself from its output (chromedriver --port=0); else `port` is given.
 */
export async function startDriver(
  binary: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; port?: number; portFromOutput?: RegExp; timeoutMs?: number; tempDir: string },
): Promise<{ process: OwnedProcess; url: string }> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  // The driver's temporary files (the profiles it makes, which it leaves when it is stopped
  // mid-session) live in a directory of its own that goes with it, or with a dead gateway's sweep.
  // Drivers run as the browsers' user: they start the browsers.
  const ownTemp = await mkdtemp(join(options.tempDir, `${DRIVER_DIR_PREFIX}${process.pid}-`));
  await giveToBrowsers(ownTemp);
  const owned = OwnedProcess.spawn(binary, args, options.env ?? process.env, ['ignore', 'pipe', 'pipe'], ownTemp, true);
  const { child } = owned;
  let output = '';
  const lastWords = () => output.trim().split('\n').slice(-3).join(' / ') || 'no output';
  let port = options.port;
  const read = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
    const found = port === undefined ? options.portFromOutput?.exec(output) : null;
    if (found) port = Number(found[1]);
  };
  child.stdout!.on('data', read);
  child.stderr!.on('data', read);
  try {
    for (;;) {
      if (owned.exited) throw new LaunchError(`${binary} exited at start: ${lastWords()}`);
      if (Date.now() > deadline) throw new LaunchError(`${binary} did not start within ${timeoutMs} ms: ${lastWords()}`);
      if (port !== undefined) {
        const ok = await fetch(`http://127.0.0.1:${port}/status`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
        if (ok) break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  } catch (e) {
    await owned.stop(0);
    throw e;
  }
  // The driver's log is not kept; its pipes are drained so that it never blocks on them.
  child.stdout!.off('data', read).resume();
  child.stderr!.off('data', read).resume();
  return { process: owned, url: `http://127.0.0.1:${port}` };
}

/** The display's home: `wdgate-display-<gateway pid>-<random>` (a driver's is another's to count). */
export const DISPLAY_DIR_PREFIX = 'wdgate-display-';

/**
 * An Xvfb display of the gateway's own (for a headful browser where there is no display), run as
 * the browsers' user (an X server is a large parser its clients reach: never root).
 */
export async function startXvfb(tempDir: string): Promise<{ process: OwnedProcess; display: string }> {
  const ownTemp = await mkdtemp(join(tempDir, `${DISPLAY_DIR_PREFIX}${process.pid}-`));
  await giveToBrowsers(ownTemp);
  const owned = OwnedProcess.spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp', '-noreset'], process.env, ['ignore', 'ignore', 'pipe', 'pipe'], ownTemp, true);
  const fd3 = owned.child.stdio[3] as NodeJS.ReadableStream;
  let stderr = '';
  owned.child.stderr!.on('data', (c: Buffer) => void (stderr = (stderr + c.toString()).slice(-2000)));
  try {
    const display = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new LaunchError('Xvfb did not start within 10 s')), 10_000);
      let text = '';
      fd3.on('data', (c: Buffer) => {
        text += c.toString();
        if (text.includes('\n')) {
          clearTimeout(timer);
          resolve(`:${text.trim()}`);
        }
      });
      owned.onExit(() => {
        clearTimeout(timer);
        reject(new LaunchError(`Xvfb could not start (is the xvfb package installed?): ${stderr.trim().split('\n').at(-1) ?? ''}`));
      });
    });
    owned.child.stderr!.resume();
    return { process: owned, display };
  } catch (e) {
    await owned.stop(0);
    throw e;
  }
}
