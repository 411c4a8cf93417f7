// What the viewer's page asks of the gateway (a kept session's trace, a comparison): a GET on the
// page's own origin, with the dashboard's login cookie where tokens are required; a failure said
// in one sentence for the person reading the page.

/** The gateway could not give what was asked; the message says why, and what to do about a login. */
export class LoadError extends Error {}

export async function fetchFromGateway(url: string, what: string): Promise<Response> {
  let reply: Response;
  try {
    reply = await fetch(url, { credentials: 'same-origin' });
  } catch (e) {
    throw new LoadError(`${what} could not be loaded: ${(e as Error).message}`);
  }
  if (reply.ok) return reply;
  const message = await reply
    .json()
    .then((j: { value?: { message?: string } }) => j.value?.message)
    .catch(() => undefined);
  // A gateway with tokens: the browser's login is the dashboard's cookie.
  const login = reply.status === 401 ? ' Log in on the dashboard (/ui) first, then open this page again.' : '';
  throw new LoadError(`${what} could not be loaded (${reply.status}): ${message ?? reply.statusText}.${login}`);
}
