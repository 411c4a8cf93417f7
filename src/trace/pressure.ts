// Whether the machine has room for a trace's optional pictures. A screenshot costs the browser
// 15–20 ms of CPU (a frame drawn, read back and encoded), as much as five cheap commands: on a
// saturated machine every session's commands would pay for it. So a picture no failure needs is
// taken only while the CPU is not saturated — judged from Linux's pressure stall information (the
// share of time some runnable task waited for a CPU: the cgroup's cpu.pressure, else
// /proc/pressure/cpu), else from the load average per core — one at a time per two cores across
// the gateway, and after each the slot rests nine times as long as the picture took (pictures
// take at most a tenth of a slot's time; slower on a busier machine, so fewer). Left out, it is
// counted (wdgate_trace_captures_dropped_total{reason="machine busy"}).
import { readFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';

/** Above this share of time with a task waiting for a CPU, the machine is busy. */
const BUSY_STALL = 0.3;
/** Without pressure information: above this load average per core. */
const BUSY_LOAD = 0.8;
/** A slot rests this many times as long as its last picture took. */
const REST = 9;
const SOURCES = ['/sys/fs/cgroup/cpu.pressure', '/proc/pressure/cpu'];

export interface GateOptions {
  /** Pictures at once (default: one per two cores). */
  slots?: number;
  /** Pressure files to read, first found wins (tests give their own). */
  sources?: string[];
  /** How often the pressure is read again while pictures are asked for, ms. */
  sampleMs?: number;
  /** The clock (ms): performance.now, unless a test turns it. */
  now?: () => number;
}

export class PictureGate {
  readonly #sources: string[];
  readonly #sampleMs: number;
  readonly #now: () => number;
  /** When each slot is free again (ms, performance.now()); Infinity while its picture is taken. */
  readonly #slots: number[];
  #busy = false;
  #reading = false;
  #readAt = -Infinity;
  #last: { stalledUs: number; at: number } | undefined;
  #source: string | null | undefined;

  constructor(options: GateOptions = {}) {
    this.#slots = Array.from({ length: options.slots ?? Math.max(1, Math.floor(availableParallelism() / 2)) }, () => 0);
    this.#sources = options.sources ?? SOURCES;
    this.#sampleMs = options.sampleMs ?? 1000;
    this.#now = options.now ?? (() => performance.now());
  }

  /** A slot for one optional picture now (call the release when it is done), or undefined when the machine is busy. */
  acquire(): (() => void) | undefined {
    this.#sample();
    const now = this.#now();
    const slot = this.#slots.findIndex((free) => free <= now);
    if (this.#busy || slot < 0) return undefined;
    this.#slots[slot] = Infinity;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const done = this.#now();
      this.#slots[slot] = done + REST * (done - now);
    };
  }

  /** Whether the last reading found the machine busy. */
  get busy(): boolean {
    return this.#busy;
  }

  /** Read the pressure again when the last reading is old; resolves once read (acquire judges by the last reading). */
  sample(): Promise<void> {
    return this.#sample() ?? Promise.resolve();
  }

  #sample(): Promise<void> | undefined {
    const now = this.#now();
    if (this.#reading || now - this.#readAt < this.#sampleMs) return undefined;
    this.#reading = true;
    return this.#stalledUs()
      .then((stalledUs) => {
        const at = this.#now();
        if (stalledUs === undefined) {
          this.#busy = loadavg()[0]! / availableParallelism() > BUSY_LOAD;
        } else {
          // Across a long quiet gap the share says little of now: that reading only sets the baseline.
          if (this.#last && at - this.#last.at < 10 * this.#sampleMs) this.#busy = (stalledUs - this.#last.stalledUs) / ((at - this.#last.at) * 1000) > BUSY_STALL;
          this.#last = { stalledUs, at };
        }
      })
      .finally(() => {
        this.#reading = false;
        this.#readAt = this.#now();
      });
  }

  /** Microseconds some task has waited for a CPU so far, or undefined where the kernel does not say. */
  async #stalledUs(): Promise<number | undefined> {
    for (const source of this.#source === undefined ? this.#sources : this.#source === null ? [] : [this.#source]) {
      const text = await readFile(source, 'utf8').catch(() => undefined);
      const total = text && /^some .*total=(\d+)/m.exec(text)?.[1];
      if (total) {
        this.#source = source;
        return Number(total);
      }
    }
    this.#source = null;
    return undefined;
  }
}

/** The gateway's gate (one machine, one judgement). */
export const pictureGate = new PictureGate();
