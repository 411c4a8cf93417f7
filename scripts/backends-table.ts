// The README's table of the command tests on the other backends ("| backend | pass | declared
// gaps |") comes from the runs: scripts/test-backends.sh calls this with each backend's counts
// after a run that passed, and the row's numbers are written into README.md. Under CI (CI set) a
// row that did not match is an error: the README committed must say what the run found.
// (test/unit/readme.test.ts checks the declared gaps against test/helpers/gaps.ts as well.)
// Usage: node --import tsx scripts/backends-table.ts <backend> <pass> <skipped>
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Each backend's row, by the start of its first cell. */
export const ROWS: Record<string, string> = {
  'playwright-chromium': 'Playwright, Chromium',
  'native-firefox': 'native, Firefox ESR',
  'playwright-firefox': 'Playwright, Firefox ESR',
  'remote-chromedriver': 'remote → chromedriver',
};

/** Write one backend's counts into its row. */
function update() {
  const [backend, pass, skipped] = process.argv.slice(2);
  const label = ROWS[backend ?? ''];
  if (!label || !pass || !skipped || !/^\d+$/.test(pass) || !/^\d+$/.test(skipped)) {
    process.stderr.write('usage: node --import tsx scripts/backends-table.ts <backend> <pass> <skipped>\n');
    process.exit(2);
  }
  const readme = new URL('../README.md', import.meta.url);
  const text = readFileSync(readme, 'utf8');
  const row = new RegExp(`^(\\| ${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^|]*\\| )(\\d+)( \\| )(\\d+)(:)`, 'm');
  const m = row.exec(text);
  if (!m) {
    process.stderr.write(`README.md has no row for ${backend} ("| ${label} … | pass | gaps: …")\n`);
    process.exit(1);
  }
  if (m[2] === pass && m[4] === skipped) return;
  writeFileSync(readme, text.replace(row, `$1${pass}$3${skipped}$5`));
  process.stdout.write(`README.md: the ${backend} row now says ${pass} pass, ${skipped} declared gaps (it said ${m[2]}, ${m[4]})\n`);
  if (process.env.CI) {
    process.stderr.write('README.md was out of date with this run: commit the row as written now\n');
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) update();
