// What Firefox ESR 153 does otherwise than the W3C spec asks, whichever backend drives it, and
// what its WebDriver BiDi cannot do: the native Firefox backend's declared gaps (the Playwright
// backend's Firefox shares the engine's). Where a command meets one it answers `unsupported
// operation` with this text; the test suite, run on Firefox, skips the tests that meet one and
// says which (test/helpers/gaps.ts); the README lists them.
export const ENGINE_GAPS = {
  hover: "Firefox keeps its mouse where it was on the previous document: the new document's element there is hovered as it loads (its mouseover comes before any move)",
  focus: 'headless Firefox gives a document focus only with its first focus() call (a window focus event first), and a clicked button takes no focus',
  cookies: 'Firefox refuses a domain cookie for an IP address (RFC 6265: host-only there), and accepts the cookies Chromium refuses',
  print: 'Firefox lays out a print Chromium refuses (no invalid argument)',
  moveInPlace:
    "Firefox drops a move of its mouse to where it already is, so a new input source's first move there (its own pointer was elsewhere) is no mousemove; a fresh source of Firefox's would send it, but as another pointer (a new pointerId, with pointerover and pointerenter again)",
  dragAndDrop: 'in headless Firefox on Linux an HTML5 drag starts (dragstart) and never ends (no drop, no dragend), the actions sent in one WebDriver BiDi call as well as one by one (Firefox has no drag service when headless there)',
} as const;

/** Firefox driven over its own WebDriver BiDi (the native backend). */
export const BIDI_GAPS = {
  clickCounting: "WebDriver BiDi's input actions carry no click count: Firefox counts clicks itself and starts afresh with each input.performActions call (the W3C layer sends one event per call), so a press that W3C counts as the second of a double click is a single click there, and a move carries a detail of 1",
  keyTable: 'in Firefox the numpad PageUp key moves the caret to the start of the text field, so the characters typed after it come first',
  touchInput: "Firefox dispatches touch pointers' pointer events, but its touch events carry no touch lists (touch events are off on desktop Firefox)",
  penInput: "Firefox's WebDriver BiDi has no pen input (\"Unimplemented pointerMove for pointerType pen\")",
  computedRole: "Firefox's WebDriver BiDi has no way to read an element's computed role and label",
  fullscreenDocument:
    "headless Firefox makes the window fullscreen (window.fullScreen, as geckodriver does) but not its document element: its documents never have focus when headless, and Firefox denies their fullscreen request, so document.fullscreenElement stays null",
  minimizedCapture: 'Firefox captures a minimized window as it is (the page is in the capture) without showing it again: its document stays hidden, where Chromium draws nothing until the gateway restores the window',
  networkThrottling: "Firefox's WebDriver BiDi emulates only an offline network (emulation.setNetworkConditions): no latency and no throughput",
  webAuthn: "Firefox's WebDriver BiDi has no virtual authenticators (geckodriver reaches them through Marionette, which wdgate does not drive)",
  fedCm: 'FedCM is Chromium\'s automation (its DevTools protocol); Firefox has no FedCM dialogs to drive',
  networkLog: "Firefox's BiDi log module has no entries for resources that failed to load (Chromium's \"network\" source)",
} as const;
