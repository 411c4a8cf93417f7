// ── state.js: Element State and Element Retrieval's text (spec §12.4 "Element State"). ─────────
// Runs inside the page, concatenated after core.js. Get Element Text and the link text
// strategies use the rendered text algorithm Selenium's atoms define (bot.dom.getVisibleText,
// bot.dom.isShown), which chromedriver answers with: clients' expectations are built on it.
// Helpers other page files may use: isShown(element, ignoreOpacity), visibleText(element).

// ── The flat tree (shadow DOM aware) ─────────────────────────────────────────────────────────

/** The parent element in the flat tree: a slotted node's slot, a shadow root's host. */
function flatTreeParentElement(node) {
  let parent = node.assignedSlot ?? node.parentNode;
  while (parent && !(parent instanceof Element)) {
    parent = parent instanceof ShadowRoot ? parent.host : null;
  }
  return parent;
}

/** Children in the flat tree: an open shadow root's children, a slot's assigned nodes. */
function flatTreeChildren(element) {
  if (element.shadowRoot) return element.shadowRoot.childNodes;
  if (element instanceof HTMLSlotElement) {
    const assigned = element.assignedNodes();
    return assigned.length > 0 ? assigned : element.childNodes;
  }
  return element.childNodes;
}

function isHtmlElement(node, localName) {
  return node instanceof HTMLElement && (localName === undefined || node.localName === localName);
}

// ── Shown (bot.dom.isShown) ──────────────────────────────────────────────────────────────────

/**
 * Whether a user would call the element shown: displayed, not visibility:hidden, not fully
 * transparent (unless ignoreOpacity), of positive size, and not hidden by overflow.
 */
function isShown(element, ignoreOpacity = false) {
  // An option or optgroup is shown iff its select is (whatever the select's opacity).
  if (element instanceof HTMLOptionElement || element instanceof HTMLOptGroupElement) {
    const select = element.closest('select');
    return !!select && isShown(select, true);
  }
  // An image map's <map> or <area> is shown if an image using it is, and the area has a size.
  const imageMap = imageMapOf(element);
  if (imageMap) {
    return !!imageMap.image && imageMap.rect.width > 0 && imageMap.rect.height > 0 && isShown(imageMap.image, ignoreOpacity);
  }
  if (element instanceof HTMLInputElement && element.type === 'hidden') return false;
  if (isHtmlElement(element, 'noscript')) return false;
  const visibility = getComputedStyle(element).visibility;
  if (visibility === 'hidden' || visibility === 'collapse') return false;
  if (!isDisplayed(element)) return false;
  if (!ignoreOpacity && effectiveOpacity(element) === 0) return false;
  if (!hasPositiveSize(element)) return false;
  return !isHiddenByOverflow(element);
}

/** Not display:none itself nor below such an ancestor, and not in a skipped subtree. */
function isDisplayed(element) {
  // checkVisibility: no box (display:none here or above, unslotted light DOM) or inside
  // content-visibility:hidden (a closed <details>) is not displayed.
  if (element.checkVisibility()) return true;
  // display:contents has no box of its own, yet its children are rendered.
  if (getComputedStyle(element).display !== 'contents') return false;
  const parent = flatTreeParentElement(element);
  return !parent || isDisplayed(parent);
}

function effectiveOpacity(element) {
  let opacity = 1;
  for (let e = element; e; e = flatTreeParentElement(e)) opacity *= Number(getComputedStyle(e).opacity);
  return opacity;
}

function hasPositiveSize(element) {
  const rect = clientRect(element);
  if (rect.width > 0 && rect.height > 0) return true;
  // A horizontal or vertical SVG path has a zero dimension, yet shows if stroked.
  if (element instanceof SVGPathElement && (rect.width > 0 || rect.height > 0)) {
    return parseInt(getComputedStyle(element).strokeWidth, 10) > 0;
  }
  // A zero-sized element still counts if a child has size (text, or an element that has),
  // unless its overflow is hidden.
  const overflow = getComputedStyle(element).overflow;
  if (overflow === 'hidden' || overflow === 'clip') return false;
  return Array.prototype.some.call(flatTreeChildren(element), (n) => n.nodeType === Node.TEXT_NODE || (n instanceof Element && hasPositiveSize(n)));
}

