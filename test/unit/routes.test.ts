// The route table against the W3C WebDriver endpoint list (spec §6.5), and the matcher.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { matchRoute, routes, withoutBasePath, type Route } from '../../src/webdriver/routes.ts';

// Spec §6.5 "Endpoints", written out independently of src/webdriver/routes.ts.
const SPEC_ENDPOINTS: [string, string, string][] = [
  ['POST', '/session', 'newSession'],
  ['DELETE', '/session/{session id}', 'deleteSession'],
  ['GET', '/status', 'status'],
  ['GET', '/session/{session id}/timeouts', 'getTimeouts'],
  ['POST', '/session/{session id}/timeouts', 'setTimeouts'],
  ['POST', '/session/{session id}/url', 'navigateTo'],
  ['GET', '/session/{session id}/url', 'getCurrentUrl'],
  ['POST', '/session/{session id}/back', 'back'],
  ['POST', '/session/{session id}/forward', 'forward'],
  ['POST', '/session/{session id}/refresh', 'refresh'],
  ['GET', '/session/{session id}/title', 'getTitle'],
  ['GET', '/session/{session id}/window', 'getWindowHandle'],
  ['DELETE', '/session/{session id}/window', 'closeWindow'],
  ['POST', '/session/{session id}/window', 'switchToWindow'],
  ['GET', '/session/{session id}/window/handles', 'getWindowHandles'],
  ['POST', '/session/{session id}/window/new', 'newWindow'],
  ['POST', '/session/{session id}/frame', 'switchToFrame'],
  ['POST', '/session/{session id}/frame/parent', 'switchToParentFrame'],
  ['GET', '/session/{session id}/window/rect', 'getWindowRect'],
  ['POST', '/session/{session id}/window/rect', 'setWindowRect'],
  ['POST', '/session/{session id}/window/maximize', 'maximizeWindow'],
  ['POST', '/session/{session id}/window/minimize', 'minimizeWindow'],
  ['POST', '/session/{session id}/window/fullscreen', 'fullscreenWindow'],
  ['GET', '/session/{session id}/element/active', 'getActiveElement'],
  ['GET', '/session/{session id}/element/{element id}/shadow', 'getElementShadowRoot'],
  ['POST', '/session/{session id}/element', 'findElement'],
  ['POST', '/session/{session id}/elements', 'findElements'],
  ['POST', '/session/{session id}/element/{element id}/element', 'findElementFromElement'],
  ['POST', '/session/{session id}/element/{element id}/elements', 'findElementsFromElement'],
  ['POST', '/session/{session id}/shadow/{shadow id}/element', 'findElementFromShadowRoot'],
  ['POST', '/session/{session id}/shadow/{shadow id}/elements', 'findElementsFromShadowRoot'],
  ['GET', '/session/{session id}/element/{element id}/selected', 'isElementSelected'],
  ['GET', '/session/{session id}/element/{element id}/attribute/{name}', 'getElementAttribute'],
  ['GET', '/session/{session id}/element/{element id}/property/{name}', 'getElementProperty'],
  ['GET', '/session/{session id}/element/{element id}/css/{property name}', 'getElementCssValue'],
  ['GET', '/session/{session id}/element/{element id}/text', 'getElementText'],
  ['GET', '/session/{session id}/element/{element id}/name', 'getElementTagName'],
  ['GET', '/session/{session id}/element/{element id}/rect', 'getElementRect'],
  ['GET', '/session/{session id}/element/{element id}/enabled', 'isElementEnabled'],
  ['GET', '/session/{session id}/element/{element id}/computedrole', 'getComputedRole'],
  ['GET', '/session/{session id}/element/{element id}/computedlabel', 'getComputedLabel'],
  ['POST', '/session/{session id}/element/{element id}/click', 'elementClick'],
  ['POST', '/session/{session id}/element/{element id}/clear', 'elementClear'],
  ['POST', '/session/{session id}/element/{element id}/value', 'elementSendKeys'],
  ['GET', '/session/{session id}/source', 'getPageSource'],
  ['POST', '/session/{session id}/execute/sync', 'executeScript'],
  ['POST', '/session/{session id}/execute/async', 'executeAsyncScript'],
  ['GET', '/session/{session id}/cookie', 'getAllCookies'],
  ['GET', '/session/{session id}/cookie/{name}', 'getNamedCookie'],
  ['POST', '/session/{session id}/cookie', 'addCookie'],
  ['DELETE', '/session/{session id}/cookie/{name}', 'deleteCookie'],
  ['DELETE', '/session/{session id}/cookie', 'deleteAllCookies'],
  ['POST', '/session/{session id}/actions', 'performActions'],
  ['DELETE', '/session/{session id}/actions', 'releaseActions'],
  ['POST', '/session/{session id}/alert/dismiss', 'dismissAlert'],
  ['POST', '/session/{session id}/alert/accept', 'acceptAlert'],
  ['GET', '/session/{session id}/alert/text', 'getAlertText'],
  ['POST', '/session/{session id}/alert/text', 'sendAlertText'],
  ['GET', '/session/{session id}/screenshot', 'takeScreenshot'],
  ['GET', '/session/{session id}/element/{element id}/screenshot', 'takeElementScreenshot'],
  ['POST', '/session/{session id}/print', 'printPage'],
];

