// The trace's page code, a library the backend binds each call to (../capture.ts). It knows
// whether the document may look different since its last snapshot: a watch kept on the document
// (a non-enumerable property, as the element references are) — a MutationObserver (on the
// document and every open shadow root the last snapshot walked) that disconnects at the first
// change, and input, change, scroll, toggle and load events — so a page that did not change costs
// no serialization and no transfer, and the gateway reuses the previous snapshot (and picture). A
// document with frames or canvases is taken whole each time (their changes are not observed), and
// so is one whose URL, viewport or scroll moved.
//
// The snapshot writes the document out as HTML that shows the page as it is now, with nothing
// that could run or fetch: scripts, event handler attributes, <base>, refresh and javascript:
// URLs go; every style sheet the page has (link, style, CSSOM-inserted rules, adopted sheets) is
// inlined as <style>; form state (values, checked, selected) becomes markup; open shadow roots
// become declarative shadow DOM; same-origin frames are inlined as srcdoc, and other frames are
// left as placeholders the gateway fills with their own snapshot. Values of password fields are
// never written: they are answered separately, so the gateway can also scrub them from the rest of
// the trace.
function wdgateTraceLibrary() {
  'use strict';
  // The document's watch is kept on the document (not in this object): a backend may compile
  // its own copy of the library for a document's first call, and every copy must share it.
  const KEY = '__wdgate_trace';
  const OBSERVED = { subtree: true, childList: true, attributes: true, characterData: true };

  function watchOf() {
    if (Object.prototype.hasOwnProperty.call(document, KEY)) return document[KEY];
    const watch = {
      /** This document's watch (a new document gets a new one). */
      id: Math.random().toString(36).slice(2),
      version: 0,
      /** Something may have changed since snapshot `version` was taken. */
      changed: true,
      fingerprint: '',
      /** Elements ever scrolled: only their offsets are read (reading every element's costs half a large page's snapshot). */
      scrolled: new WeakSet(),
      /** The first snapshot reads every element's offsets, for what scrolled before the watch began. */
      seeded: false,
      frames: document.getElementsByTagName('iframe'),
      oldFrames: document.getElementsByTagName('frame'),
      canvases: document.getElementsByTagName('canvas'),
      observer: null,
    };
    // The first change is all that matters: then it stops listening (the page pays for one record).
    watch.observer = new MutationObserver(() => {
      watch.changed = true;
      watch.observer.disconnect();
    });
    const mark = () => {
      watch.changed = true;
    };
    for (const type of ['input', 'change', 'toggle', 'load']) addEventListener(type, mark, { capture: true, passive: true });
    addEventListener(
      'scroll',
      (event) => {
        watch.changed = true;
        const target = event.target;
        watch.scrolled.add(target && target.nodeType === 9 ? target.scrollingElement || target.documentElement : target);
      },
      { capture: true, passive: true },
    );
    Object.defineProperty(document, KEY, { value: watch, enumerable: false, configurable: true });
    return watch;
  }

  const where = () => location.href + ' ' + innerWidth + 'x' + innerHeight + ' ' + scrollX + ',' + scrollY;

  function dirty(watch) {
    if (watch.observer.takeRecords().length) watch.changed = true;
    return watch.changed || watch.frames.length > 0 || watch.oldFrames.length > 0 || watch.canvases.length > 0 || where() !== watch.fingerprint;
  }

  return {
    /**
     * The document's snapshot, or `{ unchanged }` when `since` ({ id, version }) names this
     * document's last snapshot and nothing changed since (unless `full`).
     */
    snapshot(options) {
      const watch = watchOf();
      const since = options && options.since;
      if (since && since.id === watch.id && since.version === watch.version && !options.full && !dirty(watch)) return { unchanged: true, id: watch.id, version: watch.version };
      watch.observer.disconnect();
      const roots = [document];
      const result = serialize(options || {}, roots, watch.seeded ? watch.scrolled : null, watch.scrolled);
      watch.seeded = true;
      for (const root of roots) watch.observer.observe(root, OBSERVED);
      watch.changed = false;
      watch.fingerprint = where();
      watch.version++;
      result.id = watch.id;
      result.version = watch.version;
      return result;
    },
    /**
     * Right before a command acts on an element (issue 33's action view): the element — found by
     * its web element reference in this document or a same-origin frame's (`references`: the key
     * of the WebDriver atoms' reference cache) — as `target` (its border box and in-view center
     * point in this viewport, frames' offsets added; a CSS selector when it is in this document's
     * light DOM), the viewport and its scroll, and `snapshot` as snapshot() answers it with `since`, the element carrying
     * data-wdgate-target="<marker>" when one is taken. `target` is null for an element not found
     * (the command answers that itself).
     */
    look(options) {
      const node = findReference(document, options.element, options.references, 0);
      const target = node ? describeTarget(node) : null;
      const viewport = { width: innerWidth, height: innerHeight, scrollX, scrollY };
      return { target, viewport, snapshot: this.snapshot({ ...options, target: node, marker: options.marker }) };
    },
    /** Whether the document may have changed since snapshot `since` (a picture taken meanwhile shows it or not). */
    changedSince(since) {
      const watch = watchOf();
      if (!since || since.id !== watch.id || since.version !== watch.version) return true;
      if (watch.observer.takeRecords().length) watch.changed = true;
      return watch.changed || where() !== watch.fingerprint;
    },
  };

  /** The node a web element reference names, in `doc` or (same origin) its frames' documents. */
  function findReference(doc, id, key, depth) {
    if (typeof id !== 'string') return null;
    const cache = doc[key];
    if (cache && id.startsWith(cache.doc + '.')) {
      const node = cache.byId.get(id) && cache.byId.get(id).deref();
      return node && node.isConnected && node.nodeType === 1 ? node : null;
    }
    if (cache && cache.shared && cache.shared.get(id)) {
      const node = cache.shared.get(id).deref();
      return node && node.isConnected && node.nodeType === 1 ? node : null;
    }
    if (depth >= 3) return null;
    for (const frame of doc.querySelectorAll('iframe, frame')) {
      let inner = null;
      try {
        inner = frame.contentDocument;
      } catch {
        inner = null;
      }
      const found = inner && findReference(inner, id, key, depth + 1);
      if (found) return found;
    }
    return null;
  }

  /**
   * The element's border box and the in-view center point of its first box (spec §12.4.1; an
   * element out of view: its box's center, where a click scrolls it to) in the top-level
   * viewport's CSS px, and its selector.
   */
  function describeTarget(el) {
    let dx = 0;
    let dy = 0;
    for (let w = el.ownerDocument.defaultView; w && w !== window; w = w.parent) {
      const frame = w.frameElement;
      if (!frame) return null; // a frame of another origin between: its place is not ours to know
      const r = frame.getBoundingClientRect();
      const style = getComputedStyle(frame);
      dx += r.x + frame.clientLeft + parseFloat(style.paddingLeft || '0');
      dy += r.y + frame.clientTop + parseFloat(style.paddingTop || '0');
    }
    const box = el.getBoundingClientRect();
    const rects = Array.from(el.getClientRects());
    const first = rects.find((r) => r.width > 0 && r.height > 0) || rects[0] || box;
    const view = el.ownerDocument.defaultView;
    const left = Math.max(0, first.left);
    const right = Math.min(view.innerWidth, first.right);
    const top = Math.max(0, first.top);
    const bottom = Math.min(view.innerHeight, first.bottom);
    const inView = right > left && bottom > top;
    const center = inView ? { x: (left + right) / 2, y: (top + bottom) / 2 } : { x: first.left + first.width / 2, y: first.top + first.height / 2 };
    const round = (n) => Math.round(n * 100) / 100;
    return {
      box: { x: round(box.x + dx), y: round(box.y + dy), width: round(box.width), height: round(box.height) },
      center: { x: Math.floor(center.x + dx), y: Math.floor(center.y + dy) },
      inView,
      ...(el.ownerDocument === document && el.getRootNode() === document && { selector: selectorOf(el) }),
    };
  }

  /**
   * The element's path from <html> as the snapshot writes the document: tag:nth-of-type(k) at
   * each level, counting siblings as written (what the snapshot drops is not counted; a canvas
   * becomes an img, a style sheet link a style).
   */
  function selectorOf(el) {
    const DROPPED = new Set(['script', 'noscript', 'base', 'object', 'embed', 'applet', 'portal']);
    const written = (n) => (n.localName === 'canvas' ? 'img' : n.localName === 'link' ? 'style' : n.localName);
    const parts = [];
    for (let n = el; n && n.nodeType === 1 && n !== document.documentElement; n = n.parentElement) {
      const tag = written(n);
      let k = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (!DROPPED.has(s.localName) && written(s) === tag) k++;
      if (!/^[a-z][a-z0-9-]*$/.test(tag)) return undefined;
      parts.unshift(tag + ':nth-of-type(' + k + ')');
    }
    return ['html', ...parts].join(' > ');
  }

  /**
   * The document as HTML; `roots` gets the shadow roots walked (to observe them). Scroll offsets
   * of the elements in `scrolled`, or (null) of every element, which then go into `scrolled`.
   */
  function serialize(options, roots, scrolledOnly, scrolled) {
    const maxBytes = (options && options.maxBytes) || 4 * 1024 * 1024;
    const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
    const DROP = new Set(['script', 'noscript', 'base', 'object', 'embed', 'applet', 'portal']);
    const CSP = "default-src 'none'; img-src data:; media-src data:; font-src data:; style-src 'unsafe-inline'";
    const MASK = '\u2022\u2022\u2022\u2022\u2022\u2022\u2022\u2022';
    const secrets = [];
    const foreign = [];
    /** The element a command is about to act on, marked (look()). */
    const target = options.target || null;
    const marker = typeof options.marker === 'string' ? options.marker : '';
    let bytes = 0;
    let truncated = false;

    // Most text needs no escaping: tested first (a fifth of a large page's time).
    const escapeText = (s) => (/[&<>\u00a0]/.test(s) ? s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\u00a0/g, '&nbsp;') : s);
    const escapeAttr = (s) => (/[&"\u00a0]/.test(s) ? s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/\u00a0/g, '&nbsp;') : s);
    const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'data']);
    /** Open shadow roots the walk is inside. */
    let shadows = 0;

    function sheetText(sheet) {
      try {
        let text = '';
        for (const rule of sheet.cssRules) text += rule.cssText + '\n';
        return text;
      } catch {
        return null; // a cross-origin sheet cannot be read
      }
    }

    function adoptedStyles(root) {
      let out = '';
      for (const sheet of root.adoptedStyleSheets || []) {
        const text = sheetText(sheet);
        if (text) out += '<style>' + escapeStyle(text) + '</style>';
      }
      return out;
    }

    // Text inside <style> is raw: only a closing tag could end it early.
    const escapeStyle = (s) => s.replace(/<\/style/gi, '<\\/style');

    function isPassword(el) {
      return el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'password';
    }

    function attributes(el) {
      let out = '';
      const tag = el.localName;
      for (const attr of el.attributes) {
        const name = attr.name;
        let value = attr.value;
        if (/^on/i.test(name)) continue;
        if (URL_ATTRIBUTES.has(name.toLowerCase()) && /^\s*javascript:/i.test(value)) continue;
        if (tag === 'input' && (name === 'value' || name === 'checked')) continue; // written from the state below
        if ((tag === 'option' && name === 'selected') || (tag === 'iframe' && (name === 'src' || name === 'srcdoc'))) continue;
        if (name === 'nonce' || name === 'integrity') continue;
        out += ' ' + name + '="' + escapeAttr(value) + '"';
      }
      if (tag === 'input') {
        const type = (el.getAttribute('type') || '').toLowerCase();
        if (type === 'checkbox' || type === 'radio') {
          if (el.checked) out += ' checked';
          if (el.getAttribute('value') !== null) out += ' value="' + escapeAttr(el.getAttribute('value')) + '"';
        } else if (type !== 'file') {
          const value = el.value;
          if (isPassword(el)) {
            if (value) secrets.push(value);
            if (value) out += ' value="' + MASK + '"';
          } else if (value) out += ' value="' + escapeAttr(value) + '"';
        }
      }
      if (tag === 'option' && el.selected) out += ' selected';
      if (el === target && marker) out += ' data-wdgate-target="' + escapeAttr(marker) + '"';
      if (tag === 'img' && !el.hasAttribute('width') && !el.hasAttribute('height')) {
        // The picture is not fetched in the viewer: its box keeps the page's layout.
        const r = el.getBoundingClientRect();
        if (r.width && r.height) out += ' width="' + Math.round(r.width) + '" height="' + Math.round(r.height) + '"';
      }
      // (Scroll events inside a shadow root or a frame's document do not reach the listener: read there.)
      if (scrolledOnly === null || shadows > 0 || el.ownerDocument !== document || scrolledOnly.has(el)) {
        if (el.scrollTop || el.scrollLeft) {
          out += ' data-wdgate-scroll="' + el.scrollLeft + ',' + el.scrollTop + '"';
          scrolled.add(el);
        }
      }
      return out;
    }

    function frame(el, depth) {
      let doc = null;
      try {
        doc = el.contentDocument;
      } catch {
        doc = null;
      }
      const base = '<iframe' + attributes(el);
      if (doc && doc.documentElement && depth < 4) return base + ' srcdoc="' + escapeAttr(documentHtml(doc, depth + 1)) + '"></iframe>';
      // Another origin's document: the gateway snapshots it in its own browsing context.
      const index = [...el.ownerDocument.querySelectorAll('iframe, frame')].indexOf(el);
      if (el.ownerDocument === document && index >= 0) {
        foreign.push(index);
        return base + ' srcdoc="wdgate-frame-' + index + '"></iframe>';
      }
      return base + '></iframe>';
    }

    function node(n, depth) {
      if (truncated) return '';
      let out;
      switch (n.nodeType) {
        case Node.TEXT_NODE: {
          const parent = n.parentNode && n.parentNode.localName;
          out = parent === 'style' ? escapeStyle(n.data) : escapeText(n.data);
          break;
        }
        case Node.COMMENT_NODE:
          return '';
        case Node.ELEMENT_NODE:
          out = element(n, depth);
          break;
        default:
          return '';
      }
      bytes += out.length;
      if (bytes > maxBytes) {
        truncated = true;
        return '';
      }
      return out;
    }

    function children(parent, depth) {
      let out = '';
      for (let c = parent.firstChild; c; c = c.nextSibling) out += node(c, depth);
      return out;
    }

    function element(el, depth) {
      const tag = el.localName;
      if (DROP.has(tag)) return '';
      if (tag === 'meta' && /refresh|content-security-policy/i.test(el.getAttribute('http-equiv') || '')) return '';
      if (tag === 'link') {
        if (!/stylesheet/i.test(el.rel) || !el.sheet) return '';
        const text = sheetText(el.sheet);
        return text ? '<style' + (el.media ? ' media="' + escapeAttr(el.media) + '"' : '') + '>' + escapeStyle(text) + '</style>' : '';
      }
      if (tag === 'style') {
        const text = el.sheet ? sheetText(el.sheet) : el.textContent;
        return '<style' + (el.media ? ' media="' + escapeAttr(el.media) + '"' : '') + '>' + escapeStyle(text || '') + '</style>';
      }
      if (tag === 'iframe' || tag === 'frame') return frame(el, depth);
      if (tag === 'canvas') {
        try {
          if (el.width * el.height <= 4e6) return '<img src="' + el.toDataURL() + '"' + attributes(el) + '>';
        } catch {
          /* a tainted canvas: its box only */
        }
      }
      let out = '<' + tag + attributes(el) + '>';
      if (VOID.has(tag)) return out;
      if (el.shadowRoot) {
        roots.push(el.shadowRoot);
        shadows++;
        out += '<template shadowrootmode="' + el.shadowRoot.mode + '">' + adoptedStyles(el.shadowRoot) + children(el.shadowRoot, depth) + '</template>';
        shadows--;
      }
      if (tag === 'textarea') out += escapeText(el.value);
      else if (tag === 'template') out += children(el.content, depth);
      else out += children(el, depth);
      return out + '</' + tag + '>';
    }

    function documentHtml(doc, depth) {
      const root = doc.documentElement;
      if (!root) return '';
      const head = '<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="' + CSP + '">';
      let html = element(root, depth);
      // Our head first: the policy holds before anything of the page is read.
      html = html.replace(/^<html([^>]*)>(\s*<head([^>]*)>)?/i, (_m, attrs, _h, headAttrs) => '<html' + attrs + '><head' + (headAttrs || '') + '>' + head + (_h ? '' : '</head>'));
      const adopted = adoptedStyles(doc);
      if (adopted) html = html.replace(/<\/head>/i, adopted + '</head>');
      return (doc.doctype ? '<!DOCTYPE ' + doc.doctype.name + '>' : '') + html;
    }

    const html = documentHtml(document, 0);
    return {
      html,
      url: document.URL,
      title: document.title,
      viewport: { width: innerWidth, height: innerHeight, scrollX, scrollY },
      foreign,
      secrets,
      truncated,
    };
  }
}