function isHiddenByOverflow(element) {
  return (
    overflowState(element) === 'hidden' &&
    Array.prototype.every.call(flatTreeChildren(element), (n) => !(n instanceof Element) || isHiddenByOverflow(n))
  );
}

/**
 * Whether the element overflows an ancestor: 'none', 'scroll' (it can be scrolled into view)
 * or 'hidden' (it cannot).
 */
function overflowState(element) {
  const region = clientRect(element);
  const right = region.left + region.width;
  const bottom = region.top + region.height;
  const doc = element.ownerDocument;
  const html = doc.documentElement;
  const body = doc.body;
  const htmlOverflow = getComputedStyle(html).overflow;
  let treatAsFixedPosition = false;

  // The closest ancestor the element may overflow.
  function overflowParent(e) {
    const position = getComputedStyle(e).position;
    if (position === 'fixed') {
      treatAsFixedPosition = true;
      return e === html ? null : html; // a fixed element can only overflow the viewport
    }
    let parent = flatTreeParentElement(e);
    while (parent && !canBeOverflowed(parent, position)) parent = flatTreeParentElement(parent);
    return parent;
  }
  function canBeOverflowed(container, position) {
    if (container === html) return true;
    const display = getComputedStyle(container).display;
    // Inline boxes and display:contents clip nothing; an absolute box escapes static ones.
    if (display.startsWith('inline') || display === 'contents') return false;
    return !(position === 'absolute' && getComputedStyle(container).position === 'static');
  }
  function overflowStyles(e) {
    // When <html> is overflow:visible it takes the body's overflow; the body is then visible.
    let styled = e;
    if (htmlOverflow === 'visible') {
      if (e === html && body) styled = body;
      else if (e === body) return { x: 'visible', y: 'visible' };
    }
    const style = getComputedStyle(styled);
    const overflow = { x: style.overflowX, y: style.overflowY };
    // The viewport cannot grow: a visible <html> really scrolls.
    if (e === html) {
      if (overflow.x === 'visible') overflow.x = 'auto';
      if (overflow.y === 'visible') overflow.y = 'auto';
    }
    return overflow;
  }
  const clips = (o) => o === 'hidden' || o === 'clip';
  const scroll = (e) => (e === html ? { x: window.scrollX, y: window.scrollY } : { x: e.scrollLeft, y: e.scrollTop });

  for (let container = overflowParent(element); container; container = overflowParent(container)) {
    const overflow = overflowStyles(container);
    if (overflow.x === 'visible' && overflow.y === 'visible') continue;
    const box = clientRect(container);
    // A zero-sized container that does not show its overflow hides all of it.
    if (box.width === 0 || box.height === 0) return 'hidden';

    // Left of or above the container.
    const underflowsX = right < box.left;
    const underflowsY = bottom < box.top;
    if ((underflowsX && clips(overflow.x)) || (underflowsY && clips(overflow.y))) return 'hidden';
    if ((underflowsX && overflow.x !== 'visible') || (underflowsY && overflow.y !== 'visible')) {
      const s = scroll(container);
      const unscrollableX = right < box.left - s.x;
      const unscrollableY = bottom < box.top - s.y;
      if ((unscrollableX && overflow.x !== 'visible') || (unscrollableY && overflow.y !== 'visible')) return 'hidden';
      return overflowState(container) === 'hidden' ? 'hidden' : 'scroll';
    }

    // Right of or below the container.
    const overflowsX = region.left >= box.left + box.width;
    const overflowsY = region.top >= box.top + box.height;
    if ((overflowsX && clips(overflow.x)) || (overflowsY && clips(overflow.y))) return 'hidden';
    if ((overflowsX && overflow.x !== 'visible') || (overflowsY && overflow.y !== 'visible')) {
      // A fixed element outside the document's scrollable area can never be seen.
      if (treatAsFixedPosition) {
        const s = scroll(container);
        if (region.left >= html.scrollWidth - s.x || bottom >= html.scrollHeight - s.y) return 'hidden';
      }
      return overflowState(container) === 'hidden' ? 'hidden' : 'scroll';
    }
  }
  return 'none';
}

