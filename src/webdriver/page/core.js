// ── core.js: runs inside the page (concatenated into one function by page/index.ts). ──────────
// Element references, errors, and the spec's JSON clone / deserialize (§12 "Elements",
// §13.2.1 "Execute Script"). Every other page file adds operations to OPS and may use these.
// In scope: OPS (the operations table), wdgateOp / wdgateArgs / wdgateUserFunction.

const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';
const SHADOW_KEY = 'shadow-6066-11e4-a52e-4f735466cecf';
const WINDOW_KEY = 'window-fcc6-11e5-b4f8-330a88ab9d7f';
const FRAME_KEY = 'frame-075b-4da1-b6ba-e579c2d3230a';
// Per-document reference cache, as chromedriver keeps one on the document: a new document
// (navigation) starts a new cache, so a reference from the old one is a comparison away from stale.
const CACHE_KEY = '__wdgate_references';

class WdError {
  constructor(code, message, data) {
    this.code = code;
    this.message = message;
    this.data = data;
  }
}

function fail(code, message, data) {
  throw new WdError(code, message, data);
}

function referenceCache(create) {
  let cache = document[CACHE_KEY];
  if (!cache && create) {
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    cache = {
      doc: Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(''),
      next: 0,
      byId: new Map(),
      byNode: new WeakMap(),
    };
    Object.defineProperty(document, CACHE_KEY, { value: cache, enumerable: false, configurable: true });
  }
  return cache;
}

/** The web element (or shadow root) reference for a node, the same one every time. */
function referenceFor(node) {
  const cache = referenceCache(true);
  let id = cache.byNode.get(node);
  if (!id) {
    id = `${cache.doc}.${++cache.next}`;
    cache.byNode.set(node, id);
    cache.byId.set(id, new WeakRef(node));
  }
  return id;
}

/** Spec "get a known element" / "get a known shadow root": the node, or the right error. */
function getKnownNode(id, kind) {
  const what = kind === 'shadow root' ? 'shadow root' : 'element';
  if (typeof id !== 'string') fail('invalid argument', `${what} reference must be a string`);
  const cache = referenceCache(false);
  // A BiDi shared id the gateway adopted for this document (OPS.adoptSharedId).
  const adopted = cache?.shared?.get(id);
  if (adopted) {
    const node = adopted.deref();
    if (!node || !node.isConnected) fail(kind === 'shadow root' ? 'detached shadow root' : 'stale element reference', `the ${what} with reference ${id} is no longer attached to the document`);
    return node;
  }
  const doc = id.slice(0, Math.max(0, id.indexOf('.')));
  if (!cache || cache.doc !== doc) {
    // Maybe a document of this session that is gone: the gateway decides (stale or unknown).
    fail(kind === 'shadow root' ? 'no such shadow root' : 'no such element', `no ${what} with reference ${id} in the current browsing context`, {
      foreignDocument: doc,
    });
  }
  const node = cache.byId.get(id)?.deref();
  if (!cache.byId.has(id)) fail(kind === 'shadow root' ? 'no such shadow root' : 'no such element', `no ${what} with reference ${id}`);
  if (!node || !node.isConnected) {
    fail(
      kind === 'shadow root' ? 'detached shadow root' : 'stale element reference',
      `the ${what} with reference ${id} is no longer attached to the document`,
    );
  }
  return node;
}

function getKnownElement(id) {
  const node = getKnownNode(id, 'element');
  if (!(node instanceof Element)) fail('no such element', `reference ${id} is not an element`);
  return node;
}

function getKnownShadowRoot(id) {
  const node = getKnownNode(id, 'shadow root');
  if (!(node instanceof ShadowRoot)) fail('no such shadow root', `reference ${id} is not a shadow root`);
  return node;
}

function elementReference(element) {
  return { [ELEMENT_KEY]: referenceFor(element) };
}

/** document.all: no HTMLCollection, but a collection all the same. */
const isAllCollection = (value) => Object.prototype.toString.call(value) === '[object HTMLAllCollection]';

function isCollection(value) {
  return (
    Array.isArray(value) ||
    value instanceof NodeList ||
    value instanceof HTMLCollection ||
    value instanceof FileList ||
    isAllCollection(value) ||
    Object.prototype.toString.call(value) === '[object Arguments]'
  );
}

