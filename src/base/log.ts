// Structured logs (pino): one JSON line per gateway event, per session event and per failed
// command, with the session id, the command and its duration. Never request bodies, never tokens.
import pino from 'pino';

export type Logger = pino.Logger;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function createLogger(level: LogLevel): Logger {
  return pino(
    { level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    // Synchronous: a line is out before a signal's exit, and the volume is low (no per-request lines).
    pino.destination({ dest: 1, sync: true }),
  );
}

/** A logger that writes nothing (library use, tests of pure logic). */
export const silentLogger: Logger = pino({ level: 'silent' });
