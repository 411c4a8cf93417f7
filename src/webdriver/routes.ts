// THE route table of W3C WebDriver classic (spec §6.5 "Endpoints"), as data, with what the rest
// of the gateway needs to know of each command. The router, the `unknown command` / `unknown
// method` answers and the README's endpoint list all come from it; a command named here without a
// handler answers `unsupported operation`. Command names are a type: a misspelt one in a table of
// handlers or of facts does not compile.

export type Method = 'GET' | 'POST' | 'DELETE';

/** What other rooms need to know of a command, kept with its route. */
export interface CommandFacts {
  /** A command of this table (not a BiDi method or a request no route names). */
  known?: true;
  /** The page may show something else afterwards (navigation, input, script, windows, frames, prompts): a trace captures it. */
  changesPage?: true;
  /**
   * A look around, as a client sends after a failure (a reporter's screenshot, the page source,
   * the URL): its success is no recovery from the failure (the session's result).
   */
  looksAround?: true;
}

export interface Route extends CommandFacts {
  method: Method;
  path: string; // template: `{name}` segments are URL parameters
  command: string; // the spec's command name, camel-cased
  /** Another path of a command routed above (an older one clients still send): its facts are that route's. */
  alias?: true;
}

const S = '/session/{sessionId}';
const E = `${S}/element/{elementId}`;

