// The classic commands a user runs first, with the same assertions on every backend.
import assert from 'node:assert/strict';
import type { Session } from './client.ts';
import type { PageServer } from './pages.ts';
import { decodePng } from './png.ts';

/** The classic commands a user runs first, on any backend: navigate, title, find, click, keys, screenshot, cookies. */
export async function commandTour(s: Session, pages: PageServer, label: string): Promise<void> {
  await s.navigate(pages.page(`<input id="name"><button id="go" onclick="this.textContent = 'clicked'">go</button>`, `${label} page`));
  assert.equal(await s.get('/title'), `${label} page`);
  const button = await s.find('#go');
  await s.post(`/element/${button}/click`);
  assert.equal(await s.get(`/element/${button}/text`), 'clicked');
  const input = await s.find('#name');
  await s.post(`/element/${input}/value`, { text: 'typed' });
  assert.equal(await s.get(`/element/${input}/property/value`), 'typed');
  const png = decodePng(await s.get('/screenshot'));
  assert.ok(png.width > 100 && png.height > 100, `a screenshot of the page (${png.width}x${png.height})`);
  await s.post('/cookie', { cookie: { name: 'flavour', value: label } });
  assert.equal((await s.get('/cookie/flavour')).value, label);
  await s.fails('POST', '/element', { using: 'css selector', value: '#missing' }, 'no such element', 404);
}
