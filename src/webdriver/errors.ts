// The closed set of W3C WebDriver error codes (spec §6.6 "Errors") and their HTTP statuses.
// Every error the gateway answers with passes through here, once.
import { InvalidParametersError, NavigationTimeoutError, NoSuchWindowError, ScriptError, UnsupportedPrimitiveError } from '../../backends/backend.ts';

export const ERROR_STATUS = {
  'element click intercepted': 400,
  'element not interactable': 400,
  'insecure certificate': 400,
  'invalid argument': 400,
  'invalid cookie domain': 400,
  'invalid element state': 400,
  'invalid selector': 400,
  'invalid session id': 404,
  'javascript error': 500,
  'move target out of bounds': 500,
  'no such alert': 404,
  'no such cookie': 404,
  'no such element': 404,
  'no such frame': 404,
  'no such window': 404,
  'no such shadow root': 404,
  'script timeout': 500,
  'session not created': 500,
  'stale element reference': 404,
  'detached shadow root': 404,
  timeout: 500,
  'unable to set cookie': 500,
  'unable to capture screen': 500,
  'unexpected alert open': 500,
  'unknown command': 404,
  'unknown error': 500,
  'unknown method': 405,
  'unsupported operation': 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code);
}

export class WebDriverError extends Error {
  readonly code: ErrorCode;
  /** Extra members for the error's `value`, e.g. `data.text` for unexpected alert open. */
  readonly data?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, data?: Record<string, unknown>) {
    super(message);
    this.name = 'WebDriverError';
    this.code = code;
    this.data = data;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/**
 * Not W3C: a refusal of the gateway's own endpoints (the admin API) with an HTTP status, as its
 * gate refuses (403 with the body of an unknown error).
 */
export class HttpRefusal extends Error {
  constructor(
    readonly status: 401 | 403,
    message: string,
  ) {
    super(message);
  }
}

/** Shorthand used throughout the command layer: `throw error('no such element', '...')`. */
export function error(code: ErrorCode, message: string, data?: Record<string, unknown>): WebDriverError {
  return new WebDriverError(code, message, data);
}

/**
 * Any thrown value → a WebDriverError. Internal exceptions become `unknown error`; their
 * message is kept (it helps users report bugs) but never their stack.
 */
export function toWebDriverError(e: unknown): WebDriverError {
  if (e instanceof WebDriverError) return e;
  if (e instanceof NoSuchWindowError) return new WebDriverError('no such window', e.message);
  if (e instanceof NavigationTimeoutError) return new WebDriverError('timeout', e.message);
  if (e instanceof ScriptError) return new WebDriverError('javascript error', e.message);
  // A backend that lacks a primitive says so on every command, never a silent difference.
  if (e instanceof UnsupportedPrimitiveError) return new WebDriverError('unsupported operation', e.message);
  // The browser refused a primitive's values (a permission descriptor, an authenticator id).
  if (e instanceof InvalidParametersError) return new WebDriverError('invalid argument', e.message);
  const message = e instanceof Error ? e.message : String(e);
  return new WebDriverError('unknown error', message);
}

/** The wire form of an error (spec: "send an error"). */
export function serializeError(e: WebDriverError): { status: number; body: string } {
  // One line, whatever produced it (a page's exception text, a browser's multi-line error):
  // clients print messages in one line and logs are line-based.
  const value: Record<string, unknown> = { error: e.code, message: oneLine(e.message), stacktrace: '' };
  if (e.data) Object.assign(value, e.data);
  return { status: e.status, body: JSON.stringify({ value }) };
}

/** Line breaks and the indentation after them become one space. */
export function oneLine(message: string): string {
  return message.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
