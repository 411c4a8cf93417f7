// What a classic command's page calls report beside their answers, for the command seam's
// observers (./seam.ts). A leaf: the session (./session.ts) holds the running command's.

/**
 * What a classic command's page calls saw as they ran (src/webdriver/page/core.js), asked for
 * only while an observer keeps the session's content: where each element it acted on was right
 * before (Element Click, Send Keys, Clear, Perform Actions' element origins), and whether the page
 * changed while it waited (a find that found its element only after polling). Reported in the
 * command's own calls: nobody asks the page again.
 */
export interface PageNotes {
  /** Date.now() when the command's first page call was sent. */
  at?: number;
  /** The top-level viewport and its scroll when the first element was looked at (null: out of reach, past a frame of another origin). */
  viewport?: { width: number; height: number; scrollX: number; scrollY: number } | null;
  /** By web element reference: its border box and in-view center point in the top-level viewport (CSS px), and its path from <html> (element positions from 1) in the top-level document's light DOM; null when out of reach. */
  targets?: Record<string, { box: { x: number; y: number; width: number; height: number }; center: { x: number; y: number }; inView: boolean; path?: number[] } | null>;
  pageChanged?: boolean;
}
