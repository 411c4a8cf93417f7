// Prometheus metrics (prom-client), served at GET /metrics: sessions active, queued (and queued
// per principal), created, failed and ended by result; the pool's browsers and contexts per key;
// command latency by command name. An observer of the command seam (src/webdriver/seam.ts):
// every kind of command is counted in one place.
import client from 'prom-client';
import type { KeyStats } from '../pool/pool.ts';
import type { LineStats } from '../webdriver/admission.ts';
import type { Observer, SessionEnd, Step } from '../webdriver/seam.ts';
import { commandFacts } from '../webdriver/routes.ts';
import { registerPoolMetrics } from './pool-metrics.ts';

/** What the metrics read from the gateway when scraped. */
export interface MetricsSource {
  sessionsActive(): number;
  /** Session slots taken: sessions running and those being created (what an autoscaler counts as busy). */
  slotsBusy(): number;
  sessionsQueued(): number;
  /** Each waiting principal's line (principals come from the token file: a bounded label). */
  queuedByPrincipal(): LineStats[];
  pool(): KeyStats[];
  /** BiDi sockets open now. */
  bidiConnections(): number;
}

export class Metrics implements Observer {
  readonly registry = new client.Registry();
  readonly sessionsCreated: client.Counter;
  readonly sessionsFailed: client.Counter;
  readonly commandDuration: client.Histogram<'command'>;
  readonly commandErrors: client.Counter<'command' | 'error'>;
  readonly bidiMessages: client.Counter<'direction'>;
  readonly bidiErrors: client.Counter<'error'>;
  readonly sessionsEnded: client.Counter<'result'>;
  readonly tracesWritten: client.Counter;
  readonly tracesDropped: client.Counter<'reason'>;
  readonly traceCapturesDropped: client.Counter<'reason'>;

  constructor(source: MetricsSource) {
    const registers = [this.registry];
    this.sessionsCreated = new client.Counter({ name: 'wdgate_sessions_created_total', help: 'Sessions created', registers });
    this.sessionsFailed = new client.Counter({ name: 'wdgate_sessions_failed_total', help: 'New Session requests that failed', registers });
    this.commandDuration = new client.Histogram({
      name: 'wdgate_command_duration_seconds',
      help: 'Time from a command reaching its session to its answer, by W3C command name',
      labelNames: ['command'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.commandErrors = new client.Counter({
      name: 'wdgate_command_errors_total',
      help: 'Commands that answered an error, by command and W3C error code',
      labelNames: ['command', 'error'],
      registers,
    });
    this.bidiMessages = new client.Counter({
      name: 'wdgate_bidi_messages_total',
      help: 'WebDriver BiDi messages: received from clients (in), sent to them (out)',
      labelNames: ['direction'],
      registers,
    });
    this.bidiErrors = new client.Counter({ name: 'wdgate_bidi_errors_total', help: 'BiDi commands that answered an error, by error code', labelNames: ['error'], registers });
    // Traces and history (src/trace/).
    this.sessionsEnded = new client.Counter({ name: 'wdgate_sessions_ended_total', help: 'Sessions ended, by result (passed, failed, skipped, unknown)', labelNames: ['result'], registers });
    this.tracesWritten = new client.Counter({ name: 'wdgate_traces_written_total', help: 'Session traces written to the history', registers });
    this.tracesDropped = new client.Counter({
      name: 'wdgate_traces_dropped_total',
      help: 'Session traces not kept: retain-on-failure on a session that did not fail, or a write that failed (a full disk)',
      labelNames: ['reason'],
      registers,
    });
    this.traceCapturesDropped = new client.Counter({
      name: 'wdgate_trace_captures_dropped_total',
      help: "Screenshots and DOM snapshots a trace went without: the capture failed, the trace reached its size limit, or (a picture no failure needed) the machine was busy",
      labelNames: ['reason'],
      registers,
    });
    new client.Gauge({
      name: 'wdgate_bidi_connections',
      help: 'WebDriver BiDi sockets open now',
      registers,
      collect() {
        this.set(source.bidiConnections());
      },
    });
    new client.Gauge({
      name: 'wdgate_sessions_active',
      help: 'Sessions open now',
      registers,
      collect() {
        this.set(source.sessionsActive());
      },
    });
    new client.Gauge({
      name: 'wdgate_slots_busy',
      help: 'Session slots taken (of maxSessions): sessions running and sessions being created',
      registers,
      collect() {
        this.set(source.slotsBusy());
      },
    });
    new client.Gauge({
      name: 'wdgate_sessions_queued',
      help: 'New Session requests waiting for a free slot',
      registers,
      collect() {
        this.set(source.sessionsQueued());
      },
    });
    new client.Gauge({
      name: 'wdgate_principal_sessions_queued',
      help: 'New Session requests waiting for a free slot, by principal (the token that asks)',
      labelNames: ['principal'],
      registers,
      collect() {
        this.reset();
        for (const line of source.queuedByPrincipal()) this.set({ principal: line.principal }, line.queued);
      },
    });
    new client.Gauge({
      name: 'wdgate_pool_browsers',
      help: 'Browser processes per pool key',
      labelNames: ['backend', 'key'],
      registers,
      collect() {
        this.reset();
        for (const stats of source.pool()) this.set({ backend: stats.backend, key: JSON.stringify(stats.key) }, stats.browsers);
      },
    });
    new client.Gauge({
      name: 'wdgate_pool_contexts',
      help: 'Browser contexts per pool key: leased to sessions (in_use) or prepared (free)',
      labelNames: ['backend', 'key', 'state'],
      registers,
      collect() {
        this.reset();
        for (const stats of source.pool()) {
          const labels = { backend: stats.backend, key: JSON.stringify(stats.key) };
          this.set({ ...labels, state: 'in_use' }, stats.inUse);
          this.set({ ...labels, state: 'free' }, stats.free);
        }
      },
    });
    registerPoolMetrics(this.registry, () => source.pool());
  }

  // ── The seam ──────────────────────────────────────────────────────────────────────────────

  opened(): void {
    this.sessionsCreated.inc();
  }

  answered(step: Step): void {
    if (step.kind === 'bidi') return; // counted by the socket (./bidiError), refusals included
    // Labels stay bounded: a forwarded request no route names is counted as one.
    const command = step.kind === 'forwarded' && !commandFacts(step.name).known ? 'unrouted' : step.name;
    this.commandDuration.observe({ command }, step.durationMs / 1000);
    if (step.error) this.commandErrors.inc({ command, error: step.error.code });
    if (step.name === 'newSession' && step.error) this.sessionsFailed.inc();
  }

  ended(_session: unknown, end: SessionEnd): void {
    this.sessionsEnded.inc({ result: end.result });
  }

  /** A BiDi message came (in) or went (out). */
  bidiMessage(direction: 'in' | 'out'): void {
    this.bidiMessages.inc({ direction });
  }

  /** A BiDi command answered an error: the engine's, or the gateway's refusal of a malformed message. */
  bidiError(code: string): void {
    this.bidiErrors.inc({ error: code });
  }

  /** The exposition text (Prometheus format) and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
