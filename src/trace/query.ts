// The history list's query string (GET /wdgate/sessions?…), checked: a bad value is invalid
// argument naming it. Pure.
import { error } from '../webdriver/errors.ts';
import type { ListQuery } from './index.ts';
import { VERDICTS, type TestsQuery } from './runs/index.ts';

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

/** GET /wdgate/tests?name=&build=&verdict=&limit=&offset= */
export function testsQuery(queryString: string): TestsQuery {
  const q = new URLSearchParams(queryString);
  const query: TestsQuery = { limit: 100, offset: 0 };
  for (const key of ['name', 'build'] as const) {
    const value = q.get(key);
    if (value !== null && value !== '') query[key] = value;
  }
  const verdict = q.get('verdict');
  if (verdict !== null) {
    if (!(VERDICTS as readonly string[]).includes(verdict)) throw error('invalid argument', `verdict must be one of ${VERDICTS.join(', ')}`);
    query.verdict = verdict as TestsQuery['verdict'];
  }
  for (const [key, min, max] of [['limit', 1, 1000], ['offset', 0, Number.MAX_SAFE_INTEGER]] as const) {
    const value = q.get(key);
    if (value === null) continue;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw error('invalid argument', `${key} must be an integer from ${min} to ${max}`);
    query[key] = Number(value);
  }
  return query;
}

/** GET /wdgate/sessions/{id}/compare?with= */
export function compareQuery(queryString: string): { with?: string } {
  const other = new URLSearchParams(queryString).get('with');
  if (other === null || other === '') return {};
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(other)) throw error('invalid argument', 'with must be a session id');
  return { with: other };
}
