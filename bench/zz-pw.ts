import { chromium, firefox } from 'playwright-core';
for (const [name, type, opts] of [
  ['chromium', chromium, { executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless=new'] }],
  ['firefox', firefox, { channel: 'moz-firefox', executablePath: '/usr/bin/firefox-esr', headless: true }],
] as const) {
  let t = performance.now();
  const browser = await (type as typeof chromium).launch(opts as never);
  console.log(name, 'launch', (performance.now() - t).toFixed(0), browser.version());
  t = performance.now();
  const context = await browser.newContext({ viewport: null });
  const page = await context.newPage();
  console.log(name, 'context+page', (performance.now() - t).toFixed(0));
  await page.goto('data:text/html,<title>x</title><iframe srcdoc="<p>in</p>"></iframe><input id=i>');
  t = performance.now();
  for (let i = 0; i < 100; i++) await page.evaluate('1+1');
  console.log(name, 'evaluate x100 per', ((performance.now() - t) / 100).toFixed(2));
  const lib = await page.evaluateHandle('({ add: (a, b) => a + b })');
  t = performance.now();
  for (let i = 0; i < 100; i++) await lib.evaluate('(l, [a, b]) => l.add(a, b)' as never, [1, 2]);
  console.log(name, 'handle.evaluate x100 per', ((performance.now() - t) / 100).toFixed(2));
  console.log(name, 'frames', page.frames().length, page.frames().map((f) => f.url()));
  page.on('dialog', (d) => console.log(name, 'dialog', d.type(), d.message()));
  t = performance.now();
  const shot = await page.screenshot();
  console.log(name, 'screenshot', (performance.now() - t).toFixed(0), shot.length);
  await page.keyboard.down('Shift'); await page.keyboard.up('Shift');
  await page.mouse.move(10, 10); await page.mouse.down(); await page.mouse.up();
  console.log(name, 'viewport', page.viewportSize(), await page.evaluate('[innerWidth, innerHeight, outerWidth, outerHeight, screenX]'));
  try { const cdp = await context.newCDPSession(page); console.log(name, 'cdp ok', !!cdp); } catch (e) { console.log(name, 'cdp', (e as Error).message.slice(0, 80)); }
  try { console.log(name, 'pdf', (await page.pdf()).length); } catch (e) { console.log(name, 'pdf', (e as Error).message.slice(0, 80)); }
  await context.close();
  await browser.close();
}
