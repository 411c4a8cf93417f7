// THE route table of W3C WebDriver classic (spec §6.5 "Endpoints"), as data. The router, the
// `unknown command` / `unknown method` answers and the README's endpoint list all come from it.
// A command named here without a handler answers `unsupported operation`.

export type Method = 'GET' | 'POST' | 'DELETE';

export interface Route {
  method: Method;
  path: string; // template: `{name}` segments are URL parameters
  command: string; // the spec's command name, camel-cased
}

const S = '/session/{sessionId}';
const E = `${S}/element/{elementId}`;

export const routes: readonly Route[] = [
  { method: 'POST', path: '/session', command: 'newSession' },
  { method: 'DELETE', path: S, command: 'deleteSession' },
  { method: 'GET', path: '/status', command: 'status' },
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
  { method: 'GET', path: '/wdgate/sessions/{sessionId}/video', command: 'getSessionVideo' },
  { method: 'GET', path: '/wdgate/sessions/{sessionId}/log', command: 'getSessionLog' },
  { method: 'GET', path: `${S}/timeouts`, command: 'getTimeouts' },
  { method: 'POST', path: `${S}/timeouts`, command: 'setTimeouts' },
  { method: 'POST', path: `${S}/url`, command: 'navigateTo' },
  { method: 'GET', path: `${S}/url`, command: 'getCurrentUrl' },
  { method: 'POST', path: `${S}/back`, command: 'back' },
  { method: 'POST', path: `${S}/forward`, command: 'forward' },
  { method: 'POST', path: `${S}/refresh`, command: 'refresh' },
  { method: 'GET', path: `${S}/title`, command: 'getTitle' },
  { method: 'GET', path: `${S}/window`, command: 'getWindowHandle' },
  { method: 'DELETE', path: `${S}/window`, command: 'closeWindow' },
  { method: 'POST', path: `${S}/window`, command: 'switchToWindow' },
  { method: 'GET', path: `${S}/window/handles`, command: 'getWindowHandles' },
  { method: 'POST', path: `${S}/window/new`, command: 'newWindow' },
  { method: 'POST', path: `${S}/frame`, command: 'switchToFrame' },
  { method: 'POST', path: `${S}/frame/parent`, command: 'switchToParentFrame' },
  { method: 'GET', path: `${S}/window/rect`, command: 'getWindowRect' },
  { method: 'POST', path: `${S}/window/rect`, command: 'setWindowRect' },
  { method: 'POST', path: `${S}/window/maximize`, command: 'maximizeWindow' },
  { method: 'POST', path: `${S}/window/minimize`, command: 'minimizeWindow' },
  { method: 'POST', path: `${S}/window/fullscreen`, command: 'fullscreenWindow' },
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
  { method: 'POST', path: `${E}/click`, command: 'elementClick' },
  { method: 'POST', path: `${E}/clear`, command: 'elementClear' },
  { method: 'POST', path: `${E}/value`, command: 'elementSendKeys' },
  { method: 'GET', path: `${S}/source`, command: 'getPageSource' },
  { method: 'POST', path: `${S}/execute/sync`, command: 'executeScript' },
  { method: 'POST', path: `${S}/execute/async`, command: 'executeAsyncScript' },
  { method: 'GET', path: `${S}/cookie`, command: 'getAllCookies' },
  { method: 'GET', path: `${S}/cookie/{name}`, command: 'getNamedCookie' },
  { method: 'POST', path: `${S}/cookie`, command: 'addCookie' },
  { method: 'DELETE', path: `${S}/cookie/{name}`, command: 'deleteCookie' },
  { method: 'DELETE', path: `${S}/cookie`, command: 'deleteAllCookies' },
  { method: 'POST', path: `${S}/actions`, command: 'performActions' },
  { method: 'DELETE', path: `${S}/actions`, command: 'releaseActions' },
  { method: 'POST', path: `${S}/alert/dismiss`, command: 'dismissAlert' },
  { method: 'POST', path: `${S}/alert/accept`, command: 'acceptAlert' },
  { method: 'GET', path: `${S}/alert/text`, command: 'getAlertText' },
  { method: 'POST', path: `${S}/alert/text`, command: 'sendAlertText' },
  { method: 'GET', path: `${S}/screenshot`, command: 'takeScreenshot' },
  { method: 'GET', path: `${E}/screenshot`, command: 'takeElementScreenshot' },
  { method: 'POST', path: `${S}/print`, command: 'printPage' },
  // Selenium Grid's remote file upload (not W3C; Python Selenium uses it for every file input).
  { method: 'POST', path: `${S}/se/file`, command: 'uploadFile' },
  // Selenium Grid's managed downloads (se:downloadsEnabled).
  { method: 'GET', path: `${S}/se/files`, command: 'getDownloadableFiles' },
  { method: 'POST', path: `${S}/se/files`, command: 'downloadFile' },
  { method: 'DELETE', path: `${S}/se/files`, command: 'deleteDownloadableFiles' },
  // Selenium Grid's session events (test:started, test:failed, marker:add …): the history's result.
  { method: 'POST', path: `${S}/se/event`, command: 'sessionEvent' },
  // chromedriver's CDP command (Python Selenium's execute_cdp_cmd).
  { method: 'POST', path: `${S}/goog/cdp/execute`, command: 'executeCdpCommand' },
];

/** Path prefixes clients may put before the W3C paths (Selenium 3 era clients use /wd/hub). */
const BASE_PATHS = ['/wd/hub'];

interface Node {
  literal: Map<string, Node>;
  param?: { name: string; node: Node };
  methods: Map<Method, Route>;
}

function newNode(): Node {
  return { literal: new Map(), methods: new Map() };
}

function buildTree(table: readonly Route[]): Node {
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
  | { kind: 'found'; route: Route; urlParams: Record<string, string> }
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
