// Admission of new sessions (one component, as Selenium Grid's session queue and browserless's
// limiter): at most `maxSessions` at once; further New Session requests wait in a FIFO queue for
// at most `queueTimeout` ms, and a client that goes away leaves the queue at once.
import { error } from './errors.ts';

export interface AdmissionConfig {
  maxSessions: number;
  /** Requests that may wait at once; past it New Session fails at once. */
  maxQueued: number;
  /** How long a request waits for a free slot (ms). */
  queueTimeout: number;
}

/** A slot taken by a session (or a session being created); give it back exactly once. */
export interface Ticket {
  release(): void;
}

interface Waiter {
  since: number;
  admit(ticket: Ticket): void;
}

export class Admission {
  readonly config: AdmissionConfig;
  #active = 0;
  readonly #queue: Waiter[] = [];

  constructor(config: AdmissionConfig) {
    this.config = config;
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Milliseconds the oldest waiter has waited (0: none waits). */
  get oldestWait(): number {
    const oldest = this.#queue[0];
    return oldest ? Date.now() - oldest.since : 0;
  }

  get full(): boolean {
    return this.#active >= this.config.maxSessions;
  }

  /** A slot now, or once one frees (first come, first served); `session not created` on timeout or abort. */
  admit(signal?: AbortSignal): Promise<Ticket> {
    if (signal?.aborted) return Promise.reject(error('session not created', 'the client went away'));
    if (!this.full && this.#queue.length === 0) return Promise.resolve(this.#take());
    const { maxSessions, maxQueued, queueTimeout } = this.config;
    if (this.#queue.length >= maxQueued) {
      return Promise.reject(error('session not created', `maximum number of active sessions reached (${maxSessions}) and the queue is full (${maxQueued} waiting)`));
    }
    return new Promise<Ticket>((resolve, reject) => {
      const leave = (message: string) => {
        const index = this.#queue.indexOf(waiter);
        if (index >= 0) this.#queue.splice(index, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        reject(error('session not created', message));
      };
      const aborted = () => leave('the client went away while its New Session request was queued');
      const waiter: Waiter = {
        since: Date.now(),
        admit: (ticket) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', aborted);
          resolve(ticket);
        },
      };
      const timer = setTimeout(
        () => leave(`the New Session request timed out after ${queueTimeout} ms in the queue: all ${maxSessions} sessions stayed in use`),
        queueTimeout,
      );
      signal?.addEventListener('abort', aborted, { once: true });
      this.#queue.push(waiter);
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

  #next(): void {
    while (!this.full && this.#queue.length > 0) this.#queue.shift()!.admit(this.#take());
  }
}
