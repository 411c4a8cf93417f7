// The command line's options and its --help, as data: src/cli.ts parses with them, and the README
// test checks them against the README's commands and its Command line table.
import defaults from '../config/default.json' with { type: 'json' };
import pkg from '../package.json' with { type: 'json' };

export const OPTIONS = {
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

/**
 * What a config file sets that no option does (an option's key is its name in camelCase:
 * --listen-address is listenAddress). Typed by config/default.json: a new setting does not
 * compile until --help says what it is.
 */
const CONFIG_ONLY: Record<Exclude<keyof typeof defaults, OptionKey> | 'trace', string> = {
  maxQueuedSessions: 'New Session requests one principal may have waiting (0: refuse at once)',
  sessionQueueTimeout: 'how long a waiting New Session waits for a slot (ms)',
  sessionIdleTimeout: 'a session no command used for this long is ended (ms)',
  drainNoticePeriod: 'after a drain or SIGTERM, New Session is still served this long (ms)',
  readyRequiresFreeSlot: 'GET /ready answers 503 also while every slot is taken',
  newSessionsPerSecond: 'New Session requests one principal may make per second',
  pool: 'the warm pool: contexts kept prepared, browsers per key, contexts per browser, idle end (ms)',
  recordings: 'session videos (wdgate:options.recordVideo): where, kept how long, disk budget, frame rate',
  trace: 'session traces: the default mode (--trace), secrets redacted (regular expressions; the names of credentials), size limits, which steps are pictured',
  history: "ended sessions: where (--history-directory), kept how long (ms), disk budget, how many of a test's runs its verdict looks at, shared by a fleet's gateways or not",
  maxBodyBytes: 'largest request body and BiDi message (bytes)',
  maxBidiBufferedBytes: 'bytes a BiDi socket may hold for a slow client before it is closed',
  maxUrlLength: 'longest request path (bytes)',
  maxJsonDepth: 'deepest JSON nesting of a request body',
  maxHeaderBytes: 'largest request headers, names and values (bytes)',
  authTokens: 'tokens in the config itself: "token" or {"name", "token", "maxSessions", "admin", "share", "files", "relay"}',
  principalProofMaxAge: "how long a Grid client's wdgate:principal proof is taken after it was issued (ms)",
  localFiles: "the loopback client without a token (when no tokens are configured) may reach the machine's files: file: URLs and file inputs anywhere (false where loopback clients are not the machine's own user: a Grid relay, a proxy on the same host)",
  fileInputDirectories: 'directories file inputs may take files from (empty: anywhere)',
  extensions: 'browser extensions sessions may install (Firefox add-ons, moz/addon/install): allowed or not, and the directories a path may name',
  tempDir: "where browsers' profiles, uploads and downloads go (default: the system's temporary directory)",
  browsers: "the user browsers run as when the gateway runs as root (made when missing; null: root, only with sandbox false), and whether they keep their sandbox",
  native: 'the native backend: its Chromium, the binaries capabilities may ask for, and Chromium switches, Firefox arguments, prefs and environment variables sessions may pass besides the README table',
  routes: 'capabilities to backend, before the default routes: [{"match", "backend", "upstream"}]',
  remote: 'the remote backend: named upstream URLs, the managed drivers, its timeouts (ms)',
  playwright: "the Playwright backend's Firefox and the binaries capabilities may ask for",
};

type Camel<S extends string> = S extends `${infer A}-${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S;
type OptionKey = Camel<keyof typeof OPTIONS & string>;

/** `pool.{minWarm, maxBrowsers, …}` for a nested setting, the key alone otherwise. */
function configKey(key: string): string {
  const value = (defaults as Record<string, unknown>)[key];
  const nested = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
  return nested.length ? `${key}.{${nested.join(', ')}}` : key;
}

const CONFIG_HELP = Object.entries(CONFIG_ONLY)
  .map(([key, meaning]) => `  ${configKey(key)}\n      ${meaning}`)
  .join('\n');

export const HELP = `wdgate ${pkg.version}: a W3C WebDriver server and gateway

Usage: npx wdgate [options]
       npx wdgate show-trace <trace.zip> [--port <n>]   open a trace in the viewer, offline

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
  --max-sessions <n>                sessions at once (default: what the machine's memory and
                                    cores hold); more New Session requests wait in a queue
                                    (maxQueuedSessions, sessionQueueTimeout)
  --log-level <level>               fatal, error, warn, info (default), debug, trace or silent;
                                    logs are JSON lines on standard output
  --shutdown-grace-period <ms>      on SIGTERM, how long running sessions may finish before they
                                    are ended (default 30000; SIGINT ends them at once)
  --auth-token-file <file>          tokens that open the gateway to other machines, one a line:
                                    "token", or "name token max-sessions", optionally followed by
                                    "admin" (the admin API) and "share=N" (1 to 1000: its turns
                                    when principals wait for slots); SIGHUP reads it again
  --require-auth-on-loopback        loopback clients need a token too
  --allow-hosts <a,b>               Host names accepted besides IP addresses and localhost
                                    (behind a reverse proxy)
  --allow-origins <a,b>             origins (https://host:port) whose web pages may call wdgate
  --trace <mode>                    trace sessions by default: on, retain-on-failure or off
                                    (default retain-on-failure: a failed session's trace is kept;
                                    a session may ask with wdgate:options.trace)
  --history-directory <dir>         where ended sessions and their traces are kept (default
                                    $XDG_CACHE_HOME/wdgate/history, else ~/.cache/wdgate/history)
  --config <file>                   JSON settings file, keys as in config/default.json; the
                                    options above are keys too, in camelCase (--max-sessions:
                                    maxSessions; --trace: trace.mode, --history-directory:
                                    history.directory); options win over the file
  --help                            show this help
  --version                         show the version

Settings only a config file sets (defaults in config/default.json; README.md says more):
${CONFIG_HELP}

Environment:
  WDGATE_TOKEN       a token (the principal "default"), besides the token file and authTokens
  XDG_CACHE_HOME     the history's default place
  NODE_OPTIONS       --enable-source-maps keeps stack traces mapped to the sources (costs time)
`;
