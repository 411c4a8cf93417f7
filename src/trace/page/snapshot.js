// The trace's page code, a library the backend binds each call to (../capture.ts). It runs in the
// gateway's own world beside the page's (an isolated world, a sandbox: CallOptions.isolated), so
// the page's scripts never see it and nothing it uses is theirs: a page that replaces
// addEventListener or MutationObserver changes nothing here, and what it keeps (on the document,
// on nodes) exists only in this world.
//
// A snapshot costs what changed (issue 38, as Playwright's snapshotter): a node written in an
// earlier snapshot of this document and unchanged since is written as a reference into it,
// `[[version, index]]` (its place in that snapshot's nodes, counted after their children:
// docs/traces.md, "Snapshots"). What changed is known without reading the page again: a
// MutationObserver (the document, its open shadow roots, same-origin frames' documents) and
// input, change, toggle, load and scroll events mark the nodes they touch; before each snapshot
// the form controls' state, the style sheets' rule counts, custom elements defined since and the
// canvases' pictures are compared with what was written. So a page that did not change costs one short call and no transfer, and
// one that changed pays for what changed, its ancestors and the checks.
//
// A snapshot writes the document as a node tree (a text, or [tag, attributes, ...children]) that
// shows the page as it is now, with nothing that could run or fetch: scripts, event handler
// attributes, <base>, refresh and javascript: URLs go (an element dropped leaves an empty
// <template> in its place, so that elements keep their positions); every style sheet (link,
// style, CSSOM-inserted rules, adopted sheets) is inlined as <style>; form state becomes markup;
// open shadow roots become declarative shadow DOM; same-origin frames' documents are inlined, and
// other frames are left as placeholders the gateway fills with their own snapshot. Values of
// password fields are never written: they are answered separately, so the gateway can also scrub
// them from the rest of the trace.
function wdgateTraceLibrary() {
  'use strict';
  // The document's watch is kept on the document (in this world): a backend may compile its own
  // copy of the library for a document's first call, and every copy must share it.
  const KEY = '__wdgate_trace';
  const OBSERVED = { subtree: true, childList: true, attributes: true, characterData: true };
  /** Changes remembered between two snapshots before the next one is simply taken whole. */
  const MAX_MARKED = 20000;
  const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
  const DROP = new Set(['script', 'noscript', 'base', 'object', 'embed', 'applet', 'portal']);
  const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'data']);
  const MASK = '\u2022\u2022\u2022\u2022\u2022\u2022\u2022\u2022';

  function watchOf() {
    if (Object.prototype.hasOwnProperty.call(document, KEY)) return document[KEY];
    const watch = {
      /** This document's watch (a new document gets a new one). */
      id: Math.random().toString(36).slice(2),
      /** The last snapshot taken. */
      version: 0,
      /** Nodes' cached places are valid only in this generation (a snapshot taken whole starts a new one). */
      generation: 0,
      /** Where each node was last written: { generation, version, index, state, sheet }, by node. */
      written: new WeakMap(),
      /** Nodes changed since the last snapshot (their own attributes, children or state). */
      marked: new Set(),
      /** Nodes inserted since: written whole (they may have changed while they were out of the document). */
      inserted: new Set(),
      /** Too many changes to remember: the next snapshot is taken whole. */
      overflow: false,
      /** When the page first changed since the last snapshot (Date.now(); 0: it did not). */
      changedAt: 0,
      fingerprint: '',
      /** Elements ever scrolled (scroll events say which): only their offsets are read. */
      scrolled: new WeakSet(),
      /** Roots observed (the document, shadow roots, frames' documents) and windows listened to. */
      observing: new WeakSet(),
      listening: new WeakSet(),
      /** Same-origin frames' documents and open shadow roots written in the last snapshot (their form controls and sheets are checked too). */
      roots: new Set(),
      /** The document element's place in the last snapshot. */
      root: null,
      /** Custom elements written before their definition: an upgrade may attach a shadow root (no record says so). */
      undefinedElements: new Set(),
      observer: null,
    };
    const mark = (node) => {
      if (!watch.changedAt) watch.changedAt = Date.now();
      if (watch.overflow || !node) return;
      watch.marked.add(node);
      watch.bound();
    };
    watch.bound = () => {
      if (watch.marked.size + watch.inserted.size > MAX_MARKED) {
        // The next snapshot is taken whole: until then, records are not worth their cost (a page
        // animating through its DOM while the session waits). It observes again as it walks.
        watch.overflow = true;
        watch.marked.clear();
        watch.inserted.clear();
        watch.observer.disconnect();
        watch.observing = new WeakSet();
      }
    };
    watch.mark = mark;
    watch.observer = new MutationObserver((records) => taken(watch, records));
    watch.listen = (win) => {
      if (watch.listening.has(win)) return;
      watch.listening.add(win);
      const target = (event) => (event.composedPath ? event.composedPath()[0] : event.target);
      for (const type of ['input', 'change', 'toggle', 'load']) win.addEventListener(type, (event) => mark(target(event)), { capture: true, passive: true });
      win.addEventListener(
        'scroll',
        (event) => {
          const t = target(event);
          const el = t && t.nodeType === 9 ? t.scrollingElement || t.documentElement : t;
          watch.scrolled.add(el);
          mark(el);
        },
        { capture: true, passive: true },
      );
    };
    watch.observe = (root) => {
      if (watch.observing.has(root)) return;
      watch.observing.add(root);
      watch.observer.observe(root, OBSERVED);
    };
    watch.observe(document);
    watch.listen(window);
    Object.defineProperty(document, KEY, { value: watch, enumerable: false, configurable: true });
    return watch;
  }

  /** Mutation records: the nodes they touched are marked; inserted ones are written whole. */
  function taken(watch, records) {
    for (const r of records) {
      if (r.type === 'characterData') watch.mark(r.target.parentNode);
      else watch.mark(r.target);
      if (r.type === 'childList' && !watch.overflow) {
        for (const n of r.addedNodes) watch.inserted.add(n);
        watch.bound();
      }
    }
  }

  const where = () => location.href + ' ' + innerWidth + 'x' + innerHeight + ' ' + scrollX + ',' + scrollY;

  /** Whether the document may look different from snapshot `since` of it. */
  function changed(watch, since) {
    taken(watch, watch.observer.takeRecords());
    return !since || since.id !== watch.id || since.version !== watch.version || watch.overflow || watch.marked.size > 0 || watch.inserted.size > 0 || where() !== watch.fingerprint;
  }

  return {
    /**
     * The document's snapshot: a tree in which what was written in snapshot `since` ({ id,
     * version }: the gateway's last one of this document) and did not change since is a
     * reference; or `{ unchanged }` when nothing changed since it. Without `since` (or when it is
     * not this document's last) the snapshot is taken whole. `full` (after a client's script):
     * the style sheets' texts are compared too, and every element is looked at for a shadow root
     * attached since (neither is reported by any record or event).
     */
    snapshot(options) {
      const watch = watchOf();
      const since = options && options.since;
      const whole = !since || since.id !== watch.id || since.version !== watch.version || watch.overflow;
      taken(watch, watch.observer.takeRecords());
      if (whole) watch.generation++;
      else check(watch, Boolean(options && options.full));
      // Frames of another origin: the gateway snapshots each in its own browsing context, and no
      // record reaches their changes, so their elements are written each time (a placeholder).
      const foreign = Array.prototype.filter.call(document.querySelectorAll('iframe, frame'), (frame) => contentOf(frame) === null);
      if (!whole && foreign.length === 0 && watch.marked.size === 0 && watch.inserted.size === 0 && where() === watch.fingerprint) {
        return { unchanged: true, id: watch.id, version: watch.version, root: watch.root, changedAt: watch.changedAt };
      }
      const changedAt = watch.changedAt;
      const result = write(watch, (options && options.maxBytes) || 4 * 1024 * 1024, foreign);
      watch.marked.clear();
      watch.inserted.clear();
      watch.overflow = false;
      watch.changedAt = 0;
      watch.fingerprint = where();
      result.changedAt = changedAt;
      return result;
    },
    /** Whether the document may have changed since snapshot `since` (a picture taken meanwhile shows it or not). */
    changedSince(since) {
      return changed(watchOf(), since);
    },
  };

  /**
   * Before a snapshot: what no record or event reports, compared with what was written — form
   * controls' state, style sheets' rule counts (their texts too when `full`), adopted sheets,
   * canvases' pictures, frames' documents. What differs is marked.
   */
  function check(watch, full) {
    for (const el of watch.undefinedElements) {
      if (!el.isConnected || el.matches(':defined')) {
        watch.undefinedElements.delete(el);
        if (el.isConnected) watch.mark(el);
      }
    }
    const roots = [document, ...watch.roots];
    for (const root of roots) {
      if (root.nodeType === 9 && !root.defaultView) {
        watch.roots.delete(root);
        continue;
      }
      const all = (tag) => (root.nodeType === 9 ? root.getElementsByTagName(tag) : root.querySelectorAll(tag));
      for (const tag of ['input', 'textarea', 'option']) {
        for (const el of all(tag)) {
          const w = watch.written.get(el);
          if (w && w.generation === watch.generation && w.state !== stateOf(el)) watch.mark(el);
        }
      }
      for (const el of all('canvas')) {
        const w = watch.written.get(el);
        if (w && w.generation === watch.generation && w.state !== canvasPicture(el)) watch.mark(el);
      }
      for (const sheet of root.styleSheets || []) {
        const owner = sheet.ownerNode;
        const w = owner && watch.written.get(owner);
        if (!w || w.generation !== watch.generation) continue;
        if (w.rules !== ruleCount(sheet) || (full && w.state !== sheetText(sheet))) watch.mark(owner);
      }
      const adopted = root.adoptedStyleSheets || [];
      const holder = root.nodeType === 9 ? root.head : root;
      const w = holder && watch.written.get(holder);
      if (w && w.generation === watch.generation && w.adopted !== undefined && w.adopted !== adoptedKey(adopted, full)) watch.mark(holder);
      for (const frame of all('iframe')) checkFrame(watch, frame);
      for (const frame of all('frame')) checkFrame(watch, frame);
      // A script may have attached a shadow root to any element (no record says so): after one, every element is looked at.
      if (full) {
        for (const el of all('*')) {
          const w = el.shadowRoot && watch.written.get(el);
          if (w && w.generation === watch.generation && !watch.observing.has(el.shadowRoot)) watch.mark(el);
        }
      }
    }
  }

  /** A frame whose document is not the one written (it navigated, or is of another origin) is marked. */
  function checkFrame(watch, frame) {
    const w = watch.written.get(frame);
    if (!w || w.generation !== watch.generation) return;
    if (w.document !== contentOf(frame)) watch.mark(frame);
  }

  function contentOf(frame) {
    try {
      return frame.contentDocument || null;
    } catch {
      return null;
    }
  }

  function stateOf(el) {
    const tag = el.localName;
    if (tag === 'option') return el.selected ? '1' : '0';
    if (tag === 'textarea') return el.value;
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (type === 'checkbox' || type === 'radio') return el.checked ? '1' : '0';
    return type === 'file' ? '' : el.value;
  }

  function canvasPicture(el) {
    try {
      return el.width * el.height <= 4e6 ? el.toDataURL() : '';
    } catch {
      return ''; // a tainted canvas: its box only
    }
  }

  function ruleCount(sheet) {
    try {
      return sheet.cssRules.length;
    } catch {
      return -1; // a cross-origin sheet cannot be read
    }
  }

  function sheetText(sheet) {
    try {
      let text = '';
      for (const rule of sheet.cssRules) text += rule.cssText + '\n';
      return text;
    } catch {
      return null;
    }
  }

  function adoptedKey(sheets, full) {
    let key = '';
    for (const sheet of sheets) key += ruleCount(sheet) + (full ? ':' + sheetText(sheet) : '') + ';';
    return key;
  }

  /**
   * The document as a tree of what changed and references to what did not, written as JSON text
   * as it is walked (no tree of objects built first: a large page's first snapshot is a third
   * cheaper so).
   */
  function write(watch, maxBytes, always) {
    const version = watch.version + 1;
    const generation = watch.generation;
    const secrets = [];
    const foreign = [];
    const versions = new Set();
    const q = JSON.stringify;
    let count = 0;
    let bytes = 0;
    let truncated = false;
    let shadows = 0;
    // The nodes to write: those marked or inserted, and every ancestor of one (across shadow roots and frames).
    const path = new Set();
    for (const set of [watch.marked, watch.inserted, always]) {
      for (const start of set) {
        for (let n = start; n && !path.has(n); n = up(n)) path.add(n);
      }
    }
    const roots = new Set();
    watch.observe(document);

    function up(n) {
      if (n.parentNode) return n.parentNode;
      if (n.nodeType === 11 && n.host) return n.host;
      if (n.nodeType === 9 && n !== document) {
        try {
          return n.defaultView && n.defaultView.frameElement;
        } catch {
          return null;
        }
      }
      return null;
    }

    /** A node counted in this snapshot (after its children), its place kept for later references. */
    function counted(node, place) {
      const index = count++;
      if (!truncated) {
        place.generation = generation;
        place.version = version;
        place.index = index;
        watch.written.set(node, place);
      }
    }

    function reference(node, whole) {
      if (whole || path.has(node)) return null;
      const w = watch.written.get(node);
      if (w === undefined || w.generation !== generation) return null;
      versions.add(w.version);
      return '[[' + w.version + ',' + w.index + ']]';
    }

    function text(s) {
      bytes += s.length;
      if (bytes > maxBytes) truncated = true;
      count++;
      return q(s);
    }

    /** The children of `parent` after `out` (the element so far): each as ",node". */
    function children(parent, out, whole) {
      for (let c = parent.firstChild; c !== null && !truncated; c = c.nextSibling) {
        const n = visit(c, whole);
        if (n !== undefined) out += ',' + n;
      }
      return out;
    }

    function visit(n, whole) {
      const type = n.nodeType;
      if (type === 3) return text(n.data);
      if (type !== 1) return undefined;
      const ref = reference(n, whole);
      if (ref !== null) return ref;
      return element(n, whole || watch.inserted.has(n));
    }

    /** An element dropped: an empty <template> keeps its place among its siblings. */
    function removed(el) {
      count++;
      return '["template",{"data-wdgate-removed":' + q(el.localName) + '}]';
    }

    function styleNode(el, sheet, css, place) {
      place.rules = sheet ? ruleCount(sheet) : -1;
      place.state = css;
      let out = '["style",' + (el.media ? '{"media":' + q(el.media) + '}' : '{}');
      if (css) out += ',' + text(css);
      counted(el, place);
      return out + ']';
    }

    function element(el, whole) {
      const tag = el.localName;
      if (DROP.has(tag)) return removed(el);
      if (tag === 'meta' && /refresh|content-security-policy|set-cookie/i.test(el.getAttribute('http-equiv') || '')) return removed(el);
      const place = {};
      if (tag === 'link') {
        if (!/stylesheet/i.test(el.rel) || !el.sheet) return removed(el);
        return styleNode(el, el.sheet, sheetText(el.sheet), place);
      }
      if (tag === 'style') return styleNode(el, el.sheet, el.sheet ? sheetText(el.sheet) : el.textContent, place);
      if (tag === 'canvas') {
        const picture = canvasPicture(el);
        place.state = picture;
        let attrs = attributes(el, place);
        if (picture) attrs += (attrs.length > 1 ? ',' : '') + '"src":' + q(picture);
        bytes += picture.length;
        counted(el, place);
        return '["img",' + attrs + '}]';
      }
      if (tag.includes('-') && !el.matches(':defined')) watch.undefinedElements.add(el);
      let out = '[' + q(tag) + ',' + attributes(el, place) + '}';
      if (tag === 'iframe' || tag === 'frame') {
        const doc = contentOf(el);
        place.document = doc;
        if (doc && doc.documentElement) {
          // A same-origin frame's document: written here, watched as this one is.
          watch.observe(doc);
          if (doc.defaultView) watch.listen(doc.defaultView);
          roots.add(doc);
          const inner = visit(doc.documentElement, whole);
          count++;
          out += ',["#document",' + (doc.doctype ? '{"doctype":' + q(doc.doctype.name) + '}' : '{}') + ',' + inner + ']';
        } else if (el.ownerDocument === document) {
          // Another origin's: the gateway snapshots it in its own browsing context. Always
          // written again (its content may have changed where no record reaches).
          const index = Array.prototype.indexOf.call(document.querySelectorAll('iframe, frame'), el);
          if (index >= 0) {
            foreign.push(index);
            count++;
            out += ',["#frame",{"index":"' + index + '"}]';
          }
        }
        counted(el, place);
        return out + ']';
      }
      if (VOID.has(tag)) {
        counted(el, place);
        return out + ']';
      }
      const root = el.shadowRoot;
      if (root) {
        watch.observe(root);
        roots.add(root);
        const ref = reference(root, whole);
        if (ref !== null) out += ',' + ref;
        else {
          shadows++;
          let template = '["template",{"shadowrootmode":' + q(root.mode) + '}';
          for (const style of adopted(root)) template += ',' + style;
          template = children(root, template, whole);
          shadows--;
          counted(root, { adopted: adoptedKey(root.adoptedStyleSheets || [], false) });
          out += ',' + template + ']';
        }
      }
      if (tag === 'textarea') {
        place.state = el.value;
        if (el.value) out += ',' + text(el.value);
      } else if (tag === 'template') {
        // A template's content is not in the document (no record reaches it): written whole.
        out = children(el.content, out, true);
      } else out = children(el, out, whole);
      if (tag === 'head') {
        place.adopted = adoptedKey(el.ownerDocument.adoptedStyleSheets || [], false);
        for (const style of adopted(el.ownerDocument)) out += ',' + style;
      }
      counted(el, place);
      return out + ']';
    }

    function adopted(root) {
      const out = [];
      for (const sheet of root.adoptedStyleSheets || []) {
        const css = sheetText(sheet);
        if (css) {
          out.push('["style",{"data-wdgate-adopted":""},' + text(css) + ']');
          count++;
        }
      }
      return out;
    }

    /** The element's attributes as a JSON object, its closing brace left to the caller. */
    function attributes(el, place) {
      let out = '{';
      const tag = el.localName;
      const list = el.attributes;
      for (let i = 0; i < list.length; i++) {
        const attr = list[i];
        const name = attr.name;
        const value = attr.value;
        const c = name.charCodeAt(0);
        if ((c === 111 || c === 79) && (name.charCodeAt(1) === 110 || name.charCodeAt(1) === 78)) continue; // on…: an event handler
        if (URL_ATTRIBUTES.has(name.toLowerCase()) && /^\s*javascript:/i.test(value)) continue;
        if (tag === 'input' && (name === 'value' || name === 'checked')) continue; // written from the state below
        if ((tag === 'option' && name === 'selected') || ((tag === 'iframe' || tag === 'frame') && (name === 'src' || name === 'srcdoc'))) continue;
        if (name === 'nonce' || name === 'integrity' || name === 'data-wdgate-scroll' || name === 'data-wdgate-removed') continue;
        out += (out.length > 1 ? ',' : '') + q(name) + ':' + q(value);
        bytes += name.length + value.length;
      }
      const add = (name, value) => (out += (out.length > 1 ? ',' : '') + '"' + name + '":' + q(value));
      if (tag === 'input') {
        const type = (el.getAttribute('type') || '').toLowerCase();
        place.state = stateOf(el);
        if (type === 'checkbox' || type === 'radio') {
          if (el.checked) add('checked', '');
          if (el.getAttribute('value') !== null) add('value', el.getAttribute('value'));
        } else if (type !== 'file') {
          const value = el.value;
          if (type === 'password') {
            if (value) secrets.push(value);
            if (value) add('value', MASK);
          } else if (value) add('value', value);
        }
      }
      if (tag === 'option') {
        place.state = stateOf(el);
        if (el.selected) add('selected', '');
      }
      if (tag === 'img' && !el.hasAttribute('width') && !el.hasAttribute('height')) {
        // The picture is not fetched in the viewer: its box keeps the page's layout.
        const r = el.getBoundingClientRect();
        if (r.width && r.height) {
          add('width', String(Math.round(r.width)));
          add('height', String(Math.round(r.height)));
        }
      }
      // Only elements known to have scrolled are read (every element's offsets cost a large page's
      // snapshot a third): scroll events say which; inside a shadow root they do not reach the listener.
      if (shadows > 0 || watch.scrolled.has(el)) {
        if (el.scrollTop || el.scrollLeft) {
          add('data-wdgate-scroll', el.scrollLeft + ',' + el.scrollTop);
          watch.scrolled.add(el);
        }
      }
      return out;
    }

    // The document's own scroll is read on every snapshot taken whole (the first of a document
    // among them); other elements' once they scroll.
    if (document.scrollingElement && (document.scrollingElement.scrollTop || document.scrollingElement.scrollLeft)) watch.scrolled.add(document.scrollingElement);
    const html = document.documentElement ? visit(document.documentElement, false) : '["html",{}]';
    watch.roots = roots;
    watch.version = version;
    const top = watch.written.get(document.documentElement);
    watch.root = top && top.generation === generation ? [top.version, top.index] : null;
    return {
      tree: '{' + (document.doctype ? '"doctype":' + q(document.doctype.name) + ',' : '') + '"html":' + html + '}',
      versions: Array.from(versions),
      url: document.URL,
      title: document.title,
      viewport: { width: innerWidth, height: innerHeight, scrollX, scrollY },
      foreign,
      secrets,
      truncated,
      id: watch.id,
      version,
      root: watch.root,
    };
  }
}