/** Spec "JSON clone" (internal JSON clone): page values → JSON with web element references. */
function jsonClone(value, seen = new Set()) {
  // document.all is == null and typeof "undefined" (and the minifier writes == null): tell it apart first.
  if (!isAllCollection(value) && (value === undefined || value === null)) return null;
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      fail('javascript error', 'a BigInt cannot be serialized');
    case 'symbol':
      return null;
  }
  if (value instanceof Element || value instanceof Document) {
    if (!value.isConnected) fail('stale element reference', 'the element is no longer attached to the document');
    return elementReference(value);
  }
  if (value instanceof ShadowRoot) {
    if (!value.isConnected) fail('detached shadow root', 'the shadow root is no longer attached to the document');
    return { [SHADOW_KEY]: referenceFor(value) };
  }
  // Spec "WindowProxy reference object": the gateway fills it in (see windowRefs).
  if (isWindowProxy(value)) {
    windowRefs.push({ path: clonePath.slice(), ...locateWindow(value) });
    return null;
  }
  if (seen.has(value)) fail('javascript error', 'cyclic object value');
  seen.add(value);
  try {
    if (isCollection(value)) return Array.from(value, (item, i) => cloneMember(i, item, seen));
    // Spec: an own toJSON only (a Date is cloned as an object, as chromedriver does).
    if (Object.prototype.hasOwnProperty.call(value, 'toJSON') && typeof value.toJSON === 'function') return value.toJSON();
    // Spec "clone an object": every enumerable property, inherited ones too (a File's name,
    // size and type are attributes of its prototype).
    const out = {};
    for (const key in value) out[key] = cloneMember(key, value[key], seen);
    return out;
  } finally {
    seen.delete(value);
  }
}

function cloneMember(key, value, seen) {
  clonePath.push(key);
  try {
    return jsonClone(value, seen);
  } finally {
    clonePath.pop();
  }
}

// ── Window and frame references (spec "WindowProxy reference object", "deserialize a web
// frame / web window") ─────────────────────────────────────────────────────────────────────
// The page knows no window handles or frame ids, the gateway knows no WindowProxy objects. A
// window is located from the current window: `up` parents, then `down` child indices
// (window.frames[i], which works across origins too); a top-level window of another tab by a
// token set on it (same origin only), then `down`. jsonClone leaves null where a WindowProxy
// was and lists it in windowRefs with its JSON path; the gateway puts the reference there (an
// op whose value is a jsonClone result gets this for free). Arguments come the other way:
// wdgateArgs.references maps each frame id / window handle to its location.
const WINDOW_TOKEN_KEY = '__wdgate_window_token';
const windowRefs = [];
const clonePath = [];

/** A WindowProxy, same-origin or not (only a few properties are readable across origins). */
function isWindowProxy(value) {
  try {
    return typeof value === 'object' && value !== null && value.window === value && value.self === value && typeof value.closed === 'boolean';
  } catch {
    return false;
  }
}

/** Child indices from `root` down to `target` (window.frames order), or null. */
function framePath(root, target) {
  for (let i = 0; i < root.length; i++) {
    const child = root.frames[i];
    if (child === target) return [i];
    const below = framePath(child, target);
    if (below) return [i, ...below];
  }
  return null;
}

function locateWindow(target) {
  // A removed frame or a closed window: its browsing context is no longer open.
  if (target.closed) fail('no such window', 'the window or frame is no longer open');
  if (target.top === window.top) {
    // Nearest first: the current window, its descendants, then each ancestor and theirs.
    for (let ancestor = window, up = 0; ; ancestor = ancestor.parent, up++) {
      const down = ancestor === target ? [] : framePath(ancestor, target);
      if (down) return { up, down };
      if (ancestor === ancestor.parent) break;
    }
    fail('unknown error', 'cannot identify this frame: it is not among window.frames (a frame in a shadow tree?)');
  }
  // A window of another tab (window.open's result, an opener): its top-level window carries a token.
  const top = target.top;
  const down = top === target ? [] : framePath(top, target);
  let token = null;
  try {
    token = top[WINDOW_TOKEN_KEY] ?? Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
    Object.defineProperty(top, WINDOW_TOKEN_KEY, { value: token, configurable: true });
  } catch {
    token = null; // cross-origin: not identifiable from here
  }
  return { token, down: down ?? [] };
}