export const routes = [
  { method: 'POST', path: '/session', command: 'newSession' },
  { method: 'DELETE', path: S, command: 'deleteSession', looksAround: true },
  { method: 'GET', path: '/status', command: 'status', looksAround: true },
  // Not W3C: Prometheus metrics, the liveness and readiness probes and the admin API for operators (src/ops/).
  { method: 'GET', path: '/metrics', command: 'metrics' },
  { method: 'GET', path: '/health', command: 'health' },
  { method: 'GET', path: '/ready', command: 'ready' },
  { method: 'GET', path: '/wdgate/admin/sessions', command: 'adminListSessions' },
  { method: 'DELETE', path: '/wdgate/admin/sessions', command: 'adminEndAllSessions' },
  { method: 'DELETE', path: '/wdgate/admin/sessions/{sessionId}', command: 'adminEndSession' },
  { method: 'GET', path: '/wdgate/admin/queue', command: 'adminQueue' },
  { method: 'POST', path: '/wdgate/admin/drain', command: 'adminDrain' },
  { method: 'POST', path: '/wdgate/admin/undrain', command: 'adminUndrain' },
  // The history of sessions and their traces (src/trace/, docs/traces.md).
  { method: 'GET', path: '/wdgate/sessions', command: 'listSessions' },
  { method: 'GET', path: '/wdgate/sessions/{sessionId}', command: 'getSessionEntry' },
  { method: 'GET', path: '/wdgate/sessions/{sessionId}/trace', command: 'getSessionTrace' },
  { method: 'GET', path: '/wdgate/sessions/{sessionId}/har', command: 'getSessionHar' },
  { method: 'GET', path: '/wdgate/sessions/{sessionId}/transcript', command: 'getSessionTranscript' },
  { method: 'GET', path: '/wdgate/sessions/{sessionId}/video', command: 'getSessionVideo' },
  { method: 'GET', path: '/wdgate/sessions/{sessionId}/log', command: 'getSessionLog' },
  // Across runs: tests by name, their verdicts, a failure against the last pass (src/trace/runs/).
  { method: 'GET', path: '/wdgate/sessions/{sessionId}/compare', command: 'compareSession' },
  { method: 'GET', path: '/wdgate/tests', command: 'listTests' },
  { method: 'GET', path: `${S}/timeouts`, command: 'getTimeouts', looksAround: true },
  { method: 'POST', path: `${S}/timeouts`, command: 'setTimeouts' },
  { method: 'POST', path: `${S}/url`, command: 'navigateTo', changesPage: true },
  { method: 'GET', path: `${S}/url`, command: 'getCurrentUrl', looksAround: true },
  { method: 'POST', path: `${S}/back`, command: 'back', changesPage: true },
  { method: 'POST', path: `${S}/forward`, command: 'forward', changesPage: true },
  { method: 'POST', path: `${S}/refresh`, command: 'refresh', changesPage: true },
  { method: 'GET', path: `${S}/title`, command: 'getTitle', looksAround: true },
  { method: 'GET', path: `${S}/window`, command: 'getWindowHandle', looksAround: true },
  { method: 'DELETE', path: `${S}/window`, command: 'closeWindow', changesPage: true },
  { method: 'POST', path: `${S}/window`, command: 'switchToWindow', changesPage: true },
  { method: 'GET', path: `${S}/window/handles`, command: 'getWindowHandles', looksAround: true },
  { method: 'POST', path: `${S}/window/new`, command: 'newWindow', changesPage: true },
  { method: 'POST', path: `${S}/frame`, command: 'switchToFrame', changesPage: true },
  { method: 'POST', path: `${S}/frame/parent`, command: 'switchToParentFrame', changesPage: true },
  { method: 'GET', path: `${S}/window/rect`, command: 'getWindowRect', looksAround: true },
  { method: 'POST', path: `${S}/window/rect`, command: 'setWindowRect', changesPage: true },
  { method: 'POST', path: `${S}/window/maximize`, command: 'maximizeWindow', changesPage: true },
  { method: 'POST', path: `${S}/window/minimize`, command: 'minimizeWindow', changesPage: true },
  { method: 'POST', path: `${S}/window/fullscreen`, command: 'fullscreenWindow', changesPage: true },
  { method: 'GET', path: `${S}/element/active`, command: 'getActiveElement' },
  { method: 'GET', path: `${E}/shadow`, command: 'getElementShadowRoot' },
  { method: 'POST', path: `${S}/element`, command: 'findElement' },
  { method: 'POST', path: `${S}/elements`, command: 'findElements' },
  { method: 'POST', path: `${E}/element`, command: 'findElementFromElement' },
  { method: 'POST', path: `${E}/elements`, command: 'findElementsFromElement' },
  { method: 'POST', path: `${S}/shadow/{shadowId}/element`, command: 'findElementFromShadowRoot' },
  { method: 'POST', path: `${S}/shadow/{shadowId}/elements`, command: 'findElementsFromShadowRoot' },
  { method: 'GET', path: `${E}/selected`, command: 'isElementSelected' },
  { method: 'GET', path: `${E}/attribute/{name}`, command: 'getElementAttribute' },
  { method: 'GET', path: `${E}/property/{name}`, command: 'getElementProperty' },
  { method: 'GET', path: `${E}/css/{propertyName}`, command: 'getElementCssValue' },
  { method: 'GET', path: `${E}/text`, command: 'getElementText' },
  { method: 'GET', path: `${E}/name`, command: 'getElementTagName' },
  { method: 'GET', path: `${E}/rect`, command: 'getElementRect' },
  { method: 'GET', path: `${E}/enabled`, command: 'isElementEnabled' },
  { method: 'GET', path: `${E}/computedrole`, command: 'getComputedRole' },
  { method: 'GET', path: `${E}/computedlabel`, command: 'getComputedLabel' },
  { method: 'POST', path: `${E}/click`, command: 'elementClick', changesPage: true },
  { method: 'POST', path: `${E}/clear`, command: 'elementClear', changesPage: true },
  { method: 'POST', path: `${E}/value`, command: 'elementSendKeys', changesPage: true },
  { method: 'GET', path: `${S}/source`, command: 'getPageSource', looksAround: true },
  { method: 'POST', path: `${S}/execute/sync`, command: 'executeScript', changesPage: true },
  { method: 'POST', path: `${S}/execute/async`, command: 'executeAsyncScript', changesPage: true },
  { method: 'GET', path: `${S}/cookie`, command: 'getAllCookies', looksAround: true },
  { method: 'GET', path: `${S}/cookie/{name}`, command: 'getNamedCookie' },
  { method: 'POST', path: `${S}/cookie`, command: 'addCookie' },
  { method: 'DELETE', path: `${S}/cookie/{name}`, command: 'deleteCookie' },
  { method: 'DELETE', path: `${S}/cookie`, command: 'deleteAllCookies' },
  { method: 'POST', path: `${S}/actions`, command: 'performActions', changesPage: true },
  { method: 'DELETE', path: `${S}/actions`, command: 'releaseActions', changesPage: true },
  { method: 'POST', path: `${S}/alert/dismiss`, command: 'dismissAlert', changesPage: true },
  { method: 'POST', path: `${S}/alert/accept`, command: 'acceptAlert', changesPage: true },
  { method: 'GET', path: `${S}/alert/text`, command: 'getAlertText', looksAround: true },
  { method: 'POST', path: `${S}/alert/text`, command: 'sendAlertText', changesPage: true },
  { method: 'GET', path: `${S}/screenshot`, command: 'takeScreenshot', looksAround: true },
  { method: 'GET', path: `${E}/screenshot`, command: 'takeElementScreenshot', looksAround: true },
  { method: 'POST', path: `${S}/print`, command: 'printPage' },
  // Selenium Grid's remote file upload (not W3C; Python Selenium uses it for every file input).
  { method: 'POST', path: `${S}/se/file`, command: 'uploadFile' },
  // Selenium Grid's managed downloads (se:downloadsEnabled).
  { method: 'GET', path: `${S}/se/files`, command: 'getDownloadableFiles', looksAround: true },
  { method: 'POST', path: `${S}/se/files`, command: 'downloadFile' },
  { method: 'DELETE', path: `${S}/se/files`, command: 'deleteDownloadableFiles' },
  // Selenium Grid's session events (test:started, test:failed, marker:add …): the history's result.
  { method: 'POST', path: `${S}/se/event`, command: 'sessionEvent', looksAround: true },
  // chromedriver's CDP command (Python Selenium's execute_cdp_cmd).
  { method: 'POST', path: `${S}/goog/cdp/execute`, command: 'executeCdpCommand' },
  // Extension commands chromedriver and geckodriver answer (README "Extension commands").
  // chromedriver's logs (goog:loggingPrefs): what driver.manage().logs() and get_log() send.
  { method: 'GET', path: `${S}/se/log/types`, command: 'getAvailableLogTypes', looksAround: true },
  { method: 'POST', path: `${S}/se/log`, command: 'getLog', looksAround: true },
  // W3C Permissions §"Automation": Set Permission.
  { method: 'POST', path: `${S}/permissions`, command: 'setPermission' },
  // WebAuthn Level 2 §11 "WebDriver Extensions" (and Level 3's Set Credential Properties).
  { method: 'POST', path: `${S}/webauthn/authenticator`, command: 'addVirtualAuthenticator' },
  { method: 'DELETE', path: `${S}/webauthn/authenticator/{authenticatorId}`, command: 'removeVirtualAuthenticator' },
  { method: 'POST', path: `${S}/webauthn/authenticator/{authenticatorId}/credential`, command: 'addCredential' },
  { method: 'GET', path: `${S}/webauthn/authenticator/{authenticatorId}/credentials`, command: 'getCredentials' },
  { method: 'DELETE', path: `${S}/webauthn/authenticator/{authenticatorId}/credentials/{credentialId}`, command: 'removeCredential' },
  { method: 'DELETE', path: `${S}/webauthn/authenticator/{authenticatorId}/credentials`, command: 'removeAllCredentials' },
  { method: 'POST', path: `${S}/webauthn/authenticator/{authenticatorId}/uv`, command: 'setUserVerified' },
  { method: 'POST', path: `${S}/webauthn/authenticator/{authenticatorId}/credentials/{credentialId}/props`, command: 'setCredentialProperties' },
  // chromedriver's network conditions (Selenium's setNetworkConditions).
  { method: 'GET', path: `${S}/chromium/network_conditions`, command: 'getNetworkConditions' },
  { method: 'POST', path: `${S}/chromium/network_conditions`, command: 'setNetworkConditions' },
  { method: 'DELETE', path: `${S}/chromium/network_conditions`, command: 'deleteNetworkConditions' },
  // FedCM's automation (Federated Credential Management §"Automation"), as chromedriver routes it.
  { method: 'POST', path: `${S}/fedcm/canceldialog`, command: 'cancelFedCmDialog', changesPage: true },
  { method: 'POST', path: `${S}/fedcm/selectaccount`, command: 'selectFedCmAccount', changesPage: true },
  { method: 'POST', path: `${S}/fedcm/clickdialogbutton`, command: 'clickFedCmDialogButton', changesPage: true },
  { method: 'GET', path: `${S}/fedcm/accountlist`, command: 'getFedCmAccountList' },
  { method: 'GET', path: `${S}/fedcm/gettitle`, command: 'getFedCmTitle' },
  { method: 'GET', path: `${S}/fedcm/getdialogtype`, command: 'getFedCmDialogType' },
  { method: 'POST', path: `${S}/fedcm/setdelayenabled`, command: 'setFedCmDelay' },
  { method: 'POST', path: `${S}/fedcm/resetcooldown`, command: 'resetFedCmCooldown' },
  // geckodriver's: the full page, add-ons, the chrome context.
  { method: 'GET', path: `${S}/moz/screenshot/full`, command: 'takeFullPageScreenshot', looksAround: true },
  { method: 'POST', path: `${S}/moz/addon/install`, command: 'installAddon' },
  { method: 'POST', path: `${S}/moz/addon/uninstall`, command: 'uninstallAddon' },
  { method: 'GET', path: `${S}/moz/context`, command: 'getContext' },
  { method: 'POST', path: `${S}/moz/context`, command: 'setContext' },
  // Other paths of the commands above that clients still send.
  { method: 'POST', path: `${S}/file`, command: 'uploadFile', alias: true },
  { method: 'GET', path: `${S}/log/types`, command: 'getAvailableLogTypes', alias: true },
  { method: 'POST', path: `${S}/log`, command: 'getLog', alias: true },
  { method: 'GET', path: `${S}/screenshot/full`, command: 'takeFullPageScreenshot', alias: true },
] as const satisfies readonly Route[];

