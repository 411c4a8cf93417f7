// The command tests run on every backend (WDGATE_TEST_BACKEND, npm run test:backends) with the
// same assertions. A test a backend cannot pass is declared here by its name, with why: the run
// skips it and says so. Everything else must pass. WDGATE_TEST_GAPS=check runs the declared ones
// and fails any that passes (a declaration must never hide a fixed gap).
import { test as nodeTest } from 'node:test';
import { BIDI_GAPS, ENGINE_GAPS } from '../../backends/firefox/gaps.ts';
import { FIREFOX_GAPS, GAPS as PLAYWRIGHT } from '../../backends/playwright/gaps.ts';

export type TestBackend = 'native' | 'native-firefox' | 'playwright-chromium' | 'playwright-firefox' | 'remote-chromedriver';

export const BACKEND = (process.env.WDGATE_TEST_BACKEND ?? 'native') as TestBackend;

const WINDOW_STATE = "Playwright's Chromium: a minimized window's document stays visible (Playwright turns on Chromium's focus emulation for every page, which keeps the page visible; checked with Chromium alone)";

/** Not the backend's: the test's own small PDF reader. */
const PDF_READER = "Firefox writes its PDF with compressed object streams, which the test's small PDF reader does not read";

/** Firefox's PDFs: the print tests that read one. */
const FIREFOX_PDFS: Record<string, string> = Object.fromEntries(
  [
    'defaults: US Letter portrait, every page',
    'landscape turns the page: width and height swap',
    'page size in centimetres, down to one point with no margins',
    'pageRanges choose the pages, as numbers and "N", "N-M", "N-", "-M" strings',
    'background: printed only when asked',
    'scale and margins change how much fits on a page',
    "shrinkToFit false lets the page's CSS @page size win",
    'prints the top-level document when a frame is current, even a frame that is gone',
  ].map((name) => [name, PDF_READER]),
);

/** Gaps both Playwright engines have. */
const PLAYWRIGHT_GAPS: Record<string, string> = {
  'the spec key table: right shift, numpad keys, a shifted character, a non-US character': PLAYWRIGHT.keyboardLayout,
  'a touch pointer: pointer events of type touch with its width, height and pressure; touch events': PLAYWRIGHT.touchInput,
  'two touch pointers at once (a pinch): both touch, move and lift': PLAYWRIGHT.touchInput,
  'a pen pointer: pointer events of type pen with its pressure and tilt (from the angles)': PLAYWRIGHT.penInput,
  "the accessibility tree's role and name, as chromedriver answers them": PLAYWRIGHT.computedRole,
  'reflects changes made by script': PLAYWRIGHT.computedRole,
  'an element in a frame, with the frame current': PLAYWRIGHT.computedRole,
  'reads (find, property, text, title) give the page no user activation': PLAYWRIGHT.userActivation,
};