/** The WindowProxy at a location the gateway resolved (a reference given as an argument). */
function windowAt(where) {
  let target = window;
  if (where.token !== undefined) {
    // Another tab's window: reachable from here only as an opener.
    target = [window.top.opener, window.opener].find((candidate) => {
      try {
        return candidate && candidate[WINDOW_TOKEN_KEY] === where.token;
      } catch {
        return false;
      }
    });
    if (!target) fail('no such window', 'that window is open but not reachable from the current browsing context (only an opener is)');
  } else {
    for (let i = 0; i < where.up; i++) target = target.parent;
  }
  for (const index of where.down) {
    if (!(index < target.length)) fail('no such frame', 'the frame is no longer open');
    target = target.frames[index];
  }
  return target;
}

function referencedWindow(kind, id) {
  const table = wdgateArgs?.references?.[kind];
  if (typeof id !== 'string' || !table || !Object.hasOwn(table, id)) {
    fail(kind === 'frame' ? 'no such frame' : 'no such window', `no ${kind} with reference ${id}`);
  }
  return windowAt(table[id]);
}

/** Spec "JSON deserialize": web element, shadow root, web frame and web window references → objects. */
function jsonDeserialize(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(jsonDeserialize);
  if (Object.hasOwn(value, ELEMENT_KEY)) return getKnownElement(value[ELEMENT_KEY]);
  if (Object.hasOwn(value, SHADOW_KEY)) return getKnownShadowRoot(value[SHADOW_KEY]);
  if (Object.hasOwn(value, FRAME_KEY)) return referencedWindow('frame', value[FRAME_KEY]);
  if (Object.hasOwn(value, WINDOW_KEY)) return referencedWindow('window', value[WINDOW_KEY]);
  const out = {};
  for (const key of Object.keys(value)) out[key] = jsonDeserialize(value[key]);
  return out;
}

/**
 * The part of this window's viewport that shows the document: the viewport less its scroll bars
 * (CSSOM: the root element's client size; the body's in quirks mode). A point under a scroll
 * bar hits the scroll bar, not the page.
 */
function visibleViewport() {
  const root = document.compatMode === 'BackCompat' ? document.body : document.documentElement;
  if (!root || (root.clientWidth === 0 && root.clientHeight === 0)) return { width: innerWidth, height: innerHeight };
  return { width: root.clientWidth, height: root.clientHeight };
}

function describeException(e) {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  try {
    return `uncaught ${typeof e === 'object' ? JSON.stringify(e) : String(e)}`;
  } catch {
    return String(e);
  }
}

// ── Execute Script (spec §13.2) ─────────────────────────────────────────────────────────────
// wdgateArgs: { args, async, references }. The user's function body is wdgateUserFunction.
OPS.executeScript = async function ({ args, async }) {
  const parameters = jsonDeserialize(args);
  let result;
  try {
    // `await` works in both commands, as in chromedriver: the body may be an async function's
    // (see executeDeclaration). A returned thenable is waited for (spec).
    if (!async) {
      result = await wdgateUserFunction.apply(window, parameters);
    } else {
      const asyncBody = Object.prototype.toString.call(wdgateUserFunction) === '[object AsyncFunction]';
      result = await new Promise((resolve, reject) => {
        // The callback settles the script; so does a returned thenable (spec). An async body
        // always returns a promise: its end settles the script only with a value (or a throw).
        const returned = wdgateUserFunction.apply(window, [...parameters, resolve]);
        if (returned !== null && typeof returned === 'object' && typeof returned.then === 'function') {
          returned.then((value) => {
            if (!asyncBody || value !== undefined) resolve(value);
          }, reject);
        }
      });
    }
  } catch (e) {
    fail('javascript error', describeException(e));
  }
  return jsonClone(result);
};

/**
 * A BiDi session names nodes by shared ids (the BiDi mapper's); classic commands may use them
 * (WebDriver BiDi: one id per node for both). The gateway resolves one to its node and records
 * it here, for this document.
 */
OPS.adoptSharedId = ([node, id]) => {
  const cache = referenceCache(true);
  cache.shared ??= new Map();
  cache.shared.set(id, new WeakRef(node));
  return null;
};

/** The node of one of our references (for the gateway to name it to a BiDi session). */
OPS.nodeOf = ([id]) => getKnownNode(id, 'element');

// ── Notes for the gateway's observers (src/webdriver/seam.ts, PageNotes) ────────────────────
// Asked for (args.notes) only while some observer keeps the session's content (a trace): what
// an operation saw as it ran, reported in the same call, so that nobody asks the page again —
// where an element was right before it was acted on, and whether the page changed while a find
// waited for it.
let notes = null;