/** The name of a command of the route table. */
export type CommandName = (typeof routes)[number]['command'];

/** A route of the table, with its command's name as a type. */
export type NamedRoute = Route & { command: CommandName };

const factsByName = new Map<string, CommandFacts>(
  routes.filter((route: Route) => !route.alias).map((route: Route) => [route.command, { known: true, ...(route.changesPage && { changesPage: true }), ...(route.looksAround && { looksAround: true }) }]),
);

/** What is known of a command by its name (nothing for a BiDi method or an unrouted request). */
export function commandFacts(name: string): CommandFacts {
  return factsByName.get(name) ?? {};
}

/** Path prefixes clients may put before the W3C paths (Selenium 3 era clients use /wd/hub). */
const BASE_PATHS = ['/wd/hub'];

interface Node {
  literal: Map<string, Node>;
  param?: { name: string; node: Node };
  methods: Map<Method, NamedRoute>;
}

function newNode(): Node {
  return { literal: new Map(), methods: new Map() };
}

function buildTree(table: readonly NamedRoute[]): Node {
  const root = newNode();
  for (const route of table) {
    let node = root;
    for (const segment of route.path.split('/').slice(1)) {
      const m = /^\{(\w+)\}$/.exec(segment);
      if (m) {
        node.param ??= { name: m[1]!, node: newNode() };
        node = node.param.node;
      } else {
        let next = node.literal.get(segment);
        if (!next) node.literal.set(segment, (next = newNode()));
        node = next;
      }
    }
    node.methods.set(route.method, route);
  }
  return root;
}

