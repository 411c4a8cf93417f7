// The dashboard's page (./index.html) as the gateway serves it, and the Content-Security-Policy it
// is served with: its one script and its one style sheet admitted by their SHA-256, computed here
// at start from the very bytes served, and nothing else inline (no other script, no event handler
// attribute, no style attribute: the page sets its columns' widths by class); it connects only to
// its own origin, shows pictures only from data: URLs (the live view), submits no form, and is
// framed by nobody. src/server/ui.ts serves it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const DASHBOARD_PAGE = readFileSync(new URL('./index.html', import.meta.url));

export const DASHBOARD_POLICY = policyOf(DASHBOARD_PAGE.toString('utf8'));

/** The page's policy: each inline script and style sheet by its hash; a page with an inline handler or style attribute is refused at start. */
export function policyOf(html: string): string {
  const hashes = (tag: string) => [...html.matchAll(new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'gi'))].map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
  const scripts = hashes('script');
  const styles = hashes('style');
  if (scripts.length === 0 || styles.length === 0) throw new Error('the dashboard page has no script or no style sheet');
  const markup = html.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/gi, '');
  const inline = /<[a-z][^>]*\s(on[a-z]+|style)\s*=/i.exec(markup);
  if (inline) throw new Error(`the dashboard page has an inline ${inline[1]} attribute, which its policy would block`);
  return [
    "default-src 'none'",
    `script-src ${scripts.join(' ')}`,
    `style-src ${styles.join(' ')}`,
    'img-src data:',
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
