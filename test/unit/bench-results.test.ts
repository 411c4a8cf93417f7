// The README's measured figures come from the bench's own results files: a table the README
// introduces with a link to bench/results*.md quotes that file, so every figure in it must be
// found there (a figure typed by hand, or left from an older run, fails), and the file says on
// what machine and under what load it was measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(`${ROOT}README.md`, 'utf8').replace(/^```[\s\S]*?^```$/gm, '');

/** Numbers as written (a sign, digits, a decimal part), thousands separators dropped. */
const figures = (text: string) => text.replace(/(\d),(\d{3})\b/g, '$1$2').match(/[-−]?\d+(?:\.\d+)?/g)?.map((f) => f.replace('−', '-')) ?? [];

/** Each README table with the paragraph just above it. */
function tablesWithIntro(): { intro: string; rows: string[] }[] {
  const out: { intro: string; rows: string[] }[] = [];
  const blocks = README.split(/\n\s*\n/);
  for (const [i, block] of blocks.entries()) {
    // Tables inside a list item are indented.
    const lines = block.split('\n').map((l) => l.trimStart());
    const first = lines.findIndex((l) => l.startsWith('|'));
    if (first < 0 || !lines[first + 1]?.startsWith('|---')) continue;
    // The intro: the lines of this block above the table, or else the block before it.
    const intro = first > 0 ? lines.slice(0, first).join('\n') : (blocks[i - 1] ?? '');
    out.push({ intro, rows: lines.slice(first + 2).filter((l) => l.startsWith('|')) });
  }
  return out;
}

const RESULT_FILES = readdirSync(`${ROOT}bench`).filter((f) => /^results.*\.md$/.test(f));

test('every figure of a README table that quotes a bench results file is in that file', () => {
  const quoting = tablesWithIntro().filter((t) => /\]\(bench\/results[\w-]*\.md\)/.test(t.intro));
  assert.ok(quoting.length >= 3, `the README quotes only ${quoting.length} tables of bench/results*.md`);
  for (const { intro, rows } of quoting) {
    const file = /\]\((bench\/results[\w-]*\.md)\)/.exec(intro)![1]!;
    const text = readFileSync(`${ROOT}${file}`, 'utf8');
    const known = new Set(figures(text));
    for (const row of rows) {
      const missing = figures(row.split('|').slice(2).join('|')).filter((f) => !known.has(f));
      assert.deepEqual(missing, [], `README row ${row.slice(0, 80)}… quotes ${file}, which has no ${missing.join(', ')}`);
    }
  }
});

test('every bench results file says the machine it ran on and its load at the time', () => {
  assert.ok(RESULT_FILES.includes('results-density.md') && RESULT_FILES.includes('results-churn.md'), RESULT_FILES.join(', '));
  for (const file of RESULT_FILES) {
    const text = readFileSync(`${ROOT}bench/${file}`, 'utf8');
    assert.match(text, /Written by `npm run bench[^`]*` \(\d{4}-\d{2}-\d{2}\)/, `${file} does not say the run that wrote it`);
    assert.match(text, /\d+ cores/, `${file} does not say the machine`);
    assert.match(text, /[Ll]oad (average )?(before the run: )?\d+\.\d+/, `${file} does not say the machine's load`);
  }
});
