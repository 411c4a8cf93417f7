// A tiny W3C WebDriver client over fetch: raw responses for asserting on errors, and session
// helpers for the common path.
import assert from 'node:assert/strict';

export const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

export interface Reply {
  status: number;
  value: any;
  contentType: string | null;
}

export class Client {
  /** `headers` go with every request (Authorization for a principal's token). */
  constructor(
    readonly url: string,
    readonly headers: Record<string, string> = {},
  ) {}

  /** The same gateway, as the principal of this token. */
  withToken(token: string): Client {
    return new Client(this.url, { ...this.headers, authorization: `Bearer ${token}` });
  }

  async raw(method: string, path: string, body?: unknown, init: RequestInit = {}): Promise<Reply> {
    const res = await fetch(this.url + path, {
      method,
      headers: { 'content-type': 'application/json', ...this.headers, ...(init.headers ?? {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let value: any;
    try {
      value = JSON.parse(text).value;
    } catch {
      value = text;
    }
    return { status: res.status, value, contentType: res.headers.get('content-type') };
  }

  /** A command that must succeed; returns its value. */
  async ok(method: string, path: string, body?: unknown): Promise<any> {
    const reply = await this.raw(method, path, body);
    assert.equal(reply.status, 200, `${method} ${path} failed: ${JSON.stringify(reply.value)}`);
    return reply.value;
  }

  /** A command that must fail with `code` (and the spec's status for it); returns the error. */
  async fails(method: string, path: string, body: unknown, code: string, status?: number): Promise<any> {
    const reply = await this.raw(method, path, body);
    assert.equal(reply.value?.error, code, `${method} ${path}: expected ${code}, got ${JSON.stringify(reply.value)}`);
    if (status !== undefined) assert.equal(reply.status, status);
    assert.equal(typeof reply.value.message, 'string');
    assert.equal(typeof reply.value.stacktrace, 'string');
    return reply.value;
  }

  /** Browser contexts leased to sessions now, over every pool key (GET /status). */
  async leasedContexts(): Promise<number> {
    const { pool } = await this.ok('GET', '/status');
    return pool.reduce((n: number, key: { inUse: number }) => n + key.inUse, 0);
  }

  async newSession(alwaysMatch: Record<string, unknown> = {}): Promise<Session> {
    // WDGATE_TEST_BACKEND runs the same tests on another backend (test/backends.ts).
    const value = await this.ok('POST', '/session', { capabilities: { alwaysMatch: { ...BACKEND_CAPABILITIES, ...alwaysMatch }, firstMatch: [{}] } });
    return new Session(this, value.sessionId, value.capabilities);
  }
}

/** Capabilities that choose the backend under test: none (native), or by WDGATE_TEST_BACKEND. */
export const BACKEND_CAPABILITIES: Record<string, unknown> = (
  {
    native: {},
    'playwright-chromium': { 'wdgate:options': { backend: 'playwright' } },
    'playwright-firefox': { browserName: 'firefox', 'wdgate:options': { backend: 'playwright' } },
    'native-firefox': { browserName: 'firefox' }, // the default route
    'remote-chromedriver': { 'wdgate:options': { backend: 'remote' } },
  } as Record<string, Record<string, unknown>>
)[process.env.WDGATE_TEST_BACKEND ?? 'native'] ?? {};

export class Session {
  constructor(
    readonly client: Client,
    readonly id: string,
    readonly capabilities: Record<string, any>,
  ) {}

  path(p: string): string {
    return `/session/${this.id}${p}`;
  }
  get(p: string) {
    return this.client.ok('GET', this.path(p));
  }
  post(p: string, body: unknown = {}) {
    return this.client.ok('POST', this.path(p), body);
  }
  delete(p: string) {
    return this.client.ok('DELETE', this.path(p));
  }
  fails(method: string, p: string, body: unknown, code: string, status?: number) {
    return this.client.fails(method, this.path(p), body, code, status);
  }
  raw(method: string, p: string, body?: unknown) {
    return this.client.raw(method, this.path(p), body);
  }

  navigate(url: string) {
    return this.post('/url', { url });
  }
  async find(css: string): Promise<string> {
    const el = await this.post('/element', { using: 'css selector', value: css });
    return el[ELEMENT];
  }
  async execute(script: string, args: unknown[] = []): Promise<any> {
    return this.post('/execute/sync', { script, args });
  }
  end() {
    return this.client.ok('DELETE', `/session/${this.id}`);
  }
}

export const elementRef = (id: string) => ({ [ELEMENT]: id });
