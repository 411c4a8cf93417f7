// Command line → config → start. Nothing else lives here.
import { parseArgs } from 'node:util';
import type { Config } from './config.ts';
import pkg from '../package.json' with { type: 'json' };

const HELP = `wdgate ${pkg.version}: a W3C WebDriver server and gateway

Usage: wdgate [options]
       wdgate show-trace <trace.zip> [--port <n>]   open a trace in the viewer, offline

  --port <n>                        port to listen on (default 8000; 0 picks a free one)
  --listen-address <addr>           address to listen on (default 0.0.0.0; peers that are not
                                    on loopback are refused unless tokens are configured)
  --metrics-port <n>                also serve GET /metrics on this port, to any peer without a
                                    token (for Prometheus; nothing else is served there)
  --headless                        run browsers headless (needed on machines without a display)
  --certificate <file>              serve HTTPS with this PEM certificate; the PEM file may also
                                    hold the private key, or name the key with --certificate-key
  --certificate-key <file>          PEM private key for --certificate
  --force-cpu-painting              paint on the CPU (no GPU acceleration)
  --expose-experimental-interfaces  enable experimental web platform features
  --debug-process=<name>            make a browser process wait for a debugger at start;
                                    <name> is one of: renderer, gpu, utility
  --default-time-zone <zone>        IANA time zone for every session (e.g. Europe/Berlin)
  --max-sessions <n>                sessions at once (default 8); more New Session requests
                                    wait in a queue (maxQueuedSessions, sessionQueueTimeout)
  --log-level <level>               fatal, error, warn, info (default), debug, trace or silent;
                                    logs are JSON lines on standard output
  --shutdown-grace-period <ms>      on SIGTERM, how long running sessions may finish before they
                                    are ended (default 30000; SIGINT ends them at once)
  --auth-token-file <file>          tokens that open the gateway to other machines: one per line,
                                    "token", "name token max-sessions" or "... admin" (also: env
                                    WDGATE_TOKEN); SIGHUP reads it again
  --require-auth-on-loopback        loopback clients need a token too
  --allow-hosts <a,b>               Host names accepted besides IP addresses and localhost
                                    (behind a reverse proxy)
  --allow-origins <a,b>             origins (https://host:port) whose web pages may call wdgate
  --trace <mode>                    trace sessions by default: on, retain-on-failure or off
                                    (default off; a session may ask with wdgate:options.trace)
  --history-directory <dir>         where ended sessions and their traces are kept (default
                                    $XDG_CACHE_HOME/wdgate/history, else ~/.cache/wdgate/history)
  --config <file>                   JSON settings file (keys as in config/default.json)
  --help                            show this help
  --version                         show the version
`;

const OPTIONS = {
  port: { type: 'string' },
  'listen-address': { type: 'string' },
  'metrics-port': { type: 'string' },
  headless: { type: 'boolean' },
  certificate: { type: 'string' },
  'certificate-key': { type: 'string' },
  'force-cpu-painting': { type: 'boolean' },
  'expose-experimental-interfaces': { type: 'boolean' },
  'debug-process': { type: 'string' },
  'default-time-zone': { type: 'string' },
  'max-sessions': { type: 'string' },
  'shutdown-grace-period': { type: 'string' },
  'log-level': { type: 'string' },
  'auth-token-file': { type: 'string' },
  'require-auth-on-loopback': { type: 'boolean' },
  'allow-hosts': { type: 'string' },
  'allow-origins': { type: 'string' },
  trace: { type: 'string' },
  'history-directory': { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean' },
  version: { type: 'boolean' },
} as const;

function usageError(message: string): never {
  process.stderr.write(`wdgate: ${message}\nRun wdgate --help for the options.\n`);
  process.exit(2);
}

type ParsedOptions = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true; allowPositionals: false }>>['values'];

function configFromArgs(argv: string[]): Config {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (e) {
    usageError((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  if (values.version) {
    process.stdout.write(`${pkg.version}\n`);
    process.exit(0);
  }
  try {
    return readConfig(values);
  } catch (e) {
    if (e instanceof ConfigError) usageError(e.message);
    throw e;
  }
}

/** The config file (read now) under the command line's options. Throws ConfigError. */
function readConfig(values: ParsedOptions): Config {
  const file = values.config ? readConfigFile(values.config) : {};
  // Nested settings from the command line: the file's others stay.
  const section = (key: 'trace' | 'history', value: Record<string, unknown>) =>
    Object.values(value).every((v) => v === undefined) ? undefined : { ...((file[key] as Record<string, unknown> | undefined) ?? {}), ...Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) };
  return resolveConfig(file, {
    trace: section('trace', { mode: values.trace }),
    history: section('history', { directory: values['history-directory'] }),
    port: values.port,
    listenAddress: values['listen-address'],
    metricsPort: values['metrics-port'],
    headless: values.headless,
    certificate: values.certificate,
    certificateKey: values['certificate-key'],
    forceCpuPainting: values['force-cpu-painting'],
    exposeExperimentalInterfaces: values['expose-experimental-interfaces'],
    debugProcess: values['debug-process'],
    defaultTimeZone: values['default-time-zone'],
    maxSessions: values['max-sessions'],
    shutdownGracePeriod: values['shutdown-grace-period'],
    logLevel: values['log-level'],
    authTokenFile: values['auth-token-file'],
    requireAuthOnLoopback: values['require-auth-on-loopback'],
    allowHosts: values['allow-hosts'],
    allowOrigins: values['allow-origins'],
  });
}

// Stacks without source maps, unless asked for (--enable-source-maps): Playwright records a
// 50-frame stack on every API call, and mapping each frame through tsx's source maps cost
// ≈ 0.15 ms of every W3C command on the Playwright backend (measured in turn). The gateway's
// stacks go only to its own output, never to a client.
const askedForSourceMaps = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes('--enable-source-maps');
if (!askedForSourceMaps) process.setSourceMapsEnabled(false);

// A subcommand: the trace viewer for one file, served on loopback (src/trace/show.ts).
if (process.argv[2] === 'show-trace') {
  const { showTrace } = await import('./trace/show.ts');
  process.exit(await showTrace(process.argv.slice(3)));
}
// Loaded here, not above: show-trace needs none of the gateway's modules (the config's reach the backends).
const { ConfigError, readConfigFile, resolveConfig } = await import('./config.ts');

const config = configFromArgs(process.argv.slice(2));
try {
  // SIGHUP reads the config file (and the token file it names) again; the command line stays.
  const values = parseArgs({ args: process.argv.slice(2), options: OPTIONS, strict: true, allowPositionals: false }).values;
  const { installShutdown, startGateway } = await import('./app.ts');
  installShutdown(await startGateway(config), config, () => readConfig(values));
} catch (e) {
  // A setting that cannot be used (token file, certificate) is a usage error too: exit code 2.
  if (e instanceof ConfigError) usageError(e.message);
  process.stderr.write(`wdgate: ${(e as Error).message}\n`);
  process.exit(1);
}