/** The extension commands chromedriver and geckodriver answer, as their drivers route them. */
const EXTENSION_ENDPOINTS: [string, string, string][] = [
  ['GET', '/session/S/se/log/types', 'getAvailableLogTypes'],
  ['POST', '/session/S/se/log', 'getLog'],
  ['POST', '/session/S/permissions', 'setPermission'],
  ['POST', '/session/S/webauthn/authenticator', 'addVirtualAuthenticator'],
  ['DELETE', '/session/S/webauthn/authenticator/A', 'removeVirtualAuthenticator'],
  ['POST', '/session/S/webauthn/authenticator/A/credential', 'addCredential'],
  ['GET', '/session/S/webauthn/authenticator/A/credentials', 'getCredentials'],
  ['DELETE', '/session/S/webauthn/authenticator/A/credentials/C', 'removeCredential'],
  ['DELETE', '/session/S/webauthn/authenticator/A/credentials', 'removeAllCredentials'],
  ['POST', '/session/S/webauthn/authenticator/A/uv', 'setUserVerified'],
  ['POST', '/session/S/webauthn/authenticator/A/credentials/C/props', 'setCredentialProperties'],
  ['GET', '/session/S/chromium/network_conditions', 'getNetworkConditions'],
  ['POST', '/session/S/chromium/network_conditions', 'setNetworkConditions'],
  ['DELETE', '/session/S/chromium/network_conditions', 'deleteNetworkConditions'],
  ['POST', '/session/S/fedcm/canceldialog', 'cancelFedCmDialog'],
  ['POST', '/session/S/fedcm/selectaccount', 'selectFedCmAccount'],
  ['POST', '/session/S/fedcm/clickdialogbutton', 'clickFedCmDialogButton'],
  ['GET', '/session/S/fedcm/accountlist', 'getFedCmAccountList'],
  ['GET', '/session/S/fedcm/gettitle', 'getFedCmTitle'],
  ['GET', '/session/S/fedcm/getdialogtype', 'getFedCmDialogType'],
  ['POST', '/session/S/fedcm/setdelayenabled', 'setFedCmDelay'],
  ['POST', '/session/S/fedcm/resetcooldown', 'resetFedCmCooldown'],
  ['GET', '/session/S/moz/screenshot/full', 'takeFullPageScreenshot'],
  ['POST', '/session/S/moz/addon/install', 'installAddon'],
  ['POST', '/session/S/moz/addon/uninstall', 'uninstallAddon'],
  ['GET', '/session/S/moz/context', 'getContext'],
  ['POST', '/session/S/moz/context', 'setContext'],
];

/** Fill the spec's `{x y}` placeholders with distinct sample values. */
function concrete(template: string): { path: string; expected: Record<string, string> } {
  const samples: Record<string, [string, string]> = {
    'session id': ['sessionId', 'S-1'],
    'element id': ['elementId', 'E-2'],
    'shadow id': ['shadowId', 'R-3'],
    name: ['name', 'N-4'],
    'property name': ['propertyName', 'P-5'],
  };
  const expected: Record<string, string> = {};
  const path = template.replace(/\{([^}]+)\}/g, (_, spec: string) => {
    const [key, value] = samples[spec]!;
    expected[key] = value;
    return value;
  });
  return { path, expected };
}