/** An element about to be acted on (before any scrolling): its place, as the notes say it. */
function noteTarget(id, element) {
  if (!notes) return;
  noteViewport();
  notes.targets ??= {};
  if (!notes.targets[id]) notes.targets[id] = targetOf(element);
}

/** The top-level viewport and its scroll (a frame's element is placed in it): unknown past another origin. */
function noteViewport() {
  if (!notes || notes.viewport !== undefined) return;
  try {
    const top = window.top;
    notes.viewport = { width: top.innerWidth, height: top.innerHeight, scrollX: top.scrollX, scrollY: top.scrollY };
  } catch {
    notes.viewport = null;
  }
}

function notePageChanged() {
  if (notes) notes.pageChanged = true;
}

/**
 * The element's border box and the in-view center point of its first box (spec §12.4.1; an
 * element out of view: its box's center, where a click scrolls it to) in the top-level
 * viewport's CSS px (same-origin frames' offsets added; null past a frame of another origin),
 * and, for an element of the top-level document's light DOM, its path from <html>: the position
 * (from 1) among its parent's element children at each level.
 */
function targetOf(el) {
  let dx = 0;
  let dy = 0;
  for (let w = el.ownerDocument.defaultView; w && w !== window.top; w = w.parent) {
    let frame = null;
    try {
      frame = w.frameElement;
    } catch {
      frame = null;
    }
    if (!frame) return null; // a frame of another origin between: its place is not ours to know
    const r = frame.getBoundingClientRect();
    const style = frame.ownerDocument.defaultView.getComputedStyle(frame);
    dx += r.x + frame.clientLeft + parseFloat(style.paddingLeft || '0');
    dy += r.y + frame.clientTop + parseFloat(style.paddingTop || '0');
  }
  // The border box as the union of the element's boxes (what getBoundingClientRect answers),
  // from the call an interaction makes anyway.
  const rects = Array.from(el.getClientRects());
  const drawn = rects.filter((r) => r.width > 0 || r.height > 0);
  const box = drawn.length
    ? drawn.reduce((u, r) => {
        const x = Math.min(u.x, r.x);
        const y = Math.min(u.y, r.y);
        return { x, y, width: Math.max(u.x + u.width, r.x + r.width) - x, height: Math.max(u.y + u.height, r.y + r.height) - y };
      }, { x: drawn[0].x, y: drawn[0].y, width: drawn[0].width, height: drawn[0].height })
    : rects[0] || { x: 0, y: 0, width: 0, height: 0 };
  const first = rects.find((r) => r.width > 0 && r.height > 0) || rects[0] || { left: box.x, top: box.y, right: box.x + box.width, bottom: box.y + box.height, width: box.width, height: box.height };
  const view = el.ownerDocument.defaultView;
  const left = Math.max(0, first.left);
  const right = Math.min(view.innerWidth, first.right);
  const top = Math.max(0, first.top);
  const bottom = Math.min(view.innerHeight, first.bottom);
  const inView = right > left && bottom > top;
  const center = inView ? { x: (left + right) / 2, y: (top + bottom) / 2 } : { x: first.left + first.width / 2, y: first.top + first.height / 2 };
  const round = (n) => Math.round(n * 100) / 100;
  const target = {
    box: { x: round(box.x + dx), y: round(box.y + dy), width: round(box.width), height: round(box.height) },
    center: { x: Math.floor(center.x + dx), y: Math.floor(center.y + dy) },
    inView,
  };
  if (window === window.top && el.ownerDocument === document && el.getRootNode() === document) {
    const path = [];
    for (let n = el; n && n !== el.ownerDocument.documentElement; n = n.parentElement) {
      let k = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) k++;
      path.unshift(k);
    }
    target.path = path;
  }
  return target;
}

async function run(op, args) {
  notes = args && args.notes ? {} : null;
  try {
    const operation = OPS[op];
    if (!operation) fail('unknown error', `no page operation ${op}`);
    const value = await operation(args);
    const answer = { value, doc: referenceCache(false)?.doc };
    if (windowRefs.length) answer.windows = windowRefs;
    if (notes && Object.keys(notes).length) answer.notes = notes;
    return answer;
  } catch (e) {
    if (e instanceof WdError) return { error: e.code, message: e.message, data: e.data, doc: referenceCache(false)?.doc, ...(notes && Object.keys(notes).length && { notes }) };
    return { error: 'unknown error', message: describeException(e) };
  }
}
