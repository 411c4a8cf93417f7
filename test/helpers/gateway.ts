// Start the real wdgate as a child process (as users run it) on a free port, and stop it with
// SIGTERM the way a service manager would, waiting for it to exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from './client.ts';

const BIN = fileURLToPath(new URL('../../bin/wdgate.js', import.meta.url));

export interface TestGateway {
  url: string;
  port: number;
  client: Client;
  process: ChildProcess;
  output(): string;
  /** SIGTERM, then wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  /** Pass --headless (default true: these machines have no display). */
  headless?: boolean;
  env?: NodeJS.ProcessEnv;
  /** https (with --certificate among args). */
  scheme?: 'http' | 'https';
  /** Settings passed as a config file (--config), keys as in config/default.json. */
  config?: Record<string, unknown>;
  /** --shutdown-grace-period: 0 unless asked (the helper's stop() then ends everything at once). */
  shutdownGracePeriod?: number;
  /**
   * --history-directory: a given one (kept), or one of the gateway's own, removed when it exits
   * (a test never writes into the user's cache).
   */
  historyDirectory?: string;
  /** Options for node itself, before the script (the benchmark's `--cpu-prof`). */
  nodeArgs?: string[];
}

/**
 * On another backend than native (WDGATE_TEST_BACKEND, scripts/test-backends.sh), the gateway
 * keeps no native Chromium warm (pool.minWarm 0): the tests never use it, and each file's gateway
 * would launch one. A test that sets pool.minWarm itself, or brings its own --config, is left as it is.
 */
function withBackendUnderTest(config: Record<string, unknown> | undefined, args: string[]): Record<string, unknown> | undefined {
  const backend = process.env.WDGATE_TEST_BACKEND;
  if (!backend || backend === 'native' || args.includes('--config')) return config;
  const pool = (config?.pool ?? {}) as Record<string, unknown>;
  return { ...config, pool: { minWarm: 0, ...pool } };
}

/**
 * WDGATE_TEST_TRACE (a trace mode: off, retain-on-failure, on) runs the gateways of tests that do
 * not choose one with that default: the command tests, run once with `off` and once without, give
 * the same results (issue 38: tracing is invisible to a client).
 */
function withTraceUnderTest(config: Record<string, unknown> | undefined, args: string[]): string[] {
  const mode = process.env.WDGATE_TEST_TRACE;
  if (!mode || args.includes('--trace') || (config && 'trace' in config)) return [];
  return ['--trace', mode];
}

export async function startGateway(args: string[] = [], options: StartOptions = {}): Promise<TestGateway> {
  const base = [BIN, '--port', '0', '--listen-address', '127.0.0.1', '--shutdown-grace-period', String(options.shutdownGracePeriod ?? 0), ...(options.headless === false ? [] : ['--headless'])];
  base.push(...withTraceUnderTest(options.config, args));
  const ownHistory = options.historyDirectory === undefined ? mkdtempSync(join(tmpdir(), 'wdgate-test-history-')) : undefined;
  base.push('--history-directory', options.historyDirectory ?? ownHistory!);
  let configDir: string | undefined;
  const config = withBackendUnderTest(options.config, args);
  if (config) {
    configDir = mkdtempSync(join(tmpdir(), 'wdgate-test-config-'));
    writeFileSync(join(configDir, 'config.json'), JSON.stringify(config));
    base.push('--config', join(configDir, 'config.json'));
  }
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...base, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  if (configDir) void exited.then(() => rmSync(configDir, { recursive: true, force: true }));
  if (ownHistory) void exited.then(() => rmSync(ownHistory, { recursive: true, force: true }));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // never leave a gateway that did not start behind
      reject(new Error(`wdgate did not start:\n${output}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening on https?:\/\/[^\s]*:(\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`wdgate exited with ${code} before listening:\n${output}`));
    });
  });
  const url = `${options.scheme ?? 'http'}://127.0.0.1:${port}`;
  return {
    url,
    port,
    client: new Client(url),
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
