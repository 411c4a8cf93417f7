// What operators ask the gateway over HTTP, beside the W3C commands (routes in src/server/routes.ts).
import { TextBody } from '../webdriver/json.ts';
import { globalCommand } from '../webdriver/commands/types.ts';

/** GET /metrics: the Prometheus exposition. */
export const metrics = globalCommand({
  async handler({ gateway }) {
    const { contentType, text } = await gateway.metrics.scrape();
    return new TextBody(contentType, text);
  },
});
