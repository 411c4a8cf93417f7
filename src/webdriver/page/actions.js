// ── actions.js: Perform Actions (spec §15 "Actions"): the page half of pointer and wheel origins.
// Coordinates are CSS pixels of the current browsing context's viewport; the gateway adds the
// offsets of the frames it is in. In a block so its helpers cannot collide with other page files.
{
  /** Spec: the viewport's width and height in CSS pixels. */
  function viewportSize() {
    return { width: innerWidth, height: innerHeight };
  }

  OPS.actionsViewport = function () {
    noteViewport();
    return viewportSize();
  };

  // Spec "get coordinates relative to an origin", element origin: the element's in-view center
  // point, without scrolling it into view. An element out of the viewport gives a point outside
  // it (the gateway answers move target out of bounds).
  OPS.actionsElementOrigin = function ({ id }) {
    const element = getKnownElement(id);
    noteTarget(id, element);
    const rects = Array.from(element.getClientRects());
    // The first box; of an inline element's boxes, the first that has an area.
    const rect = rects.find((r) => r.width > 0 && r.height > 0) ?? rects[0];
    // Not rendered (display: none): no point at all; chromedriver answers element not interactable.
    if (!rect) fail('element not interactable', `the element <${element.localName}> has no size and location (it is not rendered)`);
    const left = Math.max(0, Math.min(rect.x, rect.x + rect.width));
    const right = Math.min(innerWidth, Math.max(rect.x, rect.x + rect.width));
    const top = Math.max(0, Math.min(rect.y, rect.y + rect.height));
    const bottom = Math.min(innerHeight, Math.max(rect.y, rect.y + rect.height));
    return { x: Math.floor((left + right) / 2), y: Math.floor((top + bottom) / 2), viewport: viewportSize() };
  };
}
