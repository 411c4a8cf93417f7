// ── document.js: runs inside the page (see core.js). Spec §13.1 Get Page Source. ──────────────
{
  // Spec: the fragment serializing algorithm (require well-formed) on a fictional node whose
  // only child is the document element: that is the document element's outerHTML (HTML or, in
  // an XML document, XML serialization). If it is not well-formed XML: the whole document
  // serialized to a string. No document element: nothing to serialize.
  OPS.getPageSource = function () {
    const root = document.documentElement;
    if (!root) return '';
    try {
      return root.outerHTML;
    } catch {
      return new XMLSerializer().serializeToString(document);
    }
  };
}