// remote → chromedriver: the session's commands are chromedriver's own answers, passed through
// unchanged. Where chromedriver 156 deviates from the spec (which the native backend follows,
// README "Differences from chromedriver"), or a test looks at a feature of the gateway's own that
// a pass-through session does not have, it is declared here with what was observed.
const GATEWAY_ONLY = "a feature of the gateway's own (Selenium Grid's /se/file and /se/files, fileInputDirectories): a pass-through session's commands go to chromedriver, which has none";
const seen = (what: string) => `chromedriver 156 answers otherwise: ${what}`;
const CHROMEDRIVER: Record<string, string> = {
  'the spec key table: right shift, numpad keys, a shifted character, a non-US character': seen("the spec key table's keys"),
  'Enter submits a form': seen('Perform Actions answers before the navigation its Enter starts, so the next command may see the old page (a race: seen under load)'),
  'a key pressed again while held is a repeat; a keyUp of a key not held sends nothing': seen('no repeat for a key pressed again while held'),
  'a move alone hovers: mouseover and mousemove on the element, no click': seen('the events of a move alone'),
  'drag and drop: an element moved by pointerDown, an interpolated pointerMove and pointerUp': seen('a pointerMove with a duration is one jump, not interpolated'),
  "in a frame: coordinates are the frame viewport's (viewport, pointer and element origins)": seen('coordinates in a frame'),
  'outside the viewport (viewport, pointer and element origins): 500 move target out of bounds': seen('a move outside the viewport succeeds'),
  'scrolls the page by the deltas; the wheel event carries them': seen('the wheel event the page sees'),
  'an element origin scrolls the scrollable element under it, not the page': seen('the wheel event over a scrollable element'),
  'a pen pointer: pointer events of type pen with its pressure and tilt (from the angles)': seen('pen pointer events'),
  'an id used with another type, or a pointer with another pointerType (within a request or later)': seen('an input source id used with another type is accepted'),
  'a key handler closing the window: the next action answers no such window': seen('actions into a window a handler closed succeed'),
  'null optional fields are taken as not given': seen('null optional cookie fields are invalid argument'),
  "invalid cookie domain for a domain the document's host does not match": seen("a cookie for a domain the document's host does not match is accepted"),
  "a frame's source when a frame is current; no such window once it is gone": seen("the page source of a frame that is gone is the top level's"),
  'every bad parameter is invalid argument': seen('print parameters the spec refuses are accepted'),
  'prints the top-level document when a frame is current, even a frame that is gone': seen("the page source of a frame that is gone is the top level's"),
  'a reference to the document, not an element: no such element': seen('a reference to the document'),
  'the capability is echoed; a download is listed and answered as a ZIP archive of it': GATEWAY_ONLY,
  'two sessions in one browser each see only their own downloads': GATEWAY_ONLY,
  'the same name twice keeps both; a download in progress is listed only once finished': GATEWAY_ONLY,
  'names are only those listed: paths, unknown names and non-strings are invalid argument': GATEWAY_ONLY,
  'without the capability the commands say how to enable them; a non-boolean is invalid argument': GATEWAY_ONLY,
  'the folder goes with the session': GATEWAY_ONLY,
  'a click that starts a download waits for no page: it answers under a short page load timeout': GATEWAY_ONLY,
  "selenium-webdriver's getDownloadableFiles, downloadFile and deleteDownloadableFiles": GATEWAY_ONLY,
  'an XPath selecting something other than elements is invalid selector': seen('the message names [object Text], not the node'),
  'no shadow root, or a closed one: no such shadow root': seen('elements without an open shadow root'),
  'css selector, tag name and link texts search the shadow tree': seen('tag name and link text strategies from a shadow root are invalid argument'),
  'Get Element CSS Value: the computed value': seen("colours in Selenium's legacy rgba() form, not the computed value"),
  'an index with no child browsing context, or an element that is not a frame, is no such frame': seen('the message does not name the index'),
  'a removed current frame is no such window; switch to parent frame and to the top still work': seen('no such element, not no such window, in a frame that was removed'),
  'a frame whose parent navigated away is no such window; the parent is still reachable': seen('no such element, not no such window, in a frame whose parent navigated away'),
  // Hangs: chromedriver waited 300 s for its renderer here, and its session stayed wedged.
  'navigating the top level (navigate, back, forward, refresh) resets the current browsing context to it': seen('switching into a frame after the top level navigated timed out after 300 s ("Timed out receiving message from renderer")'),
  'an element an ancestor hides with overflow: hidden is element not interactable, and stays hidden': seen('an element hidden by an overflow: hidden ancestor'),
  'an element under an overlay is element click intercepted, naming the overlay': seen('the message of element click intercepted'),
  'a control covered by its own label is clicked through the label (as chromedriver)': seen('a control covered by its label is element click intercepted'),
  'a hidden, zero-size or unreachable element is element not interactable': seen("a hidden, zero-size or unreachable element's error"),
  'clicking an <option> selects it and fires input and change on its select': seen('the events of clicking an option'),
  'an empty control or contenteditable is left alone: no event at all': seen('the events when clearing an empty control'),
  'keydown events carry the W3C key values, trusted': seen("named keys' key values"),
  'an option of a tall select that stays out of view takes keys through its select': seen('keys to an option of a tall select out of view are an error'),
  'a color input (non-typeable) gets its value set': seen("setting a color input's value"),
  'date and time inputs take a value string, or typed segments': seen('date and time inputs given a value string'),
  'a URL that is not absolute, or not a string, is invalid argument': seen('a URL that is not absolute is not invalid argument'),
  'a page load timeout shorter than the load is 500 timeout; the session still works': seen('the timeout message is its renderer\'s ("Timed out receiving message from renderer")'),
  'Get Alert Text of an empty message is null': seen('the text of an empty message is ""'),
  'accept and dismiss answer the page: confirm true/false, prompt text/null': seen('accepting or dismissing a confirm or prompt is an error'),
  'with the current window closed: no such window': seen('the alert commands on a closed window'),
  'beforeUnload "dismiss": the page stays, and navigations answer at once': seen('beforeUnload "dismiss"'),
  'a minimized window is shown again and captured (it would draw nothing after a navigation)': seen('capturing a minimized window'),
  'is exactly the element: a 50×30 red div gives a 50×30 all-red PNG': seen('element screenshots'),
  'an element below the fold is scrolled into view and captured': seen('element screenshots'),
  'an element beyond the right edge is scrolled into view horizontally too': seen('element screenshots'),
  'an element larger than the viewport gives its visible part': seen('element screenshots'),
  'a zero-size element is unable to capture screen': seen('a zero-size element screenshot'),
  'a throw is javascript error with its message': seen("the error message carries chromedriver's prefix and session info"),
  'a cyclic result is javascript error': seen("the error message carries chromedriver's prefix and session info"),
  'a returned promise settles it too; a throw is javascript error': seen('Execute Async Script waits for the callback only: a returned promise times out'),
  'after Delete Session every command is 404 invalid session id, and its browser context is given back': GATEWAY_ONLY.replace(/^a feature[^:]*/, "the gateway's pool counts (a pass-through session leases no browser context)"),
  'closing the last window ends the session and gives its browser context back': GATEWAY_ONLY.replace(/^a feature[^:]*/, "the gateway's pool counts (a pass-through session leases no browser context)"),
  'Set Timeouts sets any subset; script may be null; unknown keys are ignored': seen('Set Timeouts with a subset, a null script or unknown keys'),
  'bad values are invalid argument and change nothing': seen('bad timeout values'),
  "answers the unpacked file's absolute path, in the session's temporary directory": GATEWAY_ONLY,
  'end to end: send keys with the uploaded path to an <input type=file>': GATEWAY_ONLY,
  'stored (uncompressed) archives, binary content, and plain unwrapped base64': GATEWAY_ONLY,
  'each upload gets a fresh directory: the same name twice is two files': GATEWAY_ONLY,
  'directory entries are skipped; a file in a folder keeps its relative path': GATEWAY_ONLY,
  'a user prompt stays open: uploading does not touch the page': GATEWAY_ONLY,
  'a missing, non-string or non-base64 file member': GATEWAY_ONLY,
  'what is not a ZIP archive, or a broken one': GATEWAY_ONLY,
  'not exactly one file': GATEWAY_ONLY,
  'zip slip: names leaving the upload directory; nothing is written': GATEWAY_ONLY,
  'zip bombs and oversized files': GATEWAY_ONLY,
  "Delete Session removes the session's uploads": GATEWAY_ONLY,
  'gateway shutdown (SIGTERM) removes every session’s uploads': GATEWAY_ONLY,
  'a file in an allowed directory is taken; one outside, through .., or through a symbolic link is invalid argument': GATEWAY_ONLY,
  "files uploaded to the session (/se/file) are the session's own to use": GATEWAY_ONLY,
  'maximize, minimize and fullscreen each return a rect; Set Window Rect restores the normal state': seen('window states (maximize, minimize, fullscreen, restore)'),
  // A WindowProxy result: "Unable to resolve weakLocalObjectReference", then the tab crashed.
  ...Object.fromEntries(
    [
      'results: the top-level window is a web window, frames are web frames with their own ids',
      "results: a cross-origin frame is a web frame; a removed frame's window is no such window",
      'results: a window opened by the page is a web window with its handle',
      'arguments: web frame and web window references become the WindowProxy objects',
      'arguments: unknown references are no such frame / no such window, malformed ones invalid argument',
    ].map((name) => [name, seen('window and frame references in scripts ("Unable to resolve weakLocalObjectReference", then "tab crashed")')]),
  ),
  'Element Send Keys whose keydown handler alerts: success, then the alert is open': seen('the keys after the one whose handler alerts are typed too'),
  'an empty message: data.text is null': seen('data.text of an empty message is "{Alert text : "'),
  'a prompt of another window is not the current one; it is handled once that window is current': seen('a prompt of a window that is not current'),
  'Close Window of such a page closes it (beforeunload does not run, as in chromedriver)': seen('Close Window of a page with a beforeunload handler leaves the window open'),
  'beforeUnload "ignore": the prompt stays open for the alert commands': seen('a beforeunload prompt left open is no such alert'),
  'window commands act on the current window, not another one': seen('window commands when another window is current'),
  'Enter submits the form; the next commands see the new page': seen('Send Keys answers before the navigation its Enter starts, so the next command may see the old page (a race: seen on a quiet machine)'),
};

