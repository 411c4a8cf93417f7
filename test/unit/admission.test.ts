import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Admission, type AdmissionConfig, type Applicant, type Ticket } from '../../src/webdriver/admission.ts';
import { WebDriverError } from '../../src/webdriver/errors.ts';

const sessionNotCreated = (pattern: RegExp) => (e: unknown) =>
  e instanceof WebDriverError && e.code === 'session not created' && pattern.test(e.message);

const config = (over: Partial<AdmissionConfig> = {}): AdmissionConfig => ({ maxSessions: 1, maxQueued: 1000, queueTimeout: 60_000, drainNotice: 0, ...over });
const who = (name: string, share = 1): Applicant => ({ name, share });
const LOCAL = who('local');
const flush = () => new Promise((resolve) => setImmediate(resolve));

/**
 * One slot, held by whoever was admitted last: `serve(n)` gives it back n times and records who
 * got it each time (the queue's order of service).
 */
class OneSlot {
  readonly order: string[] = [];
  readonly admission: Admission;
  #held: Ticket | undefined;

  constructor(over: Partial<AdmissionConfig> = {}) {
    this.admission = new Admission(config({ maxSessions: 1, ...over }));
  }

  async start(): Promise<void> {
    this.#held = await this.admission.admit(who('first'));
  }

  /** `count` requests of one principal, queued now in order. */
  ask(name: string, count: number, share = 1): Promise<unknown>[] {
    return Array.from({ length: count }, () =>
      this.admission.admit(who(name, share)).then((ticket) => {
        this.order.push(name);
        this.#held = ticket;
      }),
    );
  }

  async serve(times: number): Promise<void> {
    for (let i = 0; i < times; i++) {
      this.#held!.release();
      await flush();
    }
  }

  /** Admissions until the `n`-th of `name` (1-based), counted from the first. */
  turnOf(name: string, n: number): number {
    let seen = 0;
    const at = this.order.findIndex((x) => x === name && ++seen === n);
    return at + 1;
  }
}

describe('slots and the queue', () => {
  test('below the maximum a slot is given at once; a released slot is reused', async () => {
    const admission = new Admission(config({ maxSessions: 2 }));
    const a = await admission.admit(LOCAL);
    await admission.admit(LOCAL);
    assert.equal(admission.full, true);
    a.release();
    a.release(); // twice is once
    assert.equal(admission.active, 1);
    assert.equal(admission.full, false);
  });

  test("one principal's waiters are admitted first come, first served", async () => {
    const admission = new Admission(config());
    const first = await admission.admit(LOCAL);
    const order: string[] = [];
    const b = admission.admit(LOCAL).then((t) => (order.push('b'), t));
    const c = admission.admit(LOCAL).then((t) => (order.push('c'), t));
    assert.equal(admission.queued, 2);
    assert.deepEqual(
      admission.lines().map(({ principal, queued, share }) => ({ principal, queued, share })),
      [{ principal: 'local', queued: 2, share: 1 }],
    );
    first.release();
    (await b).release();
    (await c).release();
    assert.deepEqual(order, ['b', 'c']);
    assert.equal(admission.active, 0);
    assert.deepEqual(admission.lines(), []);
  });

  test('a waiter past the queue timeout is session not created, and leaves the queue', async () => {
    const admission = new Admission(config({ queueTimeout: 20 }));
    await admission.admit(LOCAL);
    await assert.rejects(admission.admit(LOCAL), sessionNotCreated(/timed out after 20 ms in the queue/));
    assert.equal(admission.queued, 0);
    assert.deepEqual(admission.lines(), []);
  });

  test('a waiter whose client went away leaves the queue at once, and never takes a slot', async () => {
    const admission = new Admission(config({ queueTimeout: 10_000 }));
    const first = await admission.admit(LOCAL);
    const gone = new AbortController();
    const waiting = admission.admit(LOCAL, gone.signal);
    gone.abort();
    await assert.rejects(waiting, sessionNotCreated(/went away/));
    assert.equal(admission.queued, 0);
    first.release();
    assert.equal(admission.active, 0);
    await assert.rejects(admission.admit(LOCAL, gone.signal), sessionNotCreated(/went away/));
  });

  test("each principal's queue is bounded on its own: one full line does not turn another away", async () => {
    const admission = new Admission(config({ maxQueued: 2, queueTimeout: 10_000 }));
    const first = await admission.admit(who('flood'));
    const waiting = [admission.admit(who('flood')), admission.admit(who('flood'))];
    await assert.rejects(admission.admit(who('flood')), sessionNotCreated(/maximum number of active sessions reached \(1\) and the queue of flood is full \(2 waiting\)/));
    const other = admission.admit(who('other'));
    assert.equal(admission.queued, 3);
    first.release();
    (await waiting[0]!).release();
    (await other).release(); // its turn comes before the flood's second
    (await waiting[1]!).release();
    assert.equal(admission.active, 0);
  });

  test('past the queue length New Session is refused at once (maxQueued 0: no queue, as chromedriver)', async () => {
    const admission = new Admission(config({ maxQueued: 0 }));
    await admission.admit(LOCAL);
    await assert.rejects(admission.admit(LOCAL), sessionNotCreated(/maximum number of active sessions reached \(1\) and the queue of local is full/));
  });
});

