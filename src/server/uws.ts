// Which uWebSockets.js the edge runs on, loaded once at start: the package named uWebSockets.js in
// package.json, a republication of upstream's prebuilt binaries (one file per platform and Node
// ABI). The edge runs on that native build or not at all. The JavaScript fallback that earlier
// republications load where no binary fits (a node:http and ws stand-in written for Ganache)
// cannot serve wdgate: it has no peer address (the loopback check), no header iteration, no
// case-kept method, no endWithoutBody, no WebSocket upgrade of the edge's own; the first request
// ended the gateway. So a Node or C library without a native build is refused at start, saying
// which ones have one.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };

export type Uws = typeof import('uWebSockets.js');

export interface EdgeBuild {
  uWS: Uws;
  /** What loaded: "@based/uws@6.0.1 uws_linux_x64_115.node". */
  build: string;
}

/** The gateway does not start: no native build of uWebSockets.js loads here. */
export class EdgeRefusal extends Error {}

const require = createRequire(import.meta.url);

/** Node majors by ABI (process.versions.modules), as Node numbers them. */
const NODE_OF_ABI: Record<string, number> = { '108': 18, '115': 20, '120': 21, '127': 22, '131': 23, '137': 24, '141': 25, '147': 26 };

/** The Node majors package.json's engines name: ^20.15 || ^22.2 || ^24 → 20, 22, 24. */
export const SUPPORTED_NODES = [...pkg.engines.node.matchAll(/\^(\d+)/g)].map((m) => Number(m[1]));

/** Loads the package's module (a parameter for the tests of a machine where it does not load). */
export type Loader = () => Uws;

/** The edge's own limits on a request's head (config keys), which its parser must let through. */
export interface HeadLimits {
  maxUrlLength: number;
  maxHeaderBytes: number;
}

/**
 * Load uWebSockets.js for the edge. Throws EdgeRefusal, saying why and which Node and C library
 * have a native build, when none loads here, or when UWS_USE_FALLBACK asks for the fallback.
 */
export function loadEdge(limits: HeadLimits, env: NodeJS.ProcessEnv = process.env, load: Loader = () => require('uWebSockets.js') as Uws): EdgeBuild {
  const here = `Node ${process.versions.node}, ${process.platform} ${process.arch}, ABI ${process.versions.modules}`;
  if (['1', 'true', 'True', 'TRUE'].includes(env.UWS_USE_FALLBACK ?? '')) {
    throw new EdgeRefusal(
      `UWS_USE_FALLBACK=${env.UWS_USE_FALLBACK} asks for uWebSockets.js's JavaScript fallback, and wdgate has none: it runs on the native build only ` +
        `(the fallback of earlier uWebSockets.js republications cannot serve it: no peer address, no request headers, no WebSocket upgrades). Unset UWS_USE_FALLBACK.`,
    );
  }
  // uWS answers a request head (request line and headers) larger than UWS_HTTP_MAX_HEADERS_SIZE
  // itself, before any handler: 431 with an HTML page (4096 bytes unless set; read once, as the
  // binary loads). Up to twice the edge's own limits the gate sees the request and answers a W3C
  // error naming the limit; past that uWS's 431 stands (a stalled connection holds at most that).
  const ownLimit = env.UWS_HTTP_MAX_HEADERS_SIZE === undefined;
  if (ownLimit) env.UWS_HTTP_MAX_HEADERS_SIZE = String(2 * (limits.maxUrlLength + limits.maxHeaderBytes));
  let uWS: Uws;
  try {
    uWS = load();
  } catch (e) {
    // The package wraps the loader's error in a paragraph of its own; the loader's says why.
    const reason = String((e as Error).message).split('\n\n').at(-1)!.trim();
    throw new EdgeRefusal(
      `uWebSockets.js has no native build that loads here (${here}): ${reason}\n` +
        `wdgate runs only on its native build (it has no JavaScript fallback). Run it on ${nativeNodes()}.`,
    );
  } finally {
    // Read by now; browsers and drivers started later need not inherit it.
    if (ownLimit) delete env.UWS_HTTP_MAX_HEADERS_SIZE;
  }
  return { uWS, build: `${nativePackage()} ${binaryName(process.versions.modules)}` };
}

/**
 * The supported Node majors the installed package has a binary for here, with the oldest glibc
 * each binary loads on (the newest GLIBC_ symbol version it asks for; read on a refusal only).
 */
export function nativeNodes(): string {
  let dir: string;
  let files: string[];
  try {
    dir = packageDir();
    files = readdirSync(dir);
  } catch {
    return 'a machine where npm ci has installed it';
  }
  const prefix = `uws_${process.platform}_${process.arch}_`;
  const builds = files
    .filter((f) => f.startsWith(prefix) && f.endsWith('.node'))
    .map((f) => ({ file: f, node: NODE_OF_ABI[f.slice(prefix.length, -'.node'.length)] }))
    .filter((b): b is { file: string; node: number } => b.node !== undefined && SUPPORTED_NODES.includes(b.node))
    .sort((a, b) => a.node - b.node);
  if (!builds.length) return `another platform: it has no build for ${process.platform} ${process.arch}`;
  const nodes = (majors: number[]) => `Node ${majors.join(' or ')}`;
  if (process.platform !== 'linux') return nodes(builds.map((b) => b.node));
  const byGlibc = new Map<string, number[]>();
  for (const b of builds) {
    const glibc = glibcNeeded(readFileSync(join(dir, b.file)));
    byGlibc.set(glibc, [...(byGlibc.get(glibc) ?? []), b.node]);
  }
  return [...byGlibc]
    .map(([glibc, majors]) => `${nodes(majors)} with glibc ${glibc} or later${compareVersions(glibc, '2.36') > 0 ? ' (Debian 13, Ubuntu 24.04; Debian 12 has 2.36)' : ''}`)
    .join(', or ');
}

/** The newest glibc symbol version a shared object names ("2.38"), the oldest glibc it loads on. */
export function glibcNeeded(binary: Buffer): string {
  const versions = [...binary.toString('latin1').matchAll(/GLIBC_(2\.\d+(?:\.\d+)?)\0/g)].map((m) => m[1]!);
  return versions.sort(compareVersions).at(-1) ?? 'any';
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

function binaryName(abi: string): string {
  return `uws_${process.platform}_${process.arch}_${abi}.node`;
}

/** "@based/uws@6.0.1": the package behind the name uWebSockets.js. */
function nativePackage(): string {
  const { name, version } = JSON.parse(readFileSync(join(packageDir(), 'package.json'), 'utf8')) as { name: string; version: string };
  return `${name}@${version}`;
}

/** The installed package's directory (its "exports" keep package.json from require). */
export function packageDir(): string {
  return dirname(require.resolve('uWebSockets.js'));
}