const tree = buildTree(routes);

export type RouteMatch =
  | { kind: 'found'; route: NamedRoute; urlParams: Record<string, string> }
  | { kind: 'unknown command' }
  | { kind: 'unknown method'; allowed: Method[] };

/** Resolve a request path (without query string) and method against the table. */
export function matchRoute(method: string, rawPath: string): RouteMatch {
  let path = withoutBasePath(rawPath);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return walk(tree, path.split('/').slice(1), 0, method as Method, {});
}

/** The path as the W3C table names it: `/wd/hub/session/…` is `/session/…` (a pass-through session's too). */
export function withoutBasePath(path: string): string {
  for (const base of BASE_PATHS) if (path.startsWith(base + '/')) return path.slice(base.length);
  return path;
}

/**
 * Depth-first: a literal segment is tried before a parameter, and a parameter is still tried
 * when the literal branch has no such command (an element whose id is "active" has a text).
 * A found route beats a path known with other methods, which beats an unknown path.
 */
function walk(node: Node, segments: string[], i: number, method: Method, urlParams: Record<string, string>): RouteMatch {
  if (i === segments.length) {
    if (node.methods.size === 0) return { kind: 'unknown command' };
    const route = node.methods.get(method);
    if (!route) return { kind: 'unknown method', allowed: [...node.methods.keys()] };
    return { kind: 'found', route, urlParams };
  }
  const segment = segments[i]!;
  const literal = node.literal.get(segment);
  const viaLiteral = literal ? walk(literal, segments, i + 1, method, urlParams) : undefined;
  if (viaLiteral?.kind === 'found' || !node.param || segment === '') return viaLiteral ?? { kind: 'unknown command' };
  const viaParam = walk(node.param.node, segments, i + 1, method, { ...urlParams, [node.param.name]: safeDecode(segment) });
  if (viaParam.kind === 'found' || !viaLiteral) return viaParam;
  return viaLiteral.kind === 'unknown method' ? viaLiteral : viaParam;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
