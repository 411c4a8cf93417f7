// The house's arrows point one way (ARCHITECTURE: layout, the command seam): a room imports only
// rooms below it, rooms side by side (trace/, ops/, bidi/) import none of each other, and no import
// circle spans two rooms. Read from the source itself, so a new upward import fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Each room's height: a file may import its own room and lower ones. */
const RANK: Record<string, number> = {
  backends: 0, // engines; nothing of src/
  base: 1, // what every room shares: the logger, principals, the rate limit
  pool: 2,
  webdriver: 3, // W3C semantics, the sessions, the command seam
  trace: 4, // observers of the seam, side by side
  ops: 4,
  bidi: 4,
  server: 5, // the HTTP and WebSocket edge
  top: 6, // app.ts, cli.ts, config.ts: wiring
};

function roomOf(file: string): string {
  const rel = relative(ROOT, file).split('/');
  if (rel[0] === 'backends') return 'backends';
  if (rel[0] === 'src' && rel.length === 2) return 'top';
  return rel[1]!;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return /\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** file → the files of the project it imports (static, dynamic and re-exports). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'backends'))]) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)'(\.{1,2}\/[^']+)'/g)]
      .map((m) => resolve(dirname(file), m[1]!))
      .filter((target) => /\.(ts|js)$/.test(target) && (target.startsWith(join(ROOT, 'src')) || target.startsWith(join(ROOT, 'backends'))));
    graph.set(file, targets);
  }
  return graph;
}

test('no import runs from a lower room up to a higher one, nor between rooms side by side', () => {
  const wrong: string[] = [];
  for (const [file, targets] of importGraph()) {
    const from = roomOf(file);
    for (const target of targets) {
      const to = roomOf(target);
      if (from === to) continue;
      assert.ok(RANK[from] !== undefined && RANK[to] !== undefined, `a room with no place in the order: ${from} or ${to} (add it to RANK)`);
      if (RANK[to]! >= RANK[from]!) wrong.push(`${relative(ROOT, file)} → ${relative(ROOT, target)}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('no import circle spans two rooms', () => {
  const graph = importGraph();
  // Tarjan's strongly connected components.
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const spanning: string[][] = [];
  const visit = (v: string): void => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indices.get(w)!));
      }
    }
    if (low.get(v) !== indices.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (new Set(component.map(roomOf)).size > 1) spanning.push(component.map((f) => relative(ROOT, f)).sort());
  };
  for (const file of graph.keys()) if (!indices.has(file)) visit(file);
  assert.deepEqual(spanning, []);
});
