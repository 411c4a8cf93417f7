// ── capture.js: Take Element Screenshot (spec §17.2), the in-page half. ────────────────────
// Runs inside the page after core.js (see page/index.ts).

// wdgateArgs: { element }. Scroll the element into view and return the region of it that is
// visible in the viewport, in viewport CSS pixels (the gateway captures that region).
OPS.elementScreenshotRect = function ({ element }) {
  const el = getKnownElement(element);
  // Spec "scroll into view": instant, block "end", inline "nearest".
  el.scrollIntoView({ behavior: 'instant', block: 'end', inline: 'nearest' });
  const r = el.getBoundingClientRect();
  // Spec "draw a bounding box from the framebuffer": only the part inside the initial viewport
  // is painted. Whole device-independent pixels: round the edges, not the size, so a 50px
  // wide element at x = 8.5 is still 50px wide.
  const left = Math.max(0, Math.round(r.left));
  const top = Math.max(0, Math.round(r.top));
  const right = Math.min(window.innerWidth, Math.round(r.right));
  const bottom = Math.min(window.innerHeight, Math.round(r.bottom));
  return {
    x: left,
    y: top,
    width: Math.max(0, right - left),
    height: Math.max(0, bottom - top),
    viewportWidth: window.innerWidth,
    viewportHeight: window.innerHeight,
  };
};
