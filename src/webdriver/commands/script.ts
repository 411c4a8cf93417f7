// Spec §13 "Document": Execute Script and Execute Async Script.
import { p } from '../params.ts';
import { executeInPage } from '../page/index.ts';
import { error } from '../errors.ts';
import type { Session } from '../session.ts';
import { ReportError, scriptReports } from '../../trace/index.ts';
import { sessionCommand } from './types.ts';

const scriptParams = p.object({ script: p.string, args: p.array(p.any) });

export const executeScript = sessionCommand({
  params: scriptParams,
  handler: ({ session }, { script, args }) => reported(session, script) ?? executeInPage(session, script, args, false, session.timeouts.script),
});

export const executeAsyncScript = sessionCommand({
  params: scriptParams,
  handler: ({ session }, { script, args }) => reported(session, script) ?? executeInPage(session, script, args, true, session.timeouts.script),
});

/**
 * A cloud grid's command sent as a script (`sauce:job-result=failed`, `browserstack_executor:
 * {...}`, `lambda-status=passed`): the history takes it, the page never runs it; null answers it.
 * Undefined for an ordinary script.
 */
function reported(session: Session, script: string): Promise<null> | undefined {
  let reports;
  try {
    reports = scriptReports(script);
  } catch (e) {
    if (e instanceof ReportError) throw error('invalid argument', e.message);
    throw e;
  }
  if (!reports) return undefined;
  session.history?.report(reports, 'execute script');
  return Promise.resolve(null);
}
