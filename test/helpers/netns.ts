// A client on a non-loopback address: a network namespace joined to this one by a veth pair
// (needs root and `ip netns`). The gateway sees the namespace's address as the peer.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export const run = promisify(execFile);

export interface Namespace {
  /** This machine's address as the namespace reaches it (listen on 0.0.0.0 to be reached). */
  hostAddress: string;
  /** The namespace's own address: the peer the gateway sees. */
  peerAddress: string;
  /** curl from inside the namespace: status, content type, headers and JSON body. */
  curl(url: string, args?: string[]): Promise<{ status: number; type: string; headers: string; text: string; value: any }>;
  close(): Promise<void>;
}

/** Why a namespace cannot be made here, or null if it can. */
export async function namespaceUnavailable(): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'needs root to put a client on a non-loopback address';
  const ok = await run('ip', ['netns', 'list']).then(() => true, () => false);
  if (!ok) return 'needs `ip netns` (iproute2) to put a client on a non-loopback address';
  return (await run('curl', ['--version']).then(() => true, () => false)) ? null : 'needs curl';
}

let made = 0;

export async function createNamespace(): Promise<Namespace> {
  const id = `${process.pid % 10000}${made++}`;
  const ns = `wdgate-test-${id}`;
  const hostIf = `wdga${id}`;
  const nsIf = `wdgb${id}`;
  const net = `10.${200 + (made % 50)}.${(process.pid % 250) + 1}`;
  const close = async () => {
    await run('ip', ['link', 'del', hostIf]).catch(() => {});
    await run('ip', ['netns', 'del', ns]).catch(() => {});
  };
  try {
    await run('ip', ['netns', 'add', ns]);
    await run('ip', ['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf]);
    await run('ip', ['link', 'set', nsIf, 'netns', ns]);
    await run('ip', ['addr', 'add', `${net}.1/30`, 'dev', hostIf]);
    await run('ip', ['link', 'set', hostIf, 'up']);
    await run('ip', ['netns', 'exec', ns, 'ip', 'addr', 'add', `${net}.2/30`, 'dev', nsIf]);
    await run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', nsIf, 'up']);
  } catch (e) {
    await close();
    throw e;
  }
  return {
    hostAddress: `${net}.1`,
    peerAddress: `${net}.2`,
    async curl(url, args = []) {
      // -i: the response head, a blank line, the body; then the status and content type (-w).
      const { stdout } = await run('ip', ['netns', 'exec', ns, 'curl', '-sS', '-i', '-m', '10', '-w', '\n%{http_code}\n%{content_type}', ...args, url]).catch(
        (e) => {
          throw new Error(`curl from the namespace failed: ${e.stderr || e.message}`);
        },
      );
      const lines = stdout.split('\n');
      const type = lines.pop()!;
      const code = lines.pop()!;
      const reply = lines.join('\n');
      const split = reply.indexOf('\r\n\r\n');
      const headers = reply.slice(0, split);
      const text = reply.slice(split + 4);
      let value: any;
      try {
        value = JSON.parse(text).value;
      } catch {
        value = undefined;
      }
      return { status: Number(code), type, headers, text, value };
    },
    close,
  };
}
