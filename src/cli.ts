// Command line → config → start. Nothing else lives here.
import { parseArgs } from 'node:util';
import type { Config } from './config.ts';
import pkg from '../package.json' with { type: 'json' };
import { HELP, OPTIONS } from './cli-options.ts';

function usageError(message: string): never {
  process.stderr.write(`wdgate: ${message}\nRun npx wdgate --help for the options.\n`);
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
  const config = resolveConfig(file, {
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
  config.configFile = values.config ?? null;
  return config;
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
  // A SIGTERM or SIGHUP while the gateway starts is held for it: with no listener Node dies of
  // SIGTERM at once, and the start line (what a supervisor waits for) is written just before the
  // listeners are installed.
  const held: NodeJS.Signals[] = [];
  const hold = (signal: NodeJS.Signals) => void held.push(signal);
  process.on('SIGTERM', hold).on('SIGHUP', hold);
  const running = await startGateway(config);
  installShutdown(running, config, () => readConfig(values));
  process.off('SIGTERM', hold).off('SIGHUP', hold);
  for (const signal of held) process.emit(signal, signal);
} catch (e) {
  // A setting that cannot be used (token file, certificate) is a usage error too: exit code 2.
  if (e instanceof ConfigError) usageError(e.message);
  process.stderr.write(`wdgate: ${(e as Error).message}\n`);
  process.exit(1);
}
