// Spec §18.1 "Print Page" steps 3-26 as a pure function: the print parameters of the request
// body, defaults filled in, every bad value an invalid argument (commands/document.ts prints).
import type { PrintOptions } from '../../backends/backend.ts';
import { error } from './errors.ts';
import { isPlainObject, type Parser } from './params.ts';

/** Spec: the smallest page dimension is one PostScript point, 2.54/72 cm. */
const MIN_PAGE_SIZE = 2.54 / 72;

function fail(path: string, what: string, value: unknown): never {
  throw error('invalid argument', `${path} must be ${what} (got ${JSON.stringify(value) ?? 'undefined'})`);
}

/** Spec "getting a property with default": only an absent member takes the default (null does not). */
function withDefault(object: Record<string, unknown>, name: string, fallback: unknown): unknown {
  return object[name] === undefined ? fallback : object[name];
}

function number(value: unknown, path: string, min: number, max = Infinity): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    fail(path, max === Infinity ? `a number of at least ${min}` : `a number from ${min} to ${max}`, value);
  }
  return value;
}

function boolean(value: unknown, path: string): boolean {
  return typeof value === 'boolean' ? value : fail(path, 'a boolean', value);
}

function object(value: unknown, path: string): Record<string, unknown> {
  return isPlainObject(value) ? value : fail(path, 'an object', value);
}

type PageRange = PrintOptions['pageRanges'][number];

const RANGE_SYNTAX = 'a page number from 1, or a string "N", "N-M", "N-" or "-M" of page numbers from 1';

/**
 * Spec "parse a page range": "N" is page N, "N-M" pages N to M, a missing start is 1 and a
 * missing end the last page; more than one "-", a part that is not a page number, or a start
 * past the end is invalid. As chromedriver (and Selenium's documentation), one string may also
 * hold several ranges separated by commas: "1-2, 5".
 */
function parseRange(text: string, path: string): PageRange {
  const bad = (): never => fail(path, RANGE_SYNTAX, text);
  const parts = text.split('-');
  if (parts.length > 2) bad();
  const page = (part: string): number | undefined => {
    const digits = part.trim();
    if (digits === '') return undefined;
    if (!/^[0-9]+$/.test(digits)) bad();
    const n = Number(digits);
    return n >= 1 && Number.isSafeInteger(n) ? n : bad();
  };
  if (parts.length === 1) {
    const n = page(parts[0]!) ?? bad();
    return { first: n, last: n };
  }
  const first = page(parts[0]!) ?? 1;
  const last = page(parts[1]!);
  if (last === undefined) return { first };
  if (first > last) fail(path, 'a page range whose start is not past its end', text);
  return { first, last };
}

function parsePageRanges(value: unknown, path: string): PageRange[] {
  if (!Array.isArray(value)) fail(path, 'an array', value);
  return value.flatMap((range, i) => {
    const at = `${path}[${i}]`;
    if (typeof range === 'number') {
      if (!Number.isSafeInteger(range) || range < 1) fail(at, RANGE_SYNTAX, range);
      return [{ first: range, last: range }];
    }
    if (typeof range === 'string') return range.split(',').map((part) => parseRange(part, at));
    return fail(at, RANGE_SYNTAX, range);
  });
}

/** Spec §18.1 steps 3-26: the print parameters, defaults filled in; any bad value is invalid argument. */
export const parsePrintParameters: Parser<PrintOptions> = (value, path) => {
  const name = (member: string) => (path ? `${path}.${member}` : member);
  const parameters = object(value, path || 'parameters');

  const orientation = withDefault(parameters, 'orientation', 'portrait');
  if (orientation !== 'portrait' && orientation !== 'landscape') fail(name('orientation'), '"portrait" or "landscape"', orientation);
  const scale = number(withDefault(parameters, 'scale', 1), name('scale'), 0.1, 2);
  const background = boolean(withDefault(parameters, 'background', false), name('background'));

  const page = object(withDefault(parameters, 'page', {}), name('page'));
  const width = number(withDefault(page, 'width', 21.59), name('page.width'), MIN_PAGE_SIZE);
  const height = number(withDefault(page, 'height', 27.94), name('page.height'), MIN_PAGE_SIZE);

  const margins = object(withDefault(parameters, 'margin', {}), name('margin'));
  const margin = (side: string) => number(withDefault(margins, side, 1), name(`margin.${side}`), 0);
  const shrinkToFit = boolean(withDefault(parameters, 'shrinkToFit', true), name('shrinkToFit'));
  const pageRanges = parsePageRanges(withDefault(parameters, 'pageRanges', []), name('pageRanges'));

  return {
    landscape: orientation === 'landscape',
    scale,
    background,
    width,
    height,
    margin: { top: margin('top'), bottom: margin('bottom'), left: margin('left'), right: margin('right') },
    shrinkToFit,
    pageRanges,
  };
};
