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
// the form controls' state, the style sheets' rule counts and the canvases' pictures are compared
// with what was written. So a page that did not change costs one short call and no transfer, and
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
      /** Elements ever scrolled: only their offsets are read (reading every element's costs half a large page's snapshot). */
      scrolled: new WeakSet(),
      /** A snapshot taken whole reads every element's offsets, for what scrolled before the watch began. */
      seeded: false,
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
      if (watch.marked.size + watch.inserted.size > MAX_MARKED) {
        watch.overflow = true;
        watch.marked.clear();
        watch.inserted.clear();
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
      if (r.type === 'childList' && !watch.overflow) for (const n of r.addedNodes) watch.inserted.add(n);
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
      if (whole) {
        watch.generation++;
        watch.seeded = false;
      } else check(watch, Boolean(options && options.full));
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
      watch.seeded = true;
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

  /** The document as a tree of what changed and references to what did not. */
  function write(watch, maxBytes, always) {
    const version = watch.version + 1;
    const generation = watch.generation;
    const secrets = [];
    const foreign = [];
    const versions = new Set();
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

    /** A node counted in this snapshot (after its children): its index. */
    function counted(node, place) {
      const index = count++;
      if (node && !truncated) {
        place.generation = generation;
        place.version = version;
        place.index = index;
        watch.written.set(node, place);
      }
      return index;
    }

    function reference(node, whole) {
      if (whole || path.has(node)) return null;
      const w = watch.written.get(node);
      if (!w || w.generation !== generation) return null;
      versions.add(w.version);
      return [[w.version, w.index]];
    }

    function text(s) {
      bytes += s.length;
      if (bytes > maxBytes) truncated = true;
      count++;
      return s;
    }

    function children(parent, into, whole) {
      for (let c = parent.firstChild; c && !truncated; c = c.nextSibling) {
        const n = visit(c, whole);
        if (n !== undefined) into.push(n);
      }
    }

    function visit(n, whole) {
      if (n.nodeType === 3) return text(n.data);
      if (n.nodeType !== 1) return undefined;
      const ref = reference(n, whole);
      if (ref) return ref;
      return element(n, whole || watch.inserted.has(n));
    }

    /** An element dropped: an empty <template> keeps its place among its siblings. */
    function removed(el) {
      count++;
      return ['template', { 'data-wdgate-removed': el.localName }];
    }

    function element(el, whole) {
      const tag = el.localName;
      if (DROP.has(tag)) return removed(el);
      if (tag === 'meta' && /refresh|content-security-policy|set-cookie/i.test(el.getAttribute('http-equiv') || '')) return removed(el);
      const place = {};
      if (tag === 'link') {
        if (!/stylesheet/i.test(el.rel) || !el.sheet) return removed(el);
        const css = sheetText(el.sheet);
        place.rules = ruleCount(el.sheet);
        place.state = css;
        const node = ['style', el.media ? { media: el.media } : {}];
        if (css) node.push(text(css));
        counted(el, place);
        return node;
      }
      if (tag === 'style') {
        const css = el.sheet ? sheetText(el.sheet) : el.textContent;
        place.rules = el.sheet ? ruleCount(el.sheet) : -1;
        place.state = css;
        const node = ['style', el.media ? { media: el.media } : {}];
        if (css) node.push(text(css));
        counted(el, place);
        return node;
      }
      if (tag === 'canvas') {
        const picture = canvasPicture(el);
        place.state = picture;
        const attrs = attributes(el, place);
        if (picture) attrs.src = picture;
        bytes += picture.length;
        counted(el, place);
        return ['img', attrs];
      }
      const attrs = attributes(el, place);
      const node = [tag, attrs];
      if (tag.includes('-') && !el.matches(':defined')) watch.undefinedElements.add(el);
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
          node.push(['#document', doc.doctype ? { doctype: doc.doctype.name } : {}, inner]);
        } else if (el.ownerDocument === document) {
          // Another origin's: the gateway snapshots it in its own browsing context. Always
          // written again (its content may have changed where no record reaches).
          const index = Array.prototype.indexOf.call(document.querySelectorAll('iframe, frame'), el);
          if (index >= 0) {
            foreign.push(index);
            count++;
            node.push(['#frame', { index: String(index) }]);
          }
        }
        counted(el, place);
        return node;
      }
      if (VOID.has(tag)) {
        counted(el, place);
        return node;
      }
      if (el.shadowRoot) {
        const root = el.shadowRoot;
        watch.observe(root);
        roots.add(root);
        const ref = reference(root, whole);
        if (ref) node.push(ref);
        else {
          shadows++;
          const template = ['template', { shadowrootmode: root.mode }];
          for (const style of adopted(root)) template.push(style);
          children(root, template, whole);
          shadows--;
          counted(root, { adopted: adoptedKey(root.adoptedStyleSheets || [], false) });
          node.push(template);
        }
      }
      if (tag === 'textarea') {
        place.state = el.value;
        if (el.value) node.push(text(el.value));
      } else if (tag === 'template') {
        // A template's content is not in the document (no record reaches it): written whole.
        children(el.content, node, true);
      } else children(el, node, whole);
      if (tag === 'head') {
        place.adopted = adoptedKey(el.ownerDocument.adoptedStyleSheets || [], false);
        for (const style of adopted(el.ownerDocument)) node.push(style);
      }
      counted(el, place);
      return node;
    }

    function adopted(root) {
      const out = [];
      for (const sheet of root.adoptedStyleSheets || []) {
        const css = sheetText(sheet);
        if (css) {
          out.push(['style', { 'data-wdgate-adopted': '' }, text(css)]);
          count++;
        }
      }
      return out;
    }

    function isPassword(el) {
      return el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'password';
    }

    function attributes(el, place) {
      const out = {};
      const tag = el.localName;
      for (const attr of el.attributes) {
        const name = attr.name;
        const value = attr.value;
        if (/^on/i.test(name)) continue;
        if (URL_ATTRIBUTES.has(name.toLowerCase()) && /^\s*javascript:/i.test(value)) continue;
        if (tag === 'input' && (name === 'value' || name === 'checked')) continue; // written from the state below
        if ((tag === 'option' && name === 'selected') || ((tag === 'iframe' || tag === 'frame') && (name === 'src' || name === 'srcdoc'))) continue;
        if (name === 'nonce' || name === 'integrity' || name === 'data-wdgate-scroll' || name === 'data-wdgate-removed') continue;
        out[name] = value;
        bytes += name.length + value.length;
      }
      if (tag === 'input') {
        const type = (el.getAttribute('type') || '').toLowerCase();
        place.state = stateOf(el);
        if (type === 'checkbox' || type === 'radio') {
          if (el.checked) out.checked = '';
          if (el.getAttribute('value') !== null) out.value = el.getAttribute('value');
        } else if (type !== 'file') {
          const value = el.value;
          if (isPassword(el)) {
            if (value) secrets.push(value);
            if (value) out.value = MASK;
          } else if (value) out.value = value;
        }
      }
      if (tag === 'option') {
        place.state = stateOf(el);
        if (el.selected) out.selected = '';
      }
      if (tag === 'img' && !el.hasAttribute('width') && !el.hasAttribute('height')) {
        // The picture is not fetched in the viewer: its box keeps the page's layout.
        const r = el.getBoundingClientRect();
        if (r.width && r.height) {
          out.width = String(Math.round(r.width));
          out.height = String(Math.round(r.height));
        }
      }
      // (Scroll events inside a shadow root do not reach the listener: read there.)
      if (!watch.seeded || shadows > 0 || watch.scrolled.has(el)) {
        if (el.scrollTop || el.scrollLeft) {
          out['data-wdgate-scroll'] = el.scrollLeft + ',' + el.scrollTop;
          watch.scrolled.add(el);
        }
      }
      return out;
    }

    const html = document.documentElement ? visit(document.documentElement, false) : ['html', {}];
    watch.roots = roots;
    watch.version = version;
    const top = watch.written.get(document.documentElement);
    watch.root = top && top.generation === generation ? [top.version, top.index] : null;
    const tree = { doctype: document.doctype ? document.doctype.name : undefined, html };
    return {
      tree: JSON.stringify(tree),
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
