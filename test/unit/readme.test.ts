// The README's endpoint list comes from the route table: keep them the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { routes } from '../../src/webdriver/routes.ts';

test('README lists every route of the table', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const r of routes) {
    assert.ok(readme.includes(`| ${r.method} | \`${r.path}\` | ${r.command} |`), `README misses ${r.method} ${r.path}`);
  }
});
