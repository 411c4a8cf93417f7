// ── interact.js: Element Interaction (spec §12.5): Element Click, Element Clear, Element Send Keys.
// The page half of each command: element state checks, scrolling, hit testing and the DOM-only
// parts (option selection, clearing). Trusted input events are dispatched by the gateway.
// In a block so its helpers cannot collide with other page files' names.
{
  // Input types whose value is typed (spec "mutable form control element" states, minus the
  // non-typeable ones and file upload).
  const TYPED_INPUT_TYPES = new Set([
    'text', 'search', 'url', 'tel', 'email', 'password', 'date', 'month', 'week', 'time', 'datetime-local', 'number',
  ]);
  // Spec "non-typeable form control": keys make no sense, Send Keys sets the value.
  const NON_TYPEABLE_INPUT_TYPES = new Set(['color', 'range']);
  // Date and time fields are non-typeable in the spec too, but Chromium also takes typed
  // segments ("01022020"), which Selenium users rely on: a valid value string is set, anything
  // else is typed as keys.
  const DATE_TIME_INPUT_TYPES = new Set(['date', 'month', 'week', 'time', 'datetime-local']);
  const DESCRIBE_MAX_VALUE = 40;

  const isInput = (el) => el instanceof HTMLInputElement;
  const isFileInput = (el) => isInput(el) && el.type === 'file';
  const isDisabled = (el) => el.matches(':disabled');

  /** The start tag of an element, for messages: <button id="go" class="big">. */
  function describe(el) {
    if (!el) return 'nothing';
    const attrs = Array.from(el.attributes, (a) => {
      const v = a.value.length > DESCRIBE_MAX_VALUE ? `${a.value.slice(0, DESCRIBE_MAX_VALUE)}…` : a.value;
      return v === '' ? ` ${a.name}` : ` ${a.name}="${v.replaceAll('"', '&quot;')}"`;
    });
    return `<${el.localName}${attrs.join('')}>`;
  }

  /** Why the element is not rendered, or null: display/visibility as the user sees them. */
  function notDisplayedReason(el) {
    if (el === document.documentElement || el === document.body) return null;
    if (el.getClientRects().length === 0) return 'is not displayed';
    const visibility = getComputedStyle(el).visibility;
    if (visibility !== 'visible') return `is not displayed (visibility: ${visibility})`;
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return 'is not displayed';
    return null;
  }

  /** Spec: an option's container is its select or datalist (the thing the user sees). */
  function containerOf(el) {
    if (el instanceof HTMLOptionElement) {
      const container = el.closest('select, datalist');
      if (container) return container;
    }
    return el;
  }

  /** The first client rect with an area: the first of an inline element's boxes may be empty. */
  function firstBox(el) {
    for (const rect of el.getClientRects()) if (rect.width > 0 && rect.height > 0) return rect;
    return null;
  }

  /** The part of a box inside the viewport (less its scroll bars), or null. */
  function visiblePart(box) {
    const viewport = visibleViewport();
    const left = Math.max(0, box.left);
    const right = Math.min(viewport.width, box.right);
    const top = Math.max(0, box.top);
    const bottom = Math.min(viewport.height, box.bottom);
    return left < right && top < bottom ? { x: left, y: top, width: right - left, height: bottom - top } : null;
  }

  /**
   * Spec "in view": the element is a member of its own pointer-interactable paint tree — the
   * elements at the in-view center point of its first box. Part of it in view is enough; an
   * ancestor's overflow that clips it there is not. (Pointer events are pretended enabled: an
   * element with pointer-events none is judged by its geometry alone.)
   */
  function isInView(el) {
    const box = firstBox(el);
    const part = box && visiblePart(box);
    if (!part) return false;
    if (getComputedStyle(el).pointerEvents === 'none') return true;
    const x = Math.floor(part.x + part.width / 2);
    const y = Math.floor(part.y + part.height / 2);
    return rootOf(el).elementsFromPoint(x, y).includes(el);
  }

  /**
   * Spec "scroll into view": only if the element is not already in view,
   * scrollIntoView({behavior: instant, block: end, inline: nearest}). Containers a user cannot
   * scroll (overflow hidden or clip) are put back: what they hide stays hidden, and the command
   * then answers element not interactable. `always`: scroll even so (the element's frame is out
   * of view in an ancestor, which this scrolls too).
   */
  function scrollIntoView(el, always = false) {
    if (!always && isInView(el)) return;
    const unscrollable = [];
    for (let node = el.parentElement ?? el.getRootNode().host; node; node = node.parentElement ?? node.getRootNode().host) {
      const { overflowX, overflowY } = getComputedStyle(node);
      if (/hidden|clip/.test(overflowX + overflowY) && node !== document.documentElement && node !== document.body) {
        unscrollable.push([node, node.scrollLeft, node.scrollTop]);
      }
    }
    el.scrollIntoView({ behavior: 'instant', block: 'end', inline: 'nearest' });
    for (const [node, left, top] of unscrollable) node.scrollTo({ left, top, behavior: 'instant' });
  }

  /** The document or shadow root whose hit testing sees the element (not its shadow host). */
  function rootOf(el) {
    const root = el.getRootNode();
    return root instanceof ShadowRoot ? root : el.ownerDocument;
  }

  /**
   * Spec "in-view center point" (of the first non-empty box) and the part of the box in view
   * (the viewport less its scroll bars), or element not interactable saying why.
   */
  function inViewCenterPoint(el) {
    const hidden = notDisplayedReason(el);
    if (hidden) fail('element not interactable', `element ${describe(el)} ${hidden}`);
    const box = firstBox(el);
    if (!box) fail('element not interactable', `element ${describe(el)} has zero size`);
    const inView = visiblePart(box);
    if (!inView) {
      const viewport = visibleViewport();
      fail(
        'element not interactable',
        `element ${describe(el)} is out of the viewport (at ${Math.round(box.left)}, ${Math.round(box.top)} in a ${viewport.width}x${viewport.height} viewport) and could not be scrolled into view`,
      );
    }
    return { x: Math.floor(inView.x + inView.width / 2), y: Math.floor(inView.y + inView.height / 2), inView };
  }

  const inclusiveAncestorOf = (ancestor, node) => ancestor === node || ancestor.contains(node);

  /**
   * Spec "obscured": the topmost element at the point must be the element or inside it. Like
   * chromedriver, a label and its labeled control stand for each other (clicking either one
   * activates the control).
   */
  function receivesClick(el, top) {
    if (!top) return false;
    if (inclusiveAncestorOf(el, top)) return true;
    if (el instanceof HTMLLabelElement && el.control && inclusiveAncestorOf(el.control, top)) return true;
    for (const label of el.labels ?? []) if (inclusiveAncestorOf(label, top)) return true;
    return false;
  }

  function topmostAt(el, point) {
    // Hit test in the element's own tree: the document's answer would retarget to a shadow host.
    return rootOf(el).elementsFromPoint(point.x, point.y)[0] ?? null;
  }

  function fireEvent(target, type) {
    target.dispatchEvent(new Event(type, { bubbles: true, composed: type === 'input' }));
  }

  function fireMouseEvent(target, type) {
    target.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, composed: true, view: window, button: 0, detail: 1 }));
  }

  /** Spec Element Click for an <option>: select it without pointer input, firing the events a user's choice fires. */
  function clickOption(option, container) {
    fireMouseEvent(container, 'mouseover');
    fireMouseEvent(container, 'mousemove');
    fireMouseEvent(container, 'mousedown');
    if (container !== document.activeElement) container.focus();
    const disabled = option.disabled || option.parentElement?.matches('optgroup[disabled]') || (container.matches(':disabled'));
    if (!disabled) {
      const previous = option.selected;
      const multiple = container instanceof HTMLSelectElement && container.multiple;
      option.selected = multiple ? !previous : true;
      if (option.selected !== previous) {
        fireEvent(container, 'input');
        fireEvent(container, 'change');
      }
    }
    fireMouseEvent(container, 'mouseup');
    fireMouseEvent(container, 'click');
  }

  /** Poll `reasonNow` (null when satisfied) until the implicit wait timeout; the last reason or null. */
  async function waitFor(reasonNow, timeoutMs) {
    const deadline = performance.now() + (timeoutMs ?? 0);
    for (;;) {
      const reason = reasonNow();
      if (reason === null || performance.now() >= deadline) return reason;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The element (or editing host) that receives the keys: has focus in its own tree. */
  function hasFocus(el) {
    return el.getRootNode().activeElement === el;
  }

  // ── Element Click (spec §12.5.1) ─────────────────────────────────────────────────────────
  // Returns the point for the gateway's trusted mouse events and the part of the element in
  // view, or null when the click is done (an option was selected in the page). In a frame, the
  // gateway may find that an ancestor shows less of it: `scroll` then scrolls it into view
  // regardless, or `at` names the point (in this viewport) to hit-test and click instead.
  OPS.elementClick = function ({ id, scroll, at }) {
    const element = getKnownElement(id);
    noteTarget(id, element);
    if (isFileInput(element)) {
      fail('invalid argument', 'cannot click an <input type=file> (the file chooser is not automatable): send keys to it with the file paths instead');
    }
    const container = containerOf(element);
    if (!at) {
      const hidden = notDisplayedReason(container) ?? (firstBox(container) ? null : 'has zero size');
      if (hidden) fail('element not interactable', `element ${describe(container)} ${hidden}`);
      scrollIntoView(container, scroll);
      // Spec: "if element's container is still not in view, element not interactable" — out of
      // the viewport, or clipped by an ancestor's overflow. One painted over is in view, and
      // obscured: element click intercepted, below.
      if (visiblePart(firstBox(container)) && !isInView(container)) {
        fail('element not interactable', `element ${describe(container)} is not in view: an ancestor's overflow hides it`);
      }
    }
    const inView = inViewCenterPoint(container); // out of the viewport: element not interactable
    const point = at ? { x: at.x, y: at.y, inView: inView.inView } : inView;
    const top = topmostAt(container, point);
    if (!receivesClick(container, top)) {
      fail(
        'element click intercepted',
        `Element ${describe(element)} is not clickable at point (${point.x}, ${point.y}). Other element would receive the click: ${describe(top)}`,
      );
    }
    if (container !== element) {
      clickOption(element, container);
      return null;
    }
    return point;
  };

  // ── Element Clear (spec §12.5.2) ─────────────────────────────────────────────────────────
  OPS.elementClear = async function ({ id, implicitMs }) {
    const element = getKnownElement(id);
    noteTarget(id, element);
    // Spec: "If element is not editable, return invalid element state" (editable: a mutable
    // form control element, or content editable).
    let kind;
    if (isInput(element) || element instanceof HTMLTextAreaElement) {
      if (isInput(element) && !TYPED_INPUT_TYPES.has(element.type) && !NON_TYPEABLE_INPUT_TYPES.has(element.type) && !isFileInput(element)) {
        fail('invalid element state', `element ${describe(element)} is not editable: an <input type=${element.type}> has no value to clear`);
      }
      if (isDisabled(element)) fail('invalid element state', `element ${describe(element)} is disabled`);
      // The readonly attribute counts on every type (range, color, file too), as chromedriver has it.
      if (element.readOnly) fail('invalid element state', `element ${describe(element)} is read-only`);
      kind = 'value';
    } else if (element.isContentEditable) {
      kind = 'content';
    } else {
      fail('invalid element state', `element ${describe(element)} is not editable (not an input, textarea or contenteditable element)`);
    }
    // Spec: wait (implicit wait timeout) for the element to become interactable; one with no
    // size is not (chromedriver).
    const hidden = await waitFor(() => notDisplayedReason(element) ?? (firstBox(element) ? null : 'has no size'), implicitMs);
    if (hidden) fail('element not interactable', `element ${describe(element)} ${hidden}`);
    scrollIntoView(element);
    if (kind === 'value') clearResettable(element);
    else clearContentEditable(element);
    return null;
  };

  /** Spec "clear a resettable element": nothing at all if it is empty and valid; the reset fires change (WPT, chromedriver). */
  function clearResettable(element) {
    const empty = isFileInput(element) ? element.files.length === 0 : element.value === '';
    if (empty && (!element.willValidate || element.validity.valid)) return;
    element.focus();
    element.value = '';
    fireEvent(element, 'change');
    element.blur();
  }

  /** Spec "clear a content editable element": focus, empty it, blur — no input or change. */
  function clearContentEditable(element) {
    if (element.innerHTML === '') return;
    element.focus();
    element.innerHTML = '';
    element.blur();
  }

  // ── Element Send Keys (spec §12.5.3) ─────────────────────────────────────────────────────
  // Prepares the element for the gateway's key events: checks, scrolls, focuses, places the
  // caret. Returns {file, multiple} for file inputs, {done: true} when no key events are due.
  OPS.elementSendKeys = async function ({ id, text, implicitMs, strictFileInteractability }) {
    const element = getKnownElement(id);
    noteTarget(id, element);
    if (isFileInput(element)) {
      // Spec: only with strictFileInteractability must a file input be interactable (hidden
      // file inputs behind styled buttons are the common case).
      if (strictFileInteractability) {
        const reason = await waitFor(() => notDisplayedReason(element) ?? (isDisabled(element) ? 'is disabled' : null), implicitMs);
        if (reason) fail('element not interactable', `element ${describe(element)} ${reason}`);
      }
      return { file: true, multiple: element.multiple, selected: element.files.length };
    }

    // An <option> takes keys through its select (WPT): that is what is shown, scrolled and
    // focused, even where the option itself stays out of view in a tall list.
    const target = containerOf(element);
    // Spec: wait for the element to become keyboard-interactable.
    const reason = await waitFor(() => notDisplayedReason(target) ?? (isDisabled(element) ? 'is disabled' : null), implicitMs);
    if (reason) fail('element not interactable', `element ${describe(element)} ${reason}`);

    if (isInput(element) && NON_TYPEABLE_INPUT_TYPES.has(element.type)) {
      // Spec: a non-typeable form control gets its value set.
      if (element.readOnly) fail('element not interactable', `element ${describe(element)} is read-only`);
      element.value = text;
      if (element.validity.badInput) fail('invalid argument', `${JSON.stringify(text)} is not a valid value for an <input type=${element.type}>`);
      fireEvent(element, 'input');
      fireEvent(element, 'change');
      return { done: true };
    }

    if (isInput(element) && DATE_TIME_INPUT_TYPES.has(element.type) && !element.readOnly && text !== '') {
      const before = element.value;
      element.value = text;
      if (element.value !== '') {
        fireEvent(element, 'input');
        fireEvent(element, 'change');
        return { done: true };
      }
      element.value = before; // not a value of this type: type it
    }

    scrollIntoView(target);
    // Keys inside a contenteditable region go to its editing host.
    const focusTarget = element.isContentEditable ? (element.closest('[contenteditable]:not([contenteditable="false"])') ?? element) : target;
    if (!hasFocus(focusTarget)) {
      if (focusTarget === document.body || focusTarget === document.documentElement) {
        // Keys sent to the document go wherever nothing is focused.
        document.activeElement?.blur();
      } else {
        focusTarget.focus();
        if (!hasFocus(focusTarget)) fail('element not interactable', `element ${describe(element)} is not reachable by keyboard (it cannot be focused)`);
      }
      // Spec: "set the text insertion caret after any child content" / at the end of the value.
      if (element.isContentEditable) {
        const range = document.createRange();
        range.selectNodeContents(element);
        range.collapse(false);
        const selection = getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
      } else if (typeof element.setSelectionRange === 'function') {
        try {
          element.setSelectionRange(element.value.length, element.value.length);
        } catch {
          // email, number and friends have no selection API; the caret stays where focus put it.
        }
      }
    }
    return { file: false };
  };

  // Send Keys to <input type=file multiple> appends to the selection (spec), but the backend
  // can only replace it: the files already selected are kept here and merged back in as the
  // input event of the new selection arrives, before the page's own listeners see it.
  const APPEND_FILES = Symbol.for('wdgate.appendFiles');
  OPS.appendFilesBegin = function ({ id }) {
    const input = getKnownElement(id);
    const kept = [...input.files];
    const merge = (event) => {
      if (event && event.target !== input) return;
      window.removeEventListener('input', merge, true);
      delete input[APPEND_FILES];
      const transfer = new DataTransfer();
      for (const file of [...kept, ...input.files]) transfer.items.add(file);
      input.files = transfer.files;
    };
    window.addEventListener('input', merge, true);
    input[APPEND_FILES] = merge;
    return null;
  };
  /** After the backend set the files: merge now if no input event did. */
  OPS.appendFilesEnd = function ({ id }) {
    getKnownElement(id)[APPEND_FILES]?.();
    return null;
  };

  // The element itself (not a reference): for the backend, which needs a handle on the node
  // (DOM.setFileInputFiles). Called through RAW_ATOM.
  OPS.resolveElement = function ({ id }) {
    return getKnownElement(id);
  };
}