/** What a Firefox BiDi session does otherwise by design (bidi.test.ts): Chromium's own. */
const CHROMIUM_ONLY = {
  ownBrowser: 'Chromium only: its BiDi engine sees a whole browser, so a BiDi session gets one of its own; Firefox BiDi sessions share their process, a user context each (bidi-firefox.test.ts)',
  cdp: 'Chromium only: the Chrome DevTools Protocol',
};

/** Test name → why the backend cannot pass it. */
export const DECLARED: Record<TestBackend, Record<string, string>> = {
  native: {},
  'native-firefox': {
    'the spec key table: right shift, numpad keys, a shifted character, a non-US character': BIDI_GAPS.keyTable,
    'move, press and release at viewport coordinates: mouse events with the button, buttons and coordinates': BIDI_GAPS.clickCounting,
    'two clicks at one place in quick succession are a double click': BIDI_GAPS.clickCounting,
    'each Perform Actions counts clicks afresh: a double click right after a click is one double click': BIDI_GAPS.clickCounting,
    'a move alone hovers: mouseover and mousemove on the element, no click': ENGINE_GAPS.hover,
    "a new source's move to where the last one left the pointer is a mousemove (its own pointer was elsewhere)": ENGINE_GAPS.moveInPlace,
    'HTML5 drag and drop of a draggable element onto a drop target': ENGINE_GAPS.dragAndDrop,
    'a touch pointer: pointer events of type touch with its width, height and pressure; touch events': BIDI_GAPS.touchInput,
    'two touch pointers at once (a pinch): both touch, move and lift': BIDI_GAPS.touchInput,
    'a pen pointer: pointer events of type pen with its pressure and tilt (from the angles)': BIDI_GAPS.penInput,
    "the accessibility tree's role and name, as chromedriver answers them": BIDI_GAPS.computedRole,
    'reflects changes made by script': BIDI_GAPS.computedRole,
    'an element in a frame, with the frame current': BIDI_GAPS.computedRole,
    'clicks a button with trusted events; its handler runs': ENGINE_GAPS.focus,
    'clears input, textarea and contenteditable: focus, change, blur (no change for contenteditable)': ENGINE_GAPS.focus,
    'an empty control or contenteditable is left alone: no event at all': ENGINE_GAPS.focus,
    'unable to set cookie when the browser refuses it': ENGINE_GAPS.cookies,
    'what the browser cannot lay out is invalid argument too (as chromedriver)': ENGINE_GAPS.print,
    'maximize, minimize and fullscreen each return a rect; Set Window Rect restores the normal state': BIDI_GAPS.fullscreenDocument,
    'a minimized window is shown again and captured (it would draw nothing after a navigation)': BIDI_GAPS.minimizedCapture,
    ...FIREFOX_PDFS,
    'each BiDi session has a browser of its own, and once one was asked for the next is prepared ahead': CHROMIUM_ONLY.ownBrowser,
    'served to a session with a browser of its own; refused, naming why, to one that shares its browser': CHROMIUM_ONLY.cdp,
    "Selenium's createCDPConnection works through it; a malformed message is -32600; it closes with the session": CHROMIUM_ONLY.cdp,
  },
  'playwright-chromium': {
    ...PLAYWRIGHT_GAPS,
    'maximize, minimize and fullscreen each return a rect; Set Window Rect restores the normal state': WINDOW_STATE,
  },
  'playwright-firefox': {
    ...PLAYWRIGHT_GAPS,
    'maximize, minimize and fullscreen each return a rect; Set Window Rect restores the normal state': FIREFOX_GAPS.windowBounds,
    'Maximize and Fullscreen Window restore a minimized window first (spec), and answer their rect': FIREFOX_GAPS.windowBounds,
    'window commands act on the current window, not another one': FIREFOX_GAPS.windowBounds,
    'Get Window Rect is {x, y, width, height} of the window': FIREFOX_GAPS.windowBounds,
    'Set Window Rect sets what is given and returns the new rect': FIREFOX_GAPS.windowBounds,
    'a minimized window is shown again and captured (it would draw nothing after a navigation)': FIREFOX_GAPS.windowBounds,
    'move, press and release at viewport coordinates: mouse events with the button, buttons and coordinates': FIREFOX_GAPS.clickCounting,
    'two clicks at one place in quick succession are a double click': FIREFOX_GAPS.clickCounting,
    'each Perform Actions counts clicks afresh: a double click right after a click is one double click': FIREFOX_GAPS.clickCounting,
    'a move alone hovers: mouseover and mousemove on the element, no click': FIREFOX_GAPS.hover,
    "a new source's move to where the last one left the pointer is a mousemove (its own pointer was elsewhere)": FIREFOX_GAPS.moveInPlace,
    'HTML5 drag and drop of a draggable element onto a drop target': FIREFOX_GAPS.dragAndDrop,
    'clicks a button with trusted events; its handler runs': FIREFOX_GAPS.focus,
    'clears input, textarea and contenteditable: focus, change, blur (no change for contenteditable)': FIREFOX_GAPS.focus,
    'an empty control or contenteditable is left alone: no event at all': FIREFOX_GAPS.focus,
    'keydown events carry the W3C key values, trusted': FIREFOX_GAPS.namedKeys,
    'a prompt opened on mouse press: later clicks still work': FIREFOX_GAPS.releaseAfterPrompt,
    'a leading dot in the domain is accepted; an empty domain is no domain (host-only)': FIREFOX_GAPS.cookies,
    'unable to set cookie when the browser refuses it': FIREFOX_GAPS.cookies,
    'what the browser cannot lay out is invalid argument too (as chromedriver)': FIREFOX_GAPS.print,
    ...FIREFOX_PDFS,
  },
  'remote-chromedriver': CHROMEDRIVER,
};

