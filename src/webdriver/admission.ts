// Admission of new sessions (one component, as Selenium Grid's session queue and browserless's
// limiter): whether the gateway takes new sessions at all (draining, shutting down), and at most
// `maxSessions` at once. Past that, New Session requests wait: each principal in a line of its own
// (first come, first served within it, at most `maxQueued` long), the lines served in turn,
// weighted by each principal's share (stride scheduling), so one principal's burst cannot make
// every other wait behind it. A request waits at most `queueTimeout` ms, and a client that goes
// away leaves its line at once.
import { error } from './errors.ts';

export interface AdmissionConfig {
  maxSessions: number;
  /** Requests one principal may have waiting at once; past it its New Session fails at once. */
  maxQueued: number;
  /** How long a request waits for a free slot (ms). */
  queueTimeout: number;
  /**
   * Once the gateway stops taking sessions with notice (drain, SIGTERM), how long it still creates
   * them (ms): the time routers that poll readiness (a Grid's health check) need to stop sending.
   */
  drainNotice: number;
}

/** Who asks: a principal's name and its share of the queue's turns (1 unless the token file says). */
export interface Applicant {
  name: string;
  share: number;
}

/** A slot taken by a session (or a session being created); give it back exactly once. */
export interface Ticket {
  release(): void;
}

/** One principal's line, as /status, /metrics and the dashboard show it. */
export interface LineStats {
  principal: string;
  share: number;
  queued: number;
  /** Milliseconds its oldest waiter has waited. */
  oldestQueuedMs: number;
}

interface Waiter {
  since: number;
  /** Arrival order across every line: breaks ties between lines first come, first served. */
  seq: number;
  admit(ticket: Ticket): void;
  refuse(message: string): void;
}

interface Line {
  applicant: Applicant;
  waiters: Waiter[];
  /** Stride scheduling's pass: the line with the lowest is served next; each turn adds 1/share. */
  pass: number;
}

/** Why the gateway takes no new sessions, and from when on it refuses them. */
interface Unready {
  message: string;
  refuseFrom: number;
}

export class Admission {
  readonly config: AdmissionConfig;
  #active = 0;
  #seq = 0;
  /** Lines of principals with waiters (a line that empties is forgotten). */
  readonly #lines = new Map<string, Line>();
  /** The pass of the last line served: a line that starts waiting starts here, with no credit saved up. */
  #virtualTime = 0;
  #unready: Unready | undefined;
  #noticeTimer: NodeJS.Timeout | undefined;

  constructor(config: AdmissionConfig) {
    this.config = config;
  }

  get active(): number {
    return this.#active;
  }

  /** Requests waiting, every line together. */
  get queued(): number {
    let n = 0;
    for (const line of this.#lines.values()) n += line.waiters.length;
    return n;
  }

  /** Milliseconds the oldest waiter of any line has waited (0: none waits). */
  get oldestWait(): number {
    let oldest = Infinity;
    for (const line of this.#lines.values()) oldest = Math.min(oldest, line.waiters[0]!.since);
    return oldest === Infinity ? 0 : Date.now() - oldest;
  }

  /** Each waiting principal's line. */
  lines(): LineStats[] {
    const now = Date.now();
    return [...this.#lines.values()].map(({ applicant, waiters }) => ({
      principal: applicant.name,
      share: applicant.share,
      queued: waiters.length,
      oldestQueuedMs: now - waiters[0]!.since,
    }));
  }

  get full(): boolean {
    return this.#active >= this.config.maxSessions;
  }

