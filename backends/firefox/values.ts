// JSON values to and from WebDriver BiDi's serialization (BiDi §7.5 "script" module: LocalValue
// and RemoteValue). The gateway's page code takes and returns JSON; BiDi carries typed values.
// Converting here, not in the page, keeps a page's own JSON (which it may have replaced) out of it.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type RemoteValue = { type: string; value?: unknown; sharedId?: string; handle?: string };

/** A JSON value as a BiDi LocalValue. */
export function localValue(value: unknown): Record<string, unknown> {
  if (value === null || value === undefined) return { type: value === null ? 'null' : 'undefined' };
  switch (typeof value) {
    case 'string':
      return { type: 'string', value };
    case 'boolean':
      return { type: 'boolean', value };
    case 'number':
      return { type: 'number', value: Number.isFinite(value) ? (Object.is(value, -0) ? '-0' : value) : String(value) };
  }
  if (Array.isArray(value)) return { type: 'array', value: value.map(localValue) };
  return { type: 'object', value: Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, localValue(v)]) };
}

/** A BiDi RemoteValue as the JSON value it stands for (what JSON.stringify would keep). */
export function jsonValue(remote: RemoteValue | undefined): Json | undefined {
  if (!remote) return undefined;
  switch (remote.type) {
    case 'undefined':
      return undefined;
    case 'null':
      return null;
    case 'string':
    case 'boolean':
      return remote.value as Json;
    case 'number':
      // NaN, ±Infinity and -0 as JSON has them: null, null and 0.
      return typeof remote.value === 'number' ? remote.value : remote.value === '-0' ? 0 : null;
    case 'array':
      return ((remote.value ?? []) as RemoteValue[]).map((v) => jsonValue(v) ?? null);
    case 'object': {
      const out: Record<string, Json> = {};
      for (const [key, v] of (remote.value ?? []) as [string | RemoteValue, RemoteValue][]) {
        const value = jsonValue(v);
        if (typeof key === 'string' && value !== undefined) out[key] = value;
      }
      return out;
    }
    default:
      // Nodes, windows, functions...: the page code never returns them as results.
      return {};
  }
}