/** Why this backend cannot pass the test, if it is declared. */
export function gapOf(name: string): string | undefined {
  return DECLARED[BACKEND]?.[name];
}

type TestFn = (...args: never[]) => unknown;

/**
 * node:test's `test`, skipping what the backend under test declared, with the reason. With
 * WDGATE_TEST_GAPS=check a declared test runs instead and must fail (a fixed gap must not stay
 * declared); not by default, because a failing test may leave its session in a state the next
 * test would trip over, or hang (an upstream that never answers).
 */
export const test = ((name: string, ...rest: unknown[]) => {
  const why = gapOf(name);
  if (!why) return (nodeTest as (...a: unknown[]) => unknown)(name, ...rest);
  const fn = rest.find((r): r is TestFn => typeof r === 'function');
  const options = (rest.find((r) => typeof r === 'object' && r !== null) ?? {}) as Record<string, unknown>;
  if (process.env.WDGATE_TEST_GAPS !== 'check') return nodeTest(name, { ...options, skip: `${BACKEND} gap: ${why}` }, () => {});
  return nodeTest(name, options, async (t) => {
    let passed = false;
    try {
      await (fn as unknown as (t: unknown) => Promise<unknown>)(t);
      passed = true;
    } catch {
      t.skip(`${BACKEND} gap (checked: it still fails): ${why}`);
    }
    if (passed) throw new Error(`declared as a ${BACKEND} gap in test/helpers/gaps.ts, but it passes: take the declaration out`);
  });
}) as typeof nodeTest;
