// chromedriver's performance log with traceCategories: a trace of the browser (CDP Tracing on a
// browser session of its own), its events handed over each time the log is read (Tracing.end
// brings them, Tracing.start the next trace). A trace records every process of the browser: the
// W3C layer starts one only for a session with a browser of its own.
import type { Browser } from 'puppeteer-core';
import type { ProtocolEvent, Tracing } from '../backend.ts';
import { attachToBrowser } from './cdp.ts';

/** How long the end of a trace may take to deliver its events (chromedriver waits as long). */
const COLLECT_BOUND_MS = 30_000;

export async function startTracing(browser: Browser, categories: string[], bufferUsageReportingInterval: number, onEvent: (event: ProtocolEvent) => void): Promise<Tracing> {
  const { session } = await attachToBrowser(browser);
  const event = (method: string, params: unknown) => onEvent({ webview: 'browser', method, params, timestamp: Date.now() });
  let complete: (() => void) | undefined;
  session.on('Tracing.dataCollected', ({ value }) => {
    for (const traceEvent of value) event('Tracing.dataCollected', traceEvent);
  });
  session.on('Tracing.bufferUsage', ({ percentFull }) => {
    // As chromedriver: a full buffer is told in the log itself (a WARNING entry).
    if (percentFull !== undefined && percentFull >= 0.99999) event('Tracing.bufferUsage', { error: "Chrome's trace buffer filled while collecting events, so some trace events may have been lost" });
  });
  session.on('Tracing.tracingComplete', () => complete?.());
  const start = () => session.send('Tracing.start', { traceConfig: { includedCategories: categories, recordMode: 'recordAsMuchAsPossible' }, bufferUsageReportingInterval, transferMode: 'ReportEvents' });
  await start();
  let stopped = false;
  return {
    async collect() {
      if (stopped) return;
      let timer: NodeJS.Timeout | undefined;
      const completed = new Promise<void>((resolve) => {
        complete = resolve;
        timer = setTimeout(resolve, COLLECT_BOUND_MS);
      });
      try {
        await session.send('Tracing.end');
        await completed;
      } finally {
        clearTimeout(timer);
        complete = undefined;
      }
      await start();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await session.send('Tracing.end').catch(() => {});
      await session.detach().catch(() => {});
    },
  };
}
