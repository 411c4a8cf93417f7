// Parse-once validators for command parameters. A command declares its parameters with these;
// the server runs the parser before the handler, so handlers receive typed values and never
// re-check shapes. A failure is always `invalid argument` naming the JSON path.
// Members a parser does not name are ignored: real clients send extras (Selenium's `text`
// beside `value` in send keys, `id` in click).
import { error } from './errors.ts';

export type Parser<T> = (value: unknown, path: string) => T;
export type Parsed<P> = P extends Parser<infer T> ? T : never;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Spec §12.1: the web element identifier, the key of a web element reference's one member. */
export const WEB_ELEMENT_IDENTIFIER = 'element-6066-11e4-a52e-4f735466cecf';
/** Spec §12.2: the shadow root identifier. */
export const SHADOW_ROOT_IDENTIFIER = 'shadow-6066-11e4-a52e-4f735466cecf';

function fail(path: string, what: string): never {
  throw error('invalid argument', `${path} must be ${what}`);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const p = {
  any: ((v: unknown) => v) as Parser<unknown>,
  string: ((v, path) => (typeof v === 'string' ? v : fail(path, 'a string'))) as Parser<string>,
  boolean: ((v, path) => (typeof v === 'boolean' ? v : fail(path, 'a boolean'))) as Parser<boolean>,
  number: ((v, path) => (typeof v === 'number' && Number.isFinite(v) ? v : fail(path, 'a number'))) as Parser<number>,

  integer(min = 0, max = MAX_SAFE): Parser<number> {
    return (v, path) =>
      Number.isInteger(v) && (v as number) >= min && (v as number) <= max
        ? (v as number)
        : fail(path, `an integer from ${min} to ${max === MAX_SAFE ? '2^53-1' : max}`);
  },

  oneOf<const T extends string>(...values: T[]): Parser<T> {
    return (v, path) => (values.includes(v as T) ? (v as T) : fail(path, `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`));
  },

  /** The member may be absent (undefined); null is not absent. */
  optional<T>(inner: Parser<T>): Parser<T | undefined> {
    return (v, path) => (v === undefined ? undefined : inner(v, path));
  },

  /** Absent or null both give null. */
  nullable<T>(inner: Parser<T>): Parser<T | null> {
    return (v, path) => (v === undefined || v === null ? null : inner(v, path));
  },

  array<T>(inner: Parser<T>): Parser<T[]> {
    return (v, path) => (Array.isArray(v) ? v.map((x, i) => inner(x, `${path}[${i}]`)) : fail(path, 'an array'));
  },

  object<S extends Record<string, Parser<unknown>>>(shape: S): Parser<{ [K in keyof S]: Parsed<S[K]> }> {
    return (v, path) => {
      if (!isPlainObject(v)) fail(path, 'an object');
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(shape)) out[key] = shape[key]!(v[key], path ? `${path}.${key}` : key);
      return out as { [K in keyof S]: Parsed<S[K]> };
    };
  },

  /** A JSON object whose members are not checked here (capabilities, actions payloads). */
  record: ((v, path) => (isPlainObject(v) ? v : fail(path, 'an object'))) as Parser<Record<string, unknown>>,
};
