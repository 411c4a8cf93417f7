// Spec §13.1 "Get Page Source" and §18.1 "Print Page": the current document as markup, and the
// top-level document paginated as PDF.
import { InvalidParametersError } from '../../../backends/backend.ts';
import { error } from '../errors.ts';
import { base64Json } from '../json.ts';
import { callAtom } from '../page/index.ts';
import { parsePrintParameters } from '../print.ts';
import { sessionCommand } from './types.ts';

// ── Get Page Source (spec §13.1) ─────────────────────────────────────────────────────────────

export const getPageSource = sessionCommand({
  // One page call: the serialization of the current browsing context's document (page/document.js).
  handler: ({ session }) => callAtom<string>(session, 'getPageSource'),
});

// ── Print Page (spec §18.1) ──────────────────────────────────────────────────────────────────

export const printPage = sessionCommand({
  params: parsePrintParameters,
  async handler({ session }, options) {
    // Spec: the current top-level browsing context's document, even when a frame is current.
    const handle = await session.currentTopLevel();
    try {
      return base64Json(await session.browser.printToPdf(handle, options));
    } catch (e) {
      // As chromedriver: margins leaving no room, or page ranges past the last page.
      if (e instanceof InvalidParametersError) throw error('invalid argument', `the browser cannot print with these parameters: ${e.message}`);
      // Spec: "unable to paginate the document" is unsupported operation (UnsupportedPrimitiveError, errors.ts).
      throw e;
    }
  },
});
