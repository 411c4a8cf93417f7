// Fair shares through the real gateway: when sessions must wait, principals are served in turn
// (weighted by the token file's share), each principal's line first come, first served, and
// /status, /metrics and the admin API show each principal's line.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client, Session } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers } from '../helpers/pages.ts';

const TOKENS = { flood: 'flood-token-4b6d8f0a2c1e3957', team: 'team-token-9e7c5a3b1d0f2468', ops: 'ops-token-2a4c6e8f0b1d3579' };

let gw: TestGateway;
let flood: Client;
let team: Client;
let ops: Client;

before(async () => {
  gw = await startGateway([], {
    config: {
      maxSessions: 1,
      maxQueuedSessions: 50,
      requireAuthOnLoopback: true,
      pool: { minWarm: 2 },
      authTokens: [
        { name: 'flood', token: TOKENS.flood },
        { name: 'team', token: TOKENS.team },
        { name: 'ops', token: TOKENS.ops, admin: true },
      ],
    },
  });
  [flood, team, ops] = [gw.client.withToken(TOKENS.flood), gw.client.withToken(TOKENS.team), gw.client.withToken(TOKENS.ops)];
});

after(async () => {
  const pid = gw?.process.pid;
  await gw?.stop();
  if (pid) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

/** The line of one principal as /status shows it to `client`. */
async function lineOf(client: Client, principal: string): Promise<{ queued: number; sessions: number; share: number; oldestQueuedMs: number } | undefined> {
  const status = await client.ok('GET', '/status');
  return status.sessions.principals.find((p: { principal: string }) => p.principal === principal);
}

test('one principal floods the queue, another asks after: the second is served in turn, not behind the flood; each line is shown', async () => {
  const order: string[] = [];
  // Each session ends as soon as it is made: the one slot goes round.
  const ask = (client: Client, name: string) =>
    client.newSession().then(async (s: Session) => {
      order.push(name);
      await s.end();
    });
  const holder = await flood.newSession();
  const floods = Array.from({ length: 8 }, () => ask(flood, 'flood'));
  await eventually(async () => (await lineOf(flood, 'flood'))?.queued === 8, 'the flood did not queue');
  const late = Array.from({ length: 2 }, () => ask(team, 'team'));
  await eventually(async () => (await lineOf(team, 'team'))?.queued === 2, "the team's requests did not queue");

  // Each principal sees its own line in /status; an admin sees every line, in the admin API too.
  assert.deepEqual(
    (await team.ok('GET', '/status')).sessions.principals.map((p: { principal: string }) => p.principal),
    ['team'],
  );
  const floodLine = (await lineOf(flood, 'flood'))!;
  assert.deepEqual({ ...floodLine, oldestQueuedMs: floodLine.oldestQueuedMs > 0 }, { principal: 'flood', share: 1, sessions: 1, queued: 8, oldestQueuedMs: true });
  const queue = await ops.ok('GET', '/wdgate/admin/queue');
  assert.equal(queue.queued, 10);
  assert.deepEqual(
    queue.principals.map(({ principal, queued, sessions }: { principal: string; queued: number; sessions: number }) => ({ principal, queued, sessions })).sort((a: { principal: string }, b: { principal: string }) => a.principal.localeCompare(b.principal)),
    [
      { principal: 'flood', queued: 8, sessions: 1 },
      { principal: 'team', queued: 2, sessions: 0 },
    ],
  );
  const metrics = (await ops.raw('GET', '/metrics')).value as string;
  assert.match(metrics, /^wdgate_sessions_queued 10$/m);
  assert.match(metrics, /^wdgate_principal_sessions_queued\{principal="flood"\} 8$/m);
  assert.match(metrics, /^wdgate_principal_sessions_queued\{principal="team"\} 2$/m);

  await holder.end();
  await Promise.all([...floods, ...late]);
  // Turns alternate: the team's two are served within the first four, not after the flood's eight.
  const lastOfTeam = order.lastIndexOf('team') + 1;
  assert.ok(lastOfTeam <= 4, `the team's last session was the ${lastOfTeam}th: ${order.join(', ')}`);
  assert.equal(order.filter((x) => x === 'flood').length, 8);
  assert.equal((await ops.ok('GET', '/wdgate/admin/queue')).queued, 0);
});
