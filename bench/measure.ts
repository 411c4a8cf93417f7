// How the benchmark times W3C commands: the command mix one session runs, and two servers
// measured in turn (so that the machine's drift cancels out of their difference), over the mix
// and on a settled page.
import { Client, ELEMENT } from '../test/helpers/client.ts';

export const WINDOW = { width: 1280, height: 800 };

/** Command name → its times in ms. */
export type Samples = Map<string, number[]>;

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** A function that records a command's time into `samples`. */
export const recorder = (samples: Samples) => (name: string, ms: number) => samples.set(name, [...(samples.get(name) ?? []), ms]);

export async function newSession(client: Client, caps: object): Promise<string> {
  const { sessionId } = await client.ok('POST', '/session', { capabilities: { alwaysMatch: caps } });
  // The same window on both sides: screenshot cost grows with the pixels.
  await client.ok('POST', `/session/${sessionId}/window/rect`, WINDOW);
  return sessionId;
}

/** One pass of the command mix in a session; records each command's time when `record` is given. */
export async function commandMix(client: Client, id: string, pageUrl: string, i: number, record?: (name: string, ms: number) => void): Promise<number> {
  const s = (p: string) => `/session/${id}${p}`;
  const step = async (name: string, fn: () => Promise<unknown>) => {
    const ms = await time(fn);
    record?.(name, ms);
  };
  let el = '';
  let button = '';
  await step('navigate', () => client.ok('POST', s('/url'), { url: pageUrl }));
  await step('get title', () => client.ok('GET', s('/title')));
  await step('find element', async () => (el = (await client.ok('POST', s('/element'), { using: 'css selector', value: '#name' }))[ELEMENT]));
  await step('find elements (20)', () => client.ok('POST', s('/elements'), { using: 'css selector', value: 'li' }));
  await step('get property', () => client.ok('GET', s(`/element/${el}/property/value`)));
  await step('get element text', () => client.ok('GET', s(`/element/${el}/text`)));
  await step('send keys', () => client.ok('POST', s(`/element/${el}/value`), { text: 'abc' }));
  await step('clear', () => client.ok('POST', s(`/element/${el}/clear`), {}));
  button = (await client.ok('POST', s('/element'), { using: 'css selector', value: '#go' }))[ELEMENT];
  await step('click', () => client.ok('POST', s(`/element/${button}/click`), {}));
  await step('execute script', () => client.ok('POST', s('/execute/sync'), { script: 'return arguments[0] + 1', args: [i] }));
  await step('screenshot', () => client.ok('GET', s('/screenshot')));
  await step('get cookies', () => client.ok('GET', s('/cookie')));
  return 13; // commands sent, the lookup of the button included
}

export interface Side {
  client: Client;
  caps: object;
  /** Resolves when a New Session would be served without preparing anything. */
  ready?: () => Promise<void>;
}

/** Every other round the other side goes first. */
const inOrder = <T>(sides: T[], i: number) => (i % 2 ? sides : [...sides].reverse());

/**
 * Two servers measured in turn, session by session and pass by pass of the command mix: what the
 * pass-through costs (one chromedriver directly and through the remote backend), and the
 * Playwright backend's ratio to native.
 */
export async function inTurn(a: Side, b: Side, pageUrl: string, iterations: number): Promise<[Samples, Samples]> {
  const sides = [a, b].map((side) => ({ ...side, samples: new Map() as Samples, id: '' }));
  for (let i = 0; i < iterations; i++) {
    for (const side of inOrder(sides, i)) {
      await side.ready?.();
      const record = recorder(side.samples);
      let id = '';
      record('new session (warm)', await time(async () => (id = (await side.client.ok('POST', '/session', { capabilities: { alwaysMatch: side.caps } })).sessionId)));
      record('delete session', await time(() => side.client.ok('DELETE', `/session/${id}`)));
    }
  }
  for (const side of sides) side.id = await newSession(side.client, side.caps);
  try {
    for (let i = 0; i < iterations; i++) for (const side of inOrder(sides, i)) await commandMix(side.client, side.id, pageUrl, i, recorder(side.samples));
  } finally {
    await Promise.all(sides.map((side) => side.client.ok('DELETE', `/session/${side.id}`)));
  }
  return [sides[0]!.samples, sides[1]!.samples];
}

/**
 * The cheapest reads on a settled page (loaded, nothing changing), each command on one side
 * then on the other, `rounds` times: a server's cost per command without the browser's own
 * spread after a navigation or a click (a busy renderer adds milliseconds to the next read), which
 * in the mix outweighs a fraction of a millisecond.
 */
export async function settledInTurn(a: Side, b: Side, pageUrl: string, rounds: number): Promise<[Samples, Samples]> {
  const sides = await Promise.all(
    [a, b].map(async (side) => {
      const id = await newSession(side.client, side.caps);
      await side.client.ok('POST', `/session/${id}/url`, { url: pageUrl });
      const el = (await side.client.ok('POST', `/session/${id}/element`, { using: 'css selector', value: '#name' }))[ELEMENT] as string;
      return { ...side, id, el, samples: new Map() as Samples };
    }),
  );
  const reads: [string, (client: Client, s: (path: string) => string, el: string) => Promise<unknown>][] = [
    ['get title', (c, s) => c.ok('GET', s('/title'))],
    ['find element', (c, s) => c.ok('POST', s('/element'), { using: 'css selector', value: '#name' })],
    ['find elements (20)', (c, s) => c.ok('POST', s('/elements'), { using: 'css selector', value: 'li' })],
    ['get property', (c, s, el) => c.ok('GET', s(`/element/${el}/property/value`))],
    ['get element text', (c, s, el) => c.ok('GET', s(`/element/${el}/text`))],
    ['execute script', (c, s) => c.ok('POST', s('/execute/sync'), { script: 'return 1', args: [] })],
    ['get cookies', (c, s) => c.ok('GET', s('/cookie'))],
  ];
  try {
    for (let i = 0; i < rounds; i++) {
      for (const [name, read] of reads) {
        for (const side of inOrder(sides, i)) recorder(side.samples)(name, await time(() => read(side.client, (path) => `/session/${side.id}${path}`, side.el)));
      }
    }
  } finally {
    await Promise.all(sides.map((side) => side.client.ok('DELETE', `/session/${side.id}`)));
  }
  return [sides[0]!.samples, sides[1]!.samples];
}
