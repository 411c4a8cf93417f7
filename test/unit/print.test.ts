// Print Page's parameters (spec §18.1 steps 3-26): defaults, page ranges, and invalid argument
// for every bad value, naming the member.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePrintParameters } from '../../src/webdriver/print.ts';
import { WebDriverError } from '../../src/webdriver/errors.ts';

const parse = (body: unknown) => parsePrintParameters(body, '');

function invalid(body: unknown, mentions: string): void {
  assert.throws(
    () => parse(body),
    (e: unknown) => e instanceof WebDriverError && e.code === 'invalid argument' && e.message.includes(mentions),
    JSON.stringify(body),
  );
}

describe('print parameters', () => {
  test('the spec defaults: portrait US Letter, 1 cm margins, scale 1, no background, shrink to fit, every page', () => {
    assert.deepEqual(parse({}), {
      landscape: false,
      scale: 1,
      background: false,
      width: 21.59,
      height: 27.94,
      margin: { top: 1, bottom: 1, left: 1, right: 1 },
      shrinkToFit: true,
      pageRanges: [],
    });
  });

  test('given values are kept; members not named are ignored', () => {
    const parsed = parse({
      orientation: 'landscape',
      scale: 0.1,
      background: true,
      page: { width: 2.54 / 72, height: 100 },
      margin: { top: 0, left: 2.5 },
      shrinkToFit: false,
      extra: 'ignored',
    });
    assert.equal(parsed.landscape, true);
    assert.equal(parsed.scale, 0.1);
    assert.equal(parsed.background, true);
    assert.equal(parsed.width, 2.54 / 72);
    assert.equal(parsed.height, 100);
    assert.deepEqual(parsed.margin, { top: 0, bottom: 1, left: 2.5, right: 1 });
    assert.equal(parsed.shrinkToFit, false);
    assert.equal(parse({ scale: 2 }).scale, 2);
  });

  test('page ranges: numbers and "N", "N-M", "N-", "-M", "-" strings; commas as chromedriver', () => {
    assert.deepEqual(parse({ pageRanges: [7, '7', '2-4', '9-', '-2', '-', ' 3 - 5 ', '1, 5-6'] }).pageRanges, [
      { first: 7, last: 7 },
      { first: 7, last: 7 },
      { first: 2, last: 4 },
      { first: 9 },
      { first: 1, last: 2 },
      { first: 1 },
      { first: 3, last: 5 },
      { first: 1, last: 1 },
      { first: 5, last: 6 },
    ]);
    assert.deepEqual(parse({ pageRanges: ['4-4'] }).pageRanges, [{ first: 4, last: 4 }]);
  });

  test('bad values are invalid argument naming the member', () => {
    invalid({ orientation: 'sideways' }, 'orientation');
    invalid({ orientation: null }, 'orientation');
    invalid({ scale: 0.09 }, 'scale');
    invalid({ scale: 2.01 }, 'scale');
    invalid({ scale: '1' }, 'scale');
    invalid({ background: null }, 'background');
    invalid({ page: [] }, 'page');
    invalid({ page: { width: 0.035 } }, 'page.width');
    invalid({ page: { height: Number.NaN } }, 'page.height');
    invalid({ margin: 1 }, 'margin');
    invalid({ margin: { right: -1 } }, 'margin.right');
    invalid({ margin: { bottom: '0' } }, 'margin.bottom');
    invalid({ shrinkToFit: 'yes' }, 'shrinkToFit');
    invalid({ pageRanges: 1 }, 'pageRanges');
    invalid({ pageRanges: [1, 'x'] }, 'pageRanges[1]');
    invalid({ pageRanges: ['5-3'] }, 'pageRanges[0]');
    invalid({ pageRanges: ['1-2-3'] }, 'pageRanges[0]');
    invalid({ pageRanges: ['+1'] }, 'pageRanges[0]');
    invalid({ pageRanges: ['0-2'] }, 'pageRanges[0]');
    invalid({ pageRanges: [true] }, 'pageRanges[0]');
    invalid({ pageRanges: [2 ** 53] }, 'pageRanges[0]');
    invalid({ pageRanges: ['1,'] }, 'pageRanges[0]');
  });
});