  /**
   * Take no new sessions, saying why. With `notice`, sessions are still created for
   * `drainNotice` ms (readiness already says no), then refused, waiters included.
   */
  stopTaking(message: string, { notice }: { notice: boolean }): void {
    const refuseFrom = Date.now() + (notice ? this.config.drainNotice : 0);
    // A second stop keeps the earlier deadline: notice once given is not given again.
    this.#unready = { message, refuseFrom: Math.min(refuseFrom, this.#unready?.refuseFrom ?? Infinity) };
    clearTimeout(this.#noticeTimer);
    const left = this.#unready.refuseFrom - Date.now();
    if (left <= 0) this.#refuseWaiters();
    else this.#noticeTimer = setTimeout(() => this.#refuseWaiters(), left).unref();
  }

  /** Take new sessions again (undrain). */
  resumeTaking(): void {
    clearTimeout(this.#noticeTimer);
    this.#unready = undefined;
  }

  /** Not taking new sessions (draining or shutting down, notice or not): why; else undefined. */
  get unready(): string | undefined {
    return this.#unready?.message;
  }

  /** Why New Session is refused now, whatever the load (the notice is over), or undefined. */
  refusal(): string | undefined {
    const unready = this.#unready;
    return unready && Date.now() >= unready.refuseFrom ? unready.message : undefined;
  }

  /** A slot now, or once one frees (lines served in turn); `session not created` on refusal, timeout or abort. */
  admit(applicant: Applicant, signal?: AbortSignal): Promise<Ticket> {
    if (signal?.aborted) return Promise.reject(error('session not created', 'the client went away'));
    const refused = this.refusal();
    if (refused) return Promise.reject(error('session not created', refused));
    if (!this.full && this.#lines.size === 0) return Promise.resolve(this.#take());
    const { maxSessions, maxQueued, queueTimeout } = this.config;
    let line = this.#lines.get(applicant.name);
    if ((line?.waiters.length ?? 0) >= maxQueued) {
      return Promise.reject(
        error('session not created', `maximum number of active sessions reached (${maxSessions}) and the queue of ${applicant.name} is full (${maxQueued} waiting)`),
      );
    }
    if (!line) {
      line = { applicant, waiters: [], pass: this.#virtualTime };
      this.#lines.set(applicant.name, line);
    }
    const queue = line;
    return new Promise<Ticket>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
      };
      const leave = (message: string) => {
        const index = queue.waiters.indexOf(waiter);
        if (index >= 0) queue.waiters.splice(index, 1);
        if (queue.waiters.length === 0 && this.#lines.get(queue.applicant.name) === queue) this.#lines.delete(queue.applicant.name);
        done();
        reject(error('session not created', message));
      };
      const aborted = () => leave('the client went away while its New Session request was queued');
      const waiter: Waiter = {
        since: Date.now(),
        seq: this.#seq++,
        admit: (ticket) => {
          done();
          resolve(ticket);
        },
        refuse: leave,
      };
      const timer = setTimeout(
        () => leave(`the New Session request timed out after ${queueTimeout} ms in the queue: all ${maxSessions} sessions stayed in use`),
        queueTimeout,
      );
      signal?.addEventListener('abort', aborted, { once: true });
      queue.waiters.push(waiter);
    });
  }

  #take(): Ticket {
    this.#active++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#active--;
        this.#next();
      },
    };
  }

  /** Serve waiters while slots are free: the line with the lowest pass, ties to the longest waiting. */
  #next(): void {
    while (!this.full && this.#lines.size > 0) {
      let chosen: Line | undefined;
      for (const line of this.#lines.values()) {
        if (!chosen || line.pass < chosen.pass || (line.pass === chosen.pass && line.waiters[0]!.seq < chosen.waiters[0]!.seq)) chosen = line;
      }
      const line = chosen!;
      this.#virtualTime = line.pass;
      line.pass += 1 / line.applicant.share;
      const waiter = line.waiters.shift()!;
      if (line.waiters.length === 0) this.#lines.delete(line.applicant.name);
      waiter.admit(this.#take());
    }
  }

  /** The notice is over: every waiter is told at once (it would be refused once admitted). */
  #refuseWaiters(): void {
    const message = this.#unready?.message;
    if (message === undefined) return;
    for (const line of [...this.#lines.values()]) for (const waiter of [...line.waiters]) waiter.refuse(message);
  }
}
