// The README as a newcomer reads it: the endpoint list comes from the route table; every command
// it shows runs as written (wdgate's options against the CLI's, npm scripts and files that exist);
// --help and the Command line table name every option and setting; links stay inside the
// repository; the command tests' table of the other backends says what test/helpers/gaps.ts declares.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { routes } from '../../src/webdriver/routes.ts';
import { HELP, OPTIONS } from '../../src/cli-options.ts';
import { DECLARED, type TestBackend } from '../helpers/gaps.ts';
import { ROWS } from '../../scripts/backends-table.ts';
import defaults from '../../config/default.json' with { type: 'json' };
import pkg from '../../package.json' with { type: 'json' };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(ROOT + path, 'utf8');
const README = read('README.md');
/** The README without its fenced blocks (for inline code and links). */
const PROSE = README.replace(/^```[\s\S]*?^```$/gm, '');

/** A README section's text, from its heading to the next of the same level. */
function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `README has no section ${heading}`);
  const end = README.indexOf('\n## ', start + 4);
  return README.slice(start, end < 0 ? undefined : end);
}

/** Commands of the sh blocks (continued lines joined, comments and `VAR=` assignments dropped, split at && ; |) and of inline code. */
function readmeCommands(): string[] {
  const commands: string[] = [];
  for (const [, block] of README.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)) {
    for (const line of block!.replace(/\\\n\s*/g, ' ').split('\n')) {
      const code = line.replace(/(^|\s)#\s.*$/, '').trim();
      commands.push(...code.split(/\s(?:&&|\|\||;|\|)\s/).map((c) => c.trim()));
    }
  }
  for (const [, code] of PROSE.matchAll(/`([^`]+)`/g)) commands.push(code!.replace(/\s+/g, ' ').trim());
  return commands.filter((c) => /^(npx |npm |wdgate(\s|$)|bash scripts\/|node (--[\w-]+ )*(scripts|bin)\/)/.test(c));
}

/** Shell words, with the README's placeholders ([optional], <value>) taken as written values. */
const words = (command: string) => command.replace(/[[\]]/g, ' ').split(/\s+/).filter((w) => w && w !== '…');

describe('README', () => {
  test('lists every route of the table', () => {
    for (const r of routes) {
      assert.ok(README.includes(`| ${r.method} | \`${r.path}\` | ${r.command} |`), `README misses ${r.method} ${r.path}`);
    }
  });

  test('every command it shows runs as written: wdgate options, npm scripts and scripts that exist', () => {
    const commands = readmeCommands();
    assert.ok(commands.length >= 10, `found only ${commands.length} commands: ${commands.join(' / ')}`);
    for (const command of commands) {
      const [first, ...rest] = words(command);
      if (first === 'wdgate') assert.fail(`"${command}": wdgate is not on the PATH of a checkout; the README runs it as npx wdgate`);
      if (first === 'npx' && rest[0] === 'wdgate') {
        const args = rest.slice(1);
        if (args[0] === 'show-trace') {
          assert.doesNotThrow(() => parseArgs({ args: args.slice(1), options: { port: { type: 'string' } }, allowPositionals: true, strict: true }), command);
        } else {
          assert.doesNotThrow(() => parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }), command);
        }
      } else if (first === 'node' && rest.some((w) => w === 'bin/wdgate.js')) {
        const args = rest.slice(rest.indexOf('bin/wdgate.js') + 1);
        assert.doesNotThrow(() => parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }), command);
      } else if (first === 'npx') {
        // Another package's command: one of this project's dependencies (else npx would download it).
        assert.ok(existsSync(`${ROOT}node_modules/.bin/${rest[0]}`), `"${command}": ${rest[0]} is no dependency's command`);
      } else if (first === 'npm') {
        if (rest[0] === 'run') assert.ok(rest[1]! in pkg.scripts, `"${command}": package.json has no script ${rest[1]}`);
        else assert.ok(['test', 'ci', 'install'].includes(rest[0]!), `"${command}": npm ${rest[0]}`);
      } else {
        const script = rest.find((w) => w.startsWith('scripts/') || w.startsWith('bin/'))!;
        assert.ok(existsSync(ROOT + script), `"${command}": ${script} does not exist`);
        if (script === 'scripts/setup.sh') for (const arg of rest.slice(rest.indexOf(script) + 1)) assert.equal(arg, '--runtime', `"${command}": setup.sh takes only --runtime`);
      }
    }
  });

  test('--help and the Command line table name every option; the table names no other', () => {
    const table = section('Command line');
    for (const name of Object.keys(OPTIONS)) {
      assert.match(HELP, new RegExp(`--${name}\\b`), `--help misses --${name}`);
      assert.ok(table.includes(`\`--${name}`), `README's Command line table misses --${name}`);
    }
    for (const [, name] of table.matchAll(/`--([a-z-]+)/g)) assert.ok(name! in OPTIONS, `README's Command line table names --${name}, which is no option`);
    // The token file's whole line, as src/server/auth.ts reads it.
    assert.match(HELP, /admin/);
    assert.match(HELP, /share=N/);
  });

  test('--help and the README name every setting of config/default.json', () => {
    const camel = new Set(Object.keys(OPTIONS).map((o) => o.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())));
    for (const [key, value] of Object.entries(defaults)) {
      const nested = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
      if (!camel.has(key) || nested.length) assert.match(HELP, new RegExp(`^  ${key}\\b`, 'm'), `--help misses the setting ${key}`);
      for (const sub of nested) {
        assert.ok(HELP.includes(sub), `--help misses ${key}.${sub}`);
        assert.match(README, new RegExp(`\`(${key}\\.)?${sub}\\b`), `README does not name ${key}.${sub}`);
      }
      // A setting with an option is documented by its option (--listen-address: listenAddress).
      if (!nested.length && !camel.has(key)) assert.match(README, new RegExp(`\`${key}\\b`), `README does not name the setting ${key}`);
    }
  });

  test('links and paths stay inside the repository and lead somewhere', () => {
    const anchors = new Set([...README.matchAll(/^#+ (.+)$/gm)].map(([, h]) => h!.toLowerCase().replace(/[^\w\s-]/g, '').replace(/\s/g, '-')));
    for (const [, target] of PROSE.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^https?:/.test(target!)) continue;
      if (target!.startsWith('#')) {
        assert.ok(anchors.has(target!.slice(1)), `a link to ${target}, which is no heading`);
        continue;
      }
      assert.ok(!target!.startsWith('/') && !target!.split('/').includes('..'), `a link outside the repository: ${target}`);
      assert.ok(existsSync(ROOT + target!.replace(/#.*$/, '')), `a link to ${target}, which does not exist`);
    }
    assert.doesNotMatch(README, /\.\.\/shared\//, 'README names ../shared/, which is not in the repository');
    for (const [, path] of PROSE.matchAll(/`((?:src|backends|test|bench|scripts|config|deploy|docs)\/[\w./-]*[\w/])`/g)) {
      assert.ok(existsSync(ROOT + path!), `README names ${path}, which does not exist`);
    }
  });

  test("the command tests' table on other backends declares what test/helpers/gaps.ts declares", () => {
    // The pass counts are the runs' own (scripts/test-backends.sh writes them); the declared
    // gaps are counted here from the test files the runs take (test names with a declaration).
    const script = read('scripts/test-backends.sh');
    const files = /FILES=\(([^)]*)\)/.exec(script)![1]!.trim().split(/\s+/);
    const extra = Object.fromEntries([...script.matchAll(/\[([\w-]+)\]="([^"]*)"/g)].map(([, backend, more]) => [backend, more!.split(/\s+/)]));
    for (const [backend, label] of Object.entries(ROWS)) {
      let declared = 0;
      for (const file of [...files, ...(extra[backend] ?? [])]) {
        const source = read(`test/integration/${file}.test.ts`);
        for (const [, quote, raw] of source.matchAll(/\btest\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g)) {
          const name = quote === '`' ? raw! : raw!.replace(/\\(.)/g, '$1');
          if (DECLARED[backend as TestBackend]?.[name]) declared++;
        }
      }
      const row = new RegExp(`^\\| ${label}[^|]*\\| (\\d+) \\| (\\d+):`, 'm').exec(README);
      assert.ok(row, `README has no row for ${backend}`);
      assert.equal(Number(row[2]), declared, `README's ${backend} row says ${row[2]} declared gaps; test/helpers/gaps.ts declares ${declared} of its tests`);
    }
  });
});
