// Which backend serves a set of capabilities (src/webdriver/routing.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebDriverError } from '../../src/webdriver/errors.ts';
import { selectRoute } from '../../src/webdriver/routing.ts';

describe('selectRoute', () => {
  test('wdgate:options.backend wins over every route; remote alone means the default upstream', () => {
    assert.deepEqual(selectRoute({ browserName: 'firefox', 'wdgate:options': { backend: 'native' } }, []), { backend: 'native' });
    assert.deepEqual(selectRoute({ 'wdgate:options': { backend: 'remote' } }, []), { backend: 'remote' });
    assert.deepEqual(selectRoute({ 'wdgate:options': { upstream: 'grid' } }, []), { backend: 'remote', upstream: 'grid' });
  });

  test("default routes: chrome and nothing go to any backend (native first), firefox to native (Playwright's one capability away), WebKit to WebKitWebDriver", () => {
    assert.equal(selectRoute({}, []), undefined);
    assert.equal(selectRoute({ browserName: 'chrome' }, []), undefined);
    assert.deepEqual(selectRoute({ browserName: 'firefox' }, []), { backend: 'native' });
    assert.deepEqual(selectRoute({ browserName: 'firefox', webSocketUrl: false }, []), { backend: 'native' });
    assert.deepEqual(selectRoute({ browserName: 'firefox', webSocketUrl: true }, []), { backend: 'native' });
    assert.deepEqual(selectRoute({ browserName: 'firefox', 'wdgate:options': { backend: 'playwright' } }, []), { backend: 'playwright' });
    assert.deepEqual(selectRoute({ browserName: 'webkit' }, []), { backend: 'remote', upstream: 'webkit' });
    assert.deepEqual(selectRoute({ browserName: 'MiniBrowser' }, []), { backend: 'remote', upstream: 'webkit' });
  });

  test('configured routes come first and match capabilities member by member, vendor options included', () => {
    const routes = [
      { match: { browserName: 'chrome', 'goog:chromeOptions': { mobileEmulation: { deviceName: 'Pixel 7' } } }, backend: 'remote', upstream: 'grid' },
      { match: { platformName: 'windows' }, backend: 'remote', upstream: 'windows-grid' },
      { match: { browserName: 'firefox' }, backend: 'remote', upstream: 'geckodriver' },
    ];
    const pixel = { browserName: 'chrome', 'goog:chromeOptions': { args: ['--x'], mobileEmulation: { deviceName: 'Pixel 7' } } };
    assert.deepEqual(selectRoute(pixel, routes), { backend: 'remote', upstream: 'grid' });
    assert.equal(selectRoute({ browserName: 'chrome', 'goog:chromeOptions': { mobileEmulation: { deviceName: 'iPhone' } } }, routes), undefined);
    assert.deepEqual(selectRoute({ platformName: 'windows' }, routes), { backend: 'remote', upstream: 'windows-grid' });
    assert.deepEqual(selectRoute({ browserName: 'firefox' }, routes), { backend: 'remote', upstream: 'geckodriver' });
  });

  test('malformed wdgate:options are invalid argument', () => {
    for (const options of [{ backend: 7 }, { upstream: ['x'] }, { backend: 'native', upstream: 'grid' }]) {
      assert.throws(
        () => selectRoute({ 'wdgate:options': options }, []),
        (e: unknown) => e instanceof WebDriverError && e.code === 'invalid argument',
      );
    }
  });
});