/** getBoundingClientRect, except: <html> is the viewport; <map>/<area> are on their image. */
function clientRect(element) {
  const imageMap = imageMapOf(element);
  if (imageMap) return imageMap.rect;
  if (element === element.ownerDocument.documentElement) {
    return { left: 0, top: 0, width: element.clientWidth, height: element.clientHeight };
  }
  const r = element.getBoundingClientRect();
  return { left: r.left, top: r.top, width: r.width, height: r.height };
}

/** For a <map> or <area>: the image that uses the map and the area's rectangle; else null. */
function imageMapOf(element) {
  const isMap = element instanceof HTMLMapElement;
  if (!isMap && !(element instanceof HTMLAreaElement)) return null;
  const map = isMap ? element : element.parentElement instanceof HTMLMapElement ? element.parentElement : null;
  let image = null;
  let rect = { left: 0, top: 0, width: 0, height: 0 };
  if (map && map.name) {
    image = map.ownerDocument.querySelector(`[usemap="#${CSS.escape(map.name)}"]`);
    if (image) {
      rect = clientRect(image);
      if (!isMap && element.shape.toLowerCase() !== 'default') {
        // Shift and crop the area's rectangle (relative to the image) onto the image.
        const area = areaRect(element);
        const x = Math.min(Math.max(area.left, 0), rect.width);
        const y = Math.min(Math.max(area.top, 0), rect.height);
        rect = {
          left: rect.left + x,
          top: rect.top + y,
          width: Math.min(area.width, rect.width - x),
          height: Math.min(area.height, rect.height - y),
        };
      }
    }
  }
  return { image, rect };
}

function areaRect(area) {
  const shape = area.shape.toLowerCase();
  const c = area.coords.split(',').map(Number);
  if (shape === 'rect' && c.length === 4) return { left: c[0], top: c[1], width: c[2] - c[0], height: c[3] - c[1] };
  if (shape === 'circle' && c.length === 3) return { left: c[0] - c[2], top: c[1] - c[2], width: 2 * c[2], height: 2 * c[2] };
  if (shape === 'poly' && c.length > 2) {
    const xs = c.filter((_, i) => i % 2 === 0);
    const ys = c.filter((_, i) => i % 2 === 1);
    const left = Math.min(...xs);
    const top = Math.min(...ys);
    return { left, top, width: Math.max(...xs) - left, height: Math.max(...ys) - top };
  }
  return { left: 0, top: 0, width: 0, height: 0 };
}

// ── Rendered text (bot.dom.getVisibleText) ───────────────────────────────────────────────────

// Display values laid out on the current line; every other display starts and ends a line.
const INLINE_DISPLAYS = new Set([
  'inline',
  'inline-block',
  'inline-flex',
  'inline-grid',
  'inline-table',
  'contents',
  'none',
  'table-cell',
  'table-column',
  'table-column-group',
]);

/** Leading/trailing whitespace off, except non-breaking spaces (they are visible). */
function trimExceptNbsp(text) {
  return text.replace(/^[^\S\xa0]+|[^\S\xa0]+$/g, '');
}

/** The text a user sees in element: hidden parts left out, block boxes on their own lines. */
function visibleText(element) {
  const lines = [];
  appendVisibleLines(element, lines);
  return trimExceptNbsp(lines.map(trimExceptNbsp).join('\n')).replace(/\xa0/g, ' ');
}

