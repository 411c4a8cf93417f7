// The history list's query string (GET /wdgate/sessions?…), checked: a bad value is invalid
// argument naming it. Pure.
import { error } from '../webdriver/errors.ts';
import type { ListQuery } from './index.ts';

const RESULTS = ['passed', 'failed', 'skipped', 'unknown'];
const STATES = ['ended', 'active', 'all'];

export function listQuery(queryString: string): ListQuery {
  const q = new URLSearchParams(queryString);
  const query: ListQuery = { limit: 50, offset: 0 };
  const state = q.get('state');
  if (state !== null) {
    if (!STATES.includes(state)) throw error('invalid argument', `state must be one of ${STATES.join(', ')}`);
    query.state = state as ListQuery['state'];
  }
  const result = q.get('result');
  if (result !== null) {
    if (!RESULTS.includes(result)) throw error('invalid argument', `result must be one of ${RESULTS.join(', ')}`);
    query.result = result;
  }
  for (const key of ['name', 'build', 'principal'] as const) {
    const value = q.get(key);
    if (value !== null && value !== '') query[key] = value;
  }
  for (const key of ['since', 'until'] as const) {
    const value = q.get(key);
    if (value === null || value === '') continue;
    const time = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
    if (!Number.isFinite(time)) throw error('invalid argument', `${key} must be an ISO time or milliseconds since the epoch`);
    query[key] = time;
  }
  const integer = (key: 'limit' | 'offset', min: number, max: number) => {
    const value = q.get(key);
    if (value === null) return;
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) throw error('invalid argument', `${key} must be an integer from ${min} to ${max}`);
    query[key] = n;
  };
  integer('limit', 1, 500);
  integer('offset', 0, Number.MAX_SAFE_INTEGER);
  return query;
}