describe('route table', () => {
  test('every W3C classic endpoint is routed to its command, with its URL parameters', () => {
    for (const [method, template, command] of SPEC_ENDPOINTS) {
      const { path, expected } = concrete(template);
      const match = matchRoute(method, path);
      assert.equal(match.kind, 'found', `${method} ${template}`);
      if (match.kind !== 'found') continue;
      assert.equal(match.route.command, command, `${method} ${template}`);
      assert.deepEqual(match.urlParams, expected, `${method} ${template}`);
    }
  });

  test("chromedriver's and geckodriver's extension commands, and the older paths clients still send, are routed", () => {
    for (const [method, path, command] of [
      ...EXTENSION_ENDPOINTS,
      ['POST', '/session/S/file', 'uploadFile'],
      ['GET', '/session/S/log/types', 'getAvailableLogTypes'],
      ['POST', '/session/S/log', 'getLog'],
      ['GET', '/session/S/screenshot/full', 'takeFullPageScreenshot'],
    ] as const) {
      const match = matchRoute(method, path);
      assert.ok(match.kind === 'found' && match.route.command === command, `${method} ${path}: ${JSON.stringify(match)}`);
    }
    const props = matchRoute('POST', '/session/S/webauthn/authenticator/A/credentials/C/props');
    assert.ok(props.kind === 'found');
    assert.deepEqual(props.urlParams, { sessionId: 'S', authenticatorId: 'A', credentialId: 'C' });
  });

  test("the table holds the W3C endpoints plus Selenium file upload, managed downloads, session events, chromedriver's CDP command, the metrics, the health and readiness probes, the admin API, recordings, the history and the tests across runs, each once", () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    assert.equal(new Set(keys).size, keys.length, 'a method and path appear twice');
    const primary = routes.filter((r: Route) => !r.alias);
    assert.equal(new Set(primary.map((r) => r.command)).size, primary.length, 'a command name appears twice');
    // Other paths of a command (older ones clients still send) name a command routed without one.
    for (const alias of routes.filter((r: Route) => r.alias)) assert.ok(primary.some((r) => r.command === alias.command), `${alias.path} names no routed command`);
    assert.equal(primary.length, SPEC_ENDPOINTS.length + 6 + 9 + 2 + 5 + 2 + EXTENSION_ENDPOINTS.length);
    assert.deepEqual(
      routes.filter((r) => r.path.startsWith('/wdgate/sessions')).map((r) => `${r.method} ${r.path} ${r.command}`),
      [
        'GET /wdgate/sessions listSessions',
        'GET /wdgate/sessions/{sessionId} getSessionEntry',
        'GET /wdgate/sessions/{sessionId}/trace getSessionTrace',
        'GET /wdgate/sessions/{sessionId}/har getSessionHar',
        'GET /wdgate/sessions/{sessionId}/transcript getSessionTranscript',
        'GET /wdgate/sessions/{sessionId}/video getSessionVideo',
        'GET /wdgate/sessions/{sessionId}/log getSessionLog',
        'GET /wdgate/sessions/{sessionId}/compare compareSession',
      ],
    );
    const tests = matchRoute('GET', '/wdgate/tests');
    assert.ok(tests.kind === 'found' && tests.route.command === 'listTests');
    const ready = matchRoute('GET', '/ready');
    assert.ok(ready.kind === 'found' && ready.route.command === 'ready');
    const event = matchRoute('POST', '/session/S/se/event');
    assert.ok(event.kind === 'found' && event.route.command === 'sessionEvent');
    assert.deepEqual(
      routes.filter((r) => r.path.startsWith('/wdgate/admin/')).map((r) => r.command),
      ['adminListSessions', 'adminEndAllSessions', 'adminEndSession', 'adminQueue', 'adminDrain', 'adminUndrain'],
    );
    const cdp = matchRoute('POST', '/session/S/goog/cdp/execute');
    assert.ok(cdp.kind === 'found' && cdp.route.command === 'executeCdpCommand');
    const upload = matchRoute('POST', '/session/S/se/file');
    assert.ok(upload.kind === 'found' && upload.route.command === 'uploadFile');
    for (const [method, command] of [
      ['GET', 'getDownloadableFiles'],
      ['POST', 'downloadFile'],
      ['DELETE', 'deleteDownloadableFiles'],
    ]) {
      const files = matchRoute(method!, '/session/S/se/files');
      assert.ok(files.kind === 'found' && files.route.command === command, `${method} /se/files`);
    }
    const metrics = matchRoute('GET', '/metrics');
    assert.ok(metrics.kind === 'found' && metrics.route.command === 'metrics');
  });
});