/** A line with nothing but (possibly non-breaking) spaces does not count as text (goog.string.isEmptyOrWhitespace). */
const blank = (line) => /^[\s\xa0]*$/.test(line);

function appendVisibleLines(element, lines) {
  const currentLine = () => lines.at(-1) ?? '';
  if (isHtmlElement(element, 'br')) {
    lines.push('');
    return;
  }
  const style = getComputedStyle(element);
  const isCell = isHtmlElement(element, 'td') || style.display === 'table-cell';
  const isBlock = !isHtmlElement(element, 'td') && !INLINE_DISPLAYS.has(style.display);
  if (isBlock && !blank(currentLine())) lines.push('');

  // A hidden element may have shown children (visibility:visible under visibility:hidden);
  // its own text nodes never count.
  const shown = isShown(element);
  const whiteSpace = shown ? whiteSpaceHandling(style) : null;
  const textTransform = shown ? style.textTransform : null;
  for (const node of flatTreeChildren(element)) {
    if (node.nodeType === Node.TEXT_NODE) {
      if (shown) appendTextNode(node, lines, whiteSpace, textTransform);
    } else if (node instanceof Element) {
      appendVisibleLines(node, lines);
    }
  }

  const line = currentLine();
  // Table cells are separated by a space (where innerText would use a tab).
  if (isCell && line !== '' && !line.endsWith(' ')) lines[lines.length - 1] += ' ';
  if (isBlock && !blank(line)) lines.push('');
}

/** How the CSS white-space of the text's parent treats spaces and newlines. */
function whiteSpaceHandling(style) {
  const collapse = style.whiteSpaceCollapse;
  if (collapse) {
    return {
      keepNewlines: collapse !== 'collapse' && collapse !== 'preserve-spaces',
      keepSpaces: collapse === 'preserve' || collapse === 'break-spaces' || collapse === 'preserve-spaces',
    };
  }
  const ws = style.whiteSpace;
  return { keepNewlines: ws !== 'normal' && ws !== 'nowrap', keepSpaces: ws === 'pre' || ws === 'pre-wrap' || ws === 'break-spaces' };
}

