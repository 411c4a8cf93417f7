// ── frames.js: Switch To Frame (spec §11.6), the in-page half, and frame geometry. ──────────
// Runs inside the page after core.js (see page/index.ts). The gateway (src/webdriver/frames.ts)
// turns a frame element into the backend's frame id of the browsing context it contains.
{
  const isFrameElement = (el) => el instanceof HTMLIFrameElement || el instanceof HTMLFrameElement;

  /**
   * Spec: "If id is not a supported property index of window, no such frame"; the child window
   * is window.frames[index]. Its container is the element whose content window it is (a
   * WindowProxy compares equal across origins too).
   */
  function containerAt(index) {
    if (!(index < window.length)) {
      fail('no such frame', `no frame at index ${index}: the current browsing context has ${window.length} child browsing context(s)`);
    }
    const child = window.frames[index];
    for (const el of document.querySelectorAll('iframe, frame, object')) if (el.contentWindow === child) return el;
    fail('no such frame', `the frame at index ${index} has no frame element in this document`);
  }

  // wdgateArgs: { index } or { id } (a web element reference). Returns the frame element's web
  // element reference, kept by the gateway to find the frame's offset in this document.
  OPS.frameElement = function ({ index, id }) {
    let element;
    if (id !== undefined) {
      element = getKnownElement(id);
      // Spec: "If element is not a frame or iframe element, return no such frame".
      if (!isFrameElement(element)) fail('no such frame', `element <${element.localName}> is not a frame or iframe element`);
    } else {
      element = containerAt(index);
    }
    if (!element.contentWindow) fail('no such frame', `the <${element.localName}> element contains no browsing context`);
    return referenceFor(element);
  };

  // The frame element itself, for the backend (its content frame id). Called through RAW_ATOM.
  OPS.frameElementNode = function ({ id }) {
    return getKnownElement(id);
  };

  // Resolves once this document has drawn twice from now (at most 100 ms: a hidden page draws
  // nothing). The browser routes input to an out-of-process frame by what the frames last drew:
  // a frame not drawn since it loaded or moved would leave the click to its parent.
  OPS.framesDrawn = function () {
    return new Promise((resolve) => {
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)));
      setTimeout(() => resolve(null), 100);
    });
  };

  // wdgateArgs: { id } of a frame element in this document. Its content box (where the child's
  // viewport is drawn) in this viewport's CSS pixels, and the size of the part of this viewport
  // that shows the document (less scroll bars: what is under them is not seen, nor clickable).
  OPS.frameContentBox = function ({ id }) {
    const element = getKnownElement(id);
    const box = element.getBoundingClientRect();
    const visible = visibleViewport();
    const style = getComputedStyle(element);
    const px = (name) => parseFloat(style.getPropertyValue(name)) || 0;
    const left = px('border-left-width') + px('padding-left');
    const top = px('border-top-width') + px('padding-top');
    return {
      x: box.left + left,
      y: box.top + top,
      width: Math.max(0, box.width - left - px('border-right-width') - px('padding-right')),
      height: Math.max(0, box.height - top - px('border-bottom-width') - px('padding-bottom')),
      viewportWidth: visible.width,
      viewportHeight: visible.height,
    };
  };

  // Run in a frame: its child indices from the top-level window down (window.frames order), or
  // null if some ancestor does not list it (a frame in a shadow tree).
  OPS.framePathFromTop = function () {
    const path = [];
    for (let w = window; w !== w.parent; w = w.parent) {
      const parent = w.parent;
      let index = -1;
      for (let i = 0; i < parent.length; i++) {
        if (parent.frames[i] === w) {
          index = i;
          break;
        }
      }
      if (index < 0) return null;
      path.unshift(index);
    }
    return path;
  };

  // Set a token on this top-level window so a page of another tab can recognise its WindowProxy
  // (a web window reference given as an argument). Returns the token.
  OPS.markTopLevelWindow = function () {
    const token = window[WINDOW_TOKEN_KEY] ?? Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
    Object.defineProperty(window, WINDOW_TOKEN_KEY, { value: token, configurable: true });
    return token;
  };

  // Whether this top-level window carries `token` (set by locateWindow in another tab's page).
  OPS.hasWindowToken = function ({ token }) {
    return window[WINDOW_TOKEN_KEY] === token;
  };
}
