// Spec §13 "Document": Execute Script and Execute Async Script; and the clients' reports of
// their tests that come as scripts (cloud grids) or as Selenium Grid's session events.
import { p } from '../params.ts';
import { executeInPage } from '../page/index.ts';
import type { Session } from '../session.ts';
import type { Gateway } from '../gateway.ts';
import { eventReports, scriptReports, sessionEventAnswer } from '../reports.ts';
import { sessionCommand } from './types.ts';

const scriptParams = p.object({ script: p.string, args: p.array(p.any) });

export const executeScript = sessionCommand({
  params: scriptParams,
  handler: ({ gateway, session }, { script, args }) => reported(gateway, session, script) ?? executeInPage(session, script, args, false, session.timeouts.script),
});

export const executeAsyncScript = sessionCommand({
  params: scriptParams,
  handler: ({ gateway, session }, { script, args }) => reported(gateway, session, script) ?? executeInPage(session, script, args, true, session.timeouts.script),
});

/**
 * A cloud grid's command sent as a script (`sauce:job-result=failed`, `browserstack_executor:
 * {...}`, `lambda-status=passed`): the history takes it, the page never runs it; null answers it.
 * Undefined for an ordinary script.
 */
function reported(gateway: Gateway, session: Session, script: string): Promise<null> | undefined {
  // A malformed report is invalid argument (ReportError), never run in the page either.
  const reports = scriptReports(script);
  if (!reports) return undefined;
  gateway.seam.reported(session, reports, 'execute script');
  return Promise.resolve(null);
}

/** POST /session/{sessionId}/se/event: a Selenium Grid session event (test:failed, marker:add …), answered as Grid does. */
export const sessionEvent = sessionCommand({
  handlesUserPrompts: false, // nothing of the page is touched
  handler({ gateway, session }, body: unknown) {
    gateway.seam.reported(session, eventReports(body), 'se/event');
    return sessionEventAnswer(body);
  },
});