describe('matchRoute', () => {
  test('an unknown path is unknown command', () => {
    for (const path of ['/', '', '/nope', '/session/S/nope', '/session/S/element/E/nope', '/statusx', '/session//url', '/wd/hub']) {
      assert.deepEqual(matchRoute('GET', path), { kind: 'unknown command' }, path);
    }
    // A path that is only a prefix of routes is not a command either.
    assert.deepEqual(matchRoute('GET', '/session/S/element/E'), { kind: 'unknown command' });
    assert.deepEqual(matchRoute('POST', '/session/S/execute'), { kind: 'unknown command' });
  });

  test('a known path with another method is unknown method, listing the allowed ones', () => {
    const m = matchRoute('PUT', '/session/S/url');
    assert.equal(m.kind, 'unknown method');
    assert.deepEqual(m.kind === 'unknown method' && [...m.allowed].sort(), ['GET', 'POST']);
    const w = matchRoute('PATCH', '/session/S/window');
    assert.deepEqual(w.kind === 'unknown method' && [...w.allowed].sort(), ['DELETE', 'GET', 'POST']);
    assert.equal(matchRoute('GET', '/session').kind, 'unknown method');
    assert.equal(matchRoute('POST', '/status').kind, 'unknown method');
    assert.equal(matchRoute('GET', '/session/S/back').kind, 'unknown method');
  });

  test('methods are case-sensitive tokens: the edge upper-cases them first', () => {
    assert.equal(matchRoute('get', '/status').kind, 'unknown method');
  });

  test('URL parameters are percent-decoded; a bad escape is kept as sent', () => {
    const cookie = matchRoute('GET', '/session/S/cookie/a%20b%2Fc%C3%A9');
    assert.ok(cookie.kind === 'found');
    assert.deepEqual(cookie.urlParams, { sessionId: 'S', name: 'a b/cé' });
    const bad = matchRoute('GET', '/session/S/cookie/100%zz');
    assert.ok(bad.kind === 'found');
    assert.equal(bad.urlParams.name, '100%zz');
  });

  test('a trailing slash is tolerated', () => {
    const m = matchRoute('GET', '/session/S/title/');
    assert.ok(m.kind === 'found' && m.route.command === 'getTitle');
    assert.ok(matchRoute('GET', '/status/').kind === 'found');
  });

  test('the /wd/hub prefix is accepted', () => {
    const m = matchRoute('POST', '/wd/hub/session/S/url');
    assert.ok(m.kind === 'found' && m.route.command === 'navigateTo');
    assert.deepEqual(m.kind === 'found' && m.urlParams, { sessionId: 'S' });
    assert.ok(matchRoute('GET', '/wd/hub/status/').kind === 'found');
    assert.deepEqual(matchRoute('GET', '/wd/hubx/status'), { kind: 'unknown command' });
    // The path a pass-through session's request is forwarded by (any command, even one not in the table).
    assert.equal(withoutBasePath('/wd/hub/session/S/moz/context'), '/session/S/moz/context');
    assert.equal(withoutBasePath('/wd/hubx/session/S'), '/wd/hubx/session/S');
    assert.equal(withoutBasePath('/session/S/wd/hub/x'), '/session/S/wd/hub/x');
  });

  test('literal segments win, but a parameter with the same text still routes', () => {
    const active = matchRoute('GET', '/session/S/element/active');
    assert.ok(active.kind === 'found' && active.route.command === 'getActiveElement');
    // An element id that happens to be "active" (ids are opaque strings to clients).
    const text = matchRoute('GET', '/session/S/element/active/text');
    assert.ok(text.kind === 'found' && text.route.command === 'getElementText', JSON.stringify(text));
    assert.deepEqual(text.kind === 'found' && text.urlParams, { sessionId: 'S', elementId: 'active' });
    const click = matchRoute('POST', '/session/S/element/active/click');
    assert.ok(click.kind === 'found' && click.route.command === 'elementClick');
  });
});