describe('fair shares: principals are served in turn', () => {
  test('one principal floods 200 New Sessions, another sends 10 after: the second waits for its turns, not for the flood', async () => {
    const slot = new OneSlot();
    await slot.start();
    const flood = slot.ask('flood', 200);
    await slot.serve(30); // the flood alone for a while
    const late = slot.ask('late', 10);
    await slot.serve(200 + 10 - 30);
    await Promise.all([...flood, ...late]);
    const start = 30;
    // Equal shares: every other turn is the late principal's, at most one turn late.
    for (let n = 1; n <= 10; n++) assert.ok(slot.turnOf('late', n) - start <= 2 * n, `request ${n} of the late principal waited ${slot.turnOf('late', n) - start} turns`);
    // First come, first served within a principal; the flood loses only the late one's turns.
    assert.equal(slot.order.filter((x) => x === 'flood').length, 200);
    assert.equal(slot.turnOf('flood', 200), 210);
  });

  test('shares weigh the turns: share=3 gets three turns for each of a share=1 principal', async () => {
    const slot = new OneSlot();
    await slot.start();
    const done = [...slot.ask('big', 30, 3), ...slot.ask('small', 30, 1)];
    await slot.serve(40);
    const first = slot.order.slice(0, 40);
    assert.equal(first.filter((x) => x === 'big').length, 30);
    assert.equal(first.filter((x) => x === 'small').length, 10);
    // Weighted round-robin, not a burst: no run of the big one is longer than its share.
    assert.ok(!first.join(',').includes('big,big,big,big'), first.join(','));
    await slot.serve(20);
    await Promise.all(done);
  });

  test("a small share does not starve: the late principal's wait is bounded by its share, not by the flood", async () => {
    const slot = new OneSlot();
    await slot.start();
    const flood = slot.ask('flood', 200, 4);
    await slot.serve(10);
    const late = slot.ask('late', 10, 1);
    await slot.serve(200);
    await Promise.all([...flood, ...late]);
    // Share 1 against 4: one turn in five.
    for (let n = 1; n <= 10; n++) assert.ok(slot.turnOf('late', n) - 10 <= 5 * n, `request ${n} of the late principal waited ${slot.turnOf('late', n) - 10} turns`);
  });

  test('waiting alone saves no credit: a principal that had every turn for a while shares from then on, it is not owed a burst', async () => {
    const slot = new OneSlot();
    await slot.start();
    const early = slot.ask('early', 100);
    await slot.serve(40);
    const late = slot.ask('late', 40);
    await slot.serve(40);
    const after = slot.order.slice(40, 80);
    // Neither behind the early one's backlog nor owed the 40 turns it was not there for: half each.
    assert.ok(Math.abs(after.filter((x) => x === 'late').length - 20) <= 1, after.join(','));
    await slot.serve(60);
    await Promise.all([...early, ...late]);
  });
});

describe('taking no new sessions: drain and shutdown, with notice', () => {
  test('with notice: not ready at once, sessions still created until the notice is over, then refused, waiters included', async () => {
    const admission = new Admission(config({ drainNotice: 150, queueTimeout: 10_000 }));
    const first = await admission.admit(LOCAL);
    const waiting = admission.admit(who('ci'));
    admission.stopTaking('wdgate is draining: upgrade', { notice: true });
    assert.equal(admission.unready, 'wdgate is draining: upgrade');
    assert.equal(admission.refusal(), undefined, 'still served during the notice');
    first.release();
    const admitted = await waiting; // a waiter admitted during the notice
    admitted.release();
    const second = await admission.admit(LOCAL); // and a new one
    const late = admission.admit(LOCAL);
    await assert.rejects(late, sessionNotCreated(/draining: upgrade/)); // the notice ends: told at once
    assert.equal(admission.refusal(), 'wdgate is draining: upgrade');
    await assert.rejects(admission.admit(LOCAL), sessionNotCreated(/draining: upgrade/));
    second.release();
    admission.resumeTaking();
    assert.equal(admission.unready, undefined);
    (await admission.admit(LOCAL)).release();
  });

  test('without notice, refused at once; a later stop with notice does not postpone it', async () => {
    const admission = new Admission(config({ drainNotice: 60_000 }));
    const first = await admission.admit(LOCAL);
    const waiting = admission.admit(LOCAL);
    admission.stopTaking('wdgate is shutting down', { notice: false });
    await assert.rejects(waiting, sessionNotCreated(/shutting down/));
    admission.stopTaking('wdgate is shutting down', { notice: true });
    assert.equal(admission.refusal(), 'wdgate is shutting down');
    first.release();
    assert.equal(admission.active, 0);
  });
});
