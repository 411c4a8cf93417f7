// Spec §13 "Document": Execute Script and Execute Async Script.
import { p } from '../params.ts';
import { executeInPage } from '../page/index.ts';
import { sessionCommand } from './types.ts';

const scriptParams = p.object({ script: p.string, args: p.array(p.any) });

export const executeScript = sessionCommand({
  params: scriptParams,
  handler: ({ session }, { script, args }) => executeInPage(session, script, args, false, session.timeouts.script),
});

export const executeAsyncScript = sessionCommand({
  params: scriptParams,
  handler: ({ session }, { script, args }) => executeInPage(session, script, args, true, session.timeouts.script),
});
