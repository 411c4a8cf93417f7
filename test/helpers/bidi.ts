// A tiny WebDriver BiDi client over a real WebSocket (the `ws` package): commands by id, events
// kept in arrival order, waits on events (never on time). And the engines' own drivers, to compare
// the gateway's answers with.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { eventually } from './pages.ts';

export interface BidiMessage {
  type: 'success' | 'error' | 'event';
  id?: number | null;
  result?: any;
  error?: string;
  message?: string;
  method?: string;
  params?: any;
}

export class BidiSocket {
  readonly events: BidiMessage[] = [];
  /** Error messages that answer no command of ours (id null or unknown). */
  readonly strayErrors: BidiMessage[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly #ws: WebSocket;
  readonly #pending = new Map<number, (m: BidiMessage) => void>();
  readonly #watchers = new Set<() => void>();
  #nextId = 1;

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as BidiMessage;
      const answer = typeof m.id === 'number' ? this.#pending.get(m.id) : undefined;
      if (answer) {
        this.#pending.delete(m.id!);
        answer(m);
      } else if (m.type === 'event') this.events.push(m);
      else this.strayErrors.push(m);
      for (const watcher of this.#watchers) watcher();
    });
    void this.closed.then(() => {
      for (const watcher of this.#watchers) watcher();
    });
  }

  /** Connect; rejects with the HTTP status of a refused upgrade. */
  static open(url: string, headers: Record<string, string> = {}): Promise<BidiSocket> {
    const ws = new WebSocket(url, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new BidiSocket(ws)));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode} ${body}`), { status: res.statusCode, body })));
      });
      ws.once('error', reject);
    });
  }

  /** Send a command; resolves with its answer (success or error). */
  command(method: string, params: Record<string, unknown> = {}): Promise<BidiMessage> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, resolve);
      this.#ws.send(JSON.stringify({ id, method, params }), (e) => e && reject(e));
      void this.closed.then(() => this.#pending.has(id) && reject(new Error(`the socket closed before ${method} was answered`)));
    });
  }

  /** A command that must succeed: its result. */
  async call(method: string, params: Record<string, unknown> = {}): Promise<any> {
    const answer = await this.command(method, params);
    if (answer.type !== 'success') throw new Error(`${method} failed: ${answer.error}: ${answer.message}`);
    return answer.result;
  }

  /** Send anything as it is (text or a binary frame). */
  raw(data: string | Buffer, binary = false): void {
    this.#ws.send(data, { binary });
  }

  /** Resolves once `check` holds for what arrived (events, stray errors), or rejects when the socket closes first. */
  until<T>(check: () => T | undefined, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const test = () => {
        const found = check();
        if (found !== undefined) {
          this.#watchers.delete(test);
          resolve(found);
        } else if (this.#ws.readyState === WebSocket.CLOSED) {
          this.#watchers.delete(test);
          reject(new Error(`the socket closed before ${what}`));
        }
      };
      this.#watchers.add(test);
      test();
    });
  }

  /** The first event of `method` that matches, waiting for it. */
  event(method: string, match: (params: any) => boolean = () => true): Promise<BidiMessage> {
    return this.until(() => this.events.find((e) => e.method === method && match(e.params)), `a ${method} event`);
  }

  close(): void {
    this.#ws.close();
  }

  /** Stop reading from the socket (a client that reads slowly), and start again. */
  pause(): void {
    (this.#ws as unknown as { _socket: import('node:net').Socket })._socket.pause();
  }

  resume(): void {
    (this.#ws as unknown as { _socket: import('node:net').Socket })._socket.resume();
  }

  /** Drop the connection without a closing handshake (a client that died). */
  terminate(): void {
    this.#ws.terminate();
  }
}

/** The socket of a session, once the gateway has let its last connection go. */
export async function eventuallyOpen(url: string): Promise<BidiSocket> {
  let socket: BidiSocket | undefined;
  await eventually(async () => {
    socket = await BidiSocket.open(url).catch(() => undefined);
    return socket !== undefined;
  }, 'the session took no new connection');
  return socket!;
}

/** A BiDi session on the engine's own driver, nothing between: the answers the gateway must give too. */
export interface ReferenceBidi {
  socket: BidiSocket;
  /** Its first top-level browsing context. */
  context: string;
  /** End the session and the processes; never throws. */
  close(): Promise<void>;
}

/** Text a child writes to `stream` until `pattern` matches: the first group. Rejects if the child exits first. */
function awaitOutput(child: ChildProcess, stream: 'stdout' | 'stderr', pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    child[stream]!.on('data', (chunk: Buffer) => {
      output += chunk;
      const found = pattern.exec(output);
      if (found) resolve(found[1]!);
    });
    child.once('exit', () => reject(new Error(`${child.spawnfile} exited: ${output.slice(-300)}`)));
  });
}

/**
 * chromedriver with `webSocketUrl: true` (its chromium-bidi mapper in a tab of Debian's Chromium),
 * or a firefox-esr's own BiDi socket: what a client of the engine's own driver is answered.
 */
export async function referenceBidi(engine: 'chromium' | 'firefox'): Promise<ReferenceBidi> {
  if (engine === 'firefox') {
    const profile = await mkdtemp(join(tmpdir(), 'wdgate-test-firefox-'));
    const child = spawn('/usr/bin/firefox-esr', ['--headless', '--no-remote', '--profile', profile, '--remote-debugging-port=0', 'about:blank'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, MOZ_CRASHREPORTER_DISABLE: '1' },
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const end = async () => {
      child.kill('SIGKILL');
      await exited;
      await rm(profile, { recursive: true, force: true });
    };
    try {
      const socket = await BidiSocket.open(`${await awaitOutput(child, 'stderr', /WebDriver BiDi listening on (ws:\/\/\S+)/)}/session`);
      await socket.call('session.new', { capabilities: {} });
      const { contexts } = await socket.call('browsingContext.getTree', { maxDepth: 0 });
      return {
        socket,
        context: contexts[0].context,
        async close() {
          socket.close();
          await end();
        },
      };
    } catch (e) {
      await end();
      throw e;
    }
  }
  const child = spawn('/usr/bin/chromedriver', ['--port=0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let session: string | undefined;
  let base = '';
  const end = async () => {
    if (session) await fetch(`${base}/session/${session}`, { method: 'DELETE' }).catch(() => {});
    child.kill('SIGTERM');
    await exited;
  };
  try {
    base = `http://127.0.0.1:${await awaitOutput(child, 'stdout', /started successfully on port (\d+)/)}`;
    const args = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'];
    const created = await fetch(`${base}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome', webSocketUrl: true, 'goog:chromeOptions': { binary: '/usr/bin/chromium', args } } } }),
    });
    const { value } = (await created.json()) as { value: { sessionId: string; capabilities: { webSocketUrl: string } } };
    session = value.sessionId;
    const socket = await BidiSocket.open(value.capabilities.webSocketUrl);
    const { contexts } = await socket.call('browsingContext.getTree', { maxDepth: 0 });
    return {
      socket,
      context: contexts[0].context,
      async close() {
        socket.close();
        await end();
      },
    };
  } catch (e) {
    await end();
    throw e;
  }
}
