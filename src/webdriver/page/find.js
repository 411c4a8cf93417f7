// ── find.js: Element Retrieval (spec §12.3). Runs inside the page, after core.js. ────────────
// The locator strategies (§12.3.1) and "find" with its implicit wait, polled here in the page so
// that a find costs one round trip however long it waits. Link texts use visibleText (state.js).

const XHTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';
// How often "find" looks again while the implicit wait timeout has not elapsed.
const FIND_POLL_MS = 50;

/** Spec §12.3.1: the elements `using` finds from start node, in document order. */
function locate(start, using, selector) {
  switch (using) {
    case 'css selector':
      return cssSelectorAll(start, selector);
    case 'link text':
      // Spec: the rendered text with whitespace removed from both ends. Rendered text keeps
      // no-break spaces at its ends and makes them spaces last (bot.dom.getVisibleText): they
      // are trimmed here, as Selenium's link text locator trims them.
      return cssSelectorAll(start, 'a').filter((a) => visibleText(a).replace(/^\s+|\s+$/g, '') === selector);
    case 'partial link text':
      return cssSelectorAll(start, 'a').filter((a) => visibleText(a).includes(selector));
    case 'tag name':
      return elementsByTagName(start, selector);
    case 'xpath':
      return xpathElements(start, selector);
  }
  fail('invalid argument', `unknown location strategy ${JSON.stringify(using)}`);
}

function cssSelectorAll(start, selector) {
  try {
    return Array.from(start.querySelectorAll(selector));
  } catch (e) {
    if (e instanceof DOMException && e.name === 'SyntaxError') fail('invalid selector', `invalid CSS selector ${JSON.stringify(selector)}`);
    throw e;
  }
}

/** getElementsByTagName(); a shadow root has none, so its descendants are matched alike. */
function elementsByTagName(start, qualifiedName) {
  if (typeof start.getElementsByTagName === 'function') return Array.from(start.getElementsByTagName(qualifiedName));
  // DOM "list of elements with qualified name": all for "*"; HTML elements of an HTML document
  // match the name in ASCII lower case, every other element matches it exactly.
  const lower = qualifiedName.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const htmlDocument = start.ownerDocument instanceof HTMLDocument;
  return Array.from(start.querySelectorAll('*')).filter((e) => {
    if (qualifiedName === '*') return true;
    const name = e.prefix ? `${e.prefix}:${e.localName}` : e.localName;
    return name === (htmlDocument && e.namespaceURI === XHTML_NAMESPACE ? lower : qualifiedName);
  });
}

function xpathElements(start, expression) {
  let result;
  try {
    result = (start.ownerDocument ?? start).evaluate(expression, start, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
  } catch (e) {
    // A syntax error, or an expression whose value is not a node-set (count(), a string).
    fail('invalid selector', `invalid XPath expression ${JSON.stringify(expression)}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const elements = [];
  for (let i = 0; i < result.snapshotLength; i++) {
    const node = result.snapshotItem(i);
    if (!(node instanceof Element)) {
      fail('invalid selector', `the XPath expression ${JSON.stringify(expression)} selects a ${node.nodeName} node, which is not an element`);
    }
    elements.push(node);
  }
  return elements;
}

function startNode(from, id) {
  if (from === 'element') return getKnownElement(id);
  if (from === 'shadow root') return getKnownShadowRoot(id);
  // Finding from the document starts at the document (like chromedriver), so that "html"
  // and absolute XPaths find the document element too.
  if (!document.documentElement) fail('no such element', 'the document has no document element');
  return document;
}

// Spec §12.3.2-7 Find Element(s) [From Element | From Shadow Root]: "find" polls until the
// session's implicit wait timeout has elapsed, then answers the elements (or, for a single
// find, the first one; none is no such element).
OPS.findElements = async function ({ using, value, from, id, implicit, single }) {
  const start = startNode(from, id);
  const end = performance.now() + implicit;
  let found = locate(start, using, value);
  const waited = found.length === 0;
  while (found.length === 0 && performance.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(FIND_POLL_MS, end - performance.now())));
    found = locate(start, using, value);
  }
  // Found after waiting: the page changed meanwhile (what the page shows now is worth a capture).
  if (waited && found.length > 0) notePageChanged();
  if (!single) return found.map(elementReference);
  if (found.length === 0) fail('no such element', `Unable to locate element: ${JSON.stringify({ method: using, selector: value })}`);
  return elementReference(found[0]);
};

// Spec §12.3.8 Get Active Element.
OPS.getActiveElement = function () {
  const active = document.activeElement;
  if (!(active instanceof Element)) fail('no such element', 'the document has no active element');
  return elementReference(active);
};

// Spec §12.3.9 Get Element Shadow Root: an open shadow root only (a closed one is not the
// page's to give away).
OPS.getElementShadowRoot = function ({ id }) {
  const element = getKnownElement(id);
  const root = element.shadowRoot;
  if (!root) fail('no such shadow root', `the element with reference ${id} has no (open) shadow root`);
  return jsonClone(root);
};
