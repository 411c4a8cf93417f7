// chromedriver's logs (goog:loggingPrefs, src/webdriver/logging.ts): Get Available Log Types and
// Get Log, at `/se/log` as Selenium 4 sends them and at `/log` as older clients do. A log read
// is taken: the next read answers only what came since (as chromedriver).
import { error } from '../errors.ts';
import { logsOf } from '../logging.ts';
import type { Session } from '../session.ts';
import { sessionCommand } from './types.ts';

function logs(session: Session) {
  const kept = logsOf(session);
  if (!kept) throw error('unknown error', `session ${session.id} keeps no logs`);
  return kept;
}

export const getAvailableLogTypes = sessionCommand({
  handlesUserPrompts: false, // no page is touched: a user prompt stays for the next command
  handler({ session }) {
    return logs(session).types;
  },
});

export const getLog = sessionCommand({
  // chromedriver's words for a missing or non-string type.
  params: (v) => {
    const type = (v as { type?: unknown }).type;
    if (typeof type !== 'string') throw error('invalid argument', "missing or invalid 'type'");
    return type;
  },
  handlesUserPrompts: false,
  handler({ session }, type: string) {
    return logs(session).take(type);
  },
});