function appendTextNode(node, lines, whiteSpace, textTransform) {
  // Zero-width space and direction marks go first: they are spaces nobody sees.
  let text = node.nodeValue.replace(/[\u200b\u200e\u200f]/g, '').replace(/\r\n|\r/g, '\n');
  if (!whiteSpace.keepNewlines) text = text.replace(/\n/g, ' ');
  // Preserved spaces become non-breaking (they survive trimming and become spaces at the end).
  text = whiteSpace.keepSpaces ? text.replace(/[ \f\t\v\u2028\u2029]/g, '\xa0') : text.replace(/[ \f\t\v\u2028\u2029]+/g, ' ');
  if (textTransform === 'capitalize') {
    // A word starts after anything but a letter, digit, symbol, "_" or "'" ("o'neil" and "a_b"
    // are one word, "world-wide" two), as chromedriver answers.
    text = text.replace(/(^|[^\d\p{L}\p{S}_'])([\p{Ll}\p{S}])/gu, (_, before, letter) => before + letter.toUpperCase());
  } else if (textTransform === 'uppercase') {
    text = text.toUpperCase();
  } else if (textTransform === 'lowercase') {
    text = text.toLowerCase();
  }
  const line = lines.pop() ?? '';
  if (line.endsWith(' ') && text.startsWith(' ')) text = text.slice(1);
  lines.push(line + text);
}

// ── Element State commands (spec §12.4) ──────────────────────────────────────────────────────

// §12.4.1 Is Element Selected: checkedness of checkboxes and radios, selectedness of options.
OPS.isElementSelected = function ({ id }) {
  const element = getKnownElement(id);
  if (element instanceof HTMLInputElement && (element.type === 'checkbox' || element.type === 'radio')) return element.checked;
  if (element instanceof HTMLOptionElement) return element.selected;
  return false;
};

// HTML's boolean attributes, as the spec lists them for Get Element Attribute.
const BOOLEAN_ATTRIBUTES = new Set([
  'allowfullscreen', 'async', 'autofocus', 'autoplay', 'checked', 'compact', 'controls', 'declare',
  'default', 'defaultchecked', 'defaultselected', 'defer', 'disabled', 'ended', 'formnovalidate',
  'hidden', 'indeterminate', 'iscontenteditable', 'ismap', 'itemscope', 'loop', 'multiple', 'muted',
  'nohref', 'nomodule', 'noresize', 'noshade', 'novalidate', 'nowrap', 'open', 'paused',
  'playsinline', 'pubdate', 'readonly', 'required', 'reversed', 'scoped', 'seamless', 'seeking',
  'selected', 'truespeed', 'typemustmatch', 'willvalidate',
]);

// §12.4.2 Get Element Attribute: a boolean attribute is "true" when present; else its value.
OPS.getElementAttribute = function ({ id, name }) {
  const element = getKnownElement(id);
  if (BOOLEAN_ATTRIBUTES.has(name.toLowerCase())) return element.hasAttribute(name) ? 'true' : null;
  return element.getAttribute(name);
};

// §12.4.3 Get Element Property: the IDL property, JSON cloned; undefined is null.
OPS.getElementProperty = function ({ id, name }) {
  const element = getKnownElement(id);
  return jsonClone(element[name]);
};

// §12.4.4 Get Element CSS Value: the computed value of the property.
OPS.getElementCssValue = function ({ id, name }) {
  const element = getKnownElement(id);
  // The spec answers '' for XML documents; that is no help to anyone, so do as chromedriver.
  return getComputedStyle(element).getPropertyValue(name);
};

// §12.4.5 Get Element Text: the rendered text.
OPS.getElementText = function ({ id }) {
  return visibleText(getKnownElement(id));
};

// §12.4.6 Get Element Tag Name: lower case for HTML (tagName shouts), the qualified name else.
OPS.getElementTagName = function ({ id }) {
  const element = getKnownElement(id);
  return element.namespaceURI === 'http://www.w3.org/1999/xhtml' ? element.tagName.toLowerCase() : element.tagName;
};

// §12.4.7 Get Element Rect: the bounding box in document coordinates ("absolute position").
OPS.getElementRect = function ({ id }) {
  const rect = getKnownElement(id).getBoundingClientRect();
  return { x: rect.x + window.scrollX, y: rect.y + window.scrollY, width: rect.width, height: rect.height };
};

// §12.4.8 Is Element Enabled: false in an XML document; else false for a disabled form control.
// :disabled covers the disabled attribute, disabled <fieldset> ancestors (except inside its first
// <legend>) and <option>s in a disabled <optgroup>; an <option> of a disabled <select> is
// disabled for users too.
OPS.isElementEnabled = function ({ id }) {
  const element = getKnownElement(id);
  if (isXmlDocument(element.ownerDocument)) return false;
  if (element.matches(':disabled')) return false;
  if (element instanceof HTMLOptionElement || element instanceof HTMLOptGroupElement) {
    const select = element.closest('select');
    if (select && select.matches(':disabled')) return false;
  }
  return true;
};

/**
 * The spec's "document type is xml", as WPT and geckodriver read it: a document served with an
 * XML MIME type (text/xml, application/xml, or a +xml one such as SVG's), except XHTML, whose
 * HTML form controls are enabled or disabled as in HTML.
 */
function isXmlDocument(document) {
  const type = document.contentType;
  return type !== 'application/xhtml+xml' && (type === 'text/xml' || type === 'application/xml' || type.endsWith('+xml'));
}

// §12.4.9 Get Computed Role / §12.4.10 Get Computed Label: the backend reads the browser's
// accessibility tree (commands/elements.ts), not the page.
