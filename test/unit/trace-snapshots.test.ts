// A trace's snapshot trees read back (src/trace/viewer/snapshots.ts, docs/traces.md "Snapshots"):
// references resolved across files and into a frame's document of its own, rendered as HTML with
// nothing that runs or fetches; what cannot be resolved left out; an older trace's HTML as it is;
// and the Playwright export keeping references as Playwright's own where the two count nodes
// alike, which read back (as Playwright's renderer reads them) as the same page. That real pages
// give such trees: test/integration/trace-snapshots.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { Snapshots, type SnapshotNode } from '../../src/trace/viewer/snapshots.ts';
import { toPlaywrightTrace } from '../../src/trace/playwright/export.ts';

const file = (id: string, version: number, documents: Record<string, string>, html: SnapshotNode, doctype = 'html') => JSON.stringify({ wdgateSnapshot: 1, document: { id, version }, documents, doctype, html });
const POLICY_HEAD = /^<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; [^"]*">/;

// Version 1 of document "d": html(head(title), body(p "one", ul(li "a", li "b"))). Post-order:
// 0 "t", 1 title, 2 head, 3 "one", 4 p, 5 "a", 6 li, 7 "b", 8 li, 9 ul, 10 body, 11 html.
const V1 = file('d', 1, {}, ['html', {}, ['head', {}, ['title', {}, 't']], ['body', {}, ['p', {}, 'one'], ['ul', {}, ['li', {}, 'a'], ['li', {}, 'b']]]]);
// Version 2: the p's text changed; the head and the list are references into version 1.
const V2 = file('d', 2, { 'd:1': 's/1.json' }, ['html', {}, [[1, 2]], ['body', { class: 'x' }, ['p', {}, 'two'], [[1, 9]]]]);
// Version 2's nodes: 0 "two", 1 p, 2 body, 3 html (references are not counted).
// Version 3: a third item; the p is a reference into version 2, the first two items and the head into version 1.
const V3 = file('d', 3, { 'd:1': 's/1.json', 'd:2': 's/2.json' }, ['html', {}, [[1, 2]], ['body', { class: 'x' }, [[2, 1]], ['ul', {}, [[1, 6]], [[1, 8]], ['li', {}, 'c']]]]);

test('references resolve across files, a reference of a tree itself resolved in its own file; the HTML carries its policy first', () => {
  const files: Record<string, string> = { 's/1.json': V1, 's/2.json': V2, 's/3.json': V3 };
  const snapshots = new Snapshots((name) => files[name]);
  const html = (name: string) => snapshots.html(name)!.replace(POLICY_HEAD, '<HEAD>');
  assert.equal(html('s/1.json'), '<HEAD><title>t</title></head><body><p>one</p><ul><li>a</li><li>b</li></ul></body></html>');
  assert.equal(html('s/2.json'), '<HEAD><title>t</title></head><body class="x"><p>two</p><ul><li>a</li><li>b</li></ul></body></html>');
  assert.equal(html('s/3.json'), '<HEAD><title>t</title></head><body class="x"><p>two</p><ul><li>a</li><li>b</li><li>c</li></ul></body></html>');
  assert.deepEqual(snapshots.tree('s/3.json'), { doctype: 'html', html: ['html', {}, ['head', {}, ['title', {}, 't']], ['body', { class: 'x' }, ['p', {}, 'two'], ['ul', {}, ['li', {}, 'a'], ['li', {}, 'b'], ['li', {}, 'c']]]] });
  // The whole document a reference (nothing changed but, say, the URL).
  files['s/4.json'] = file('d', 4, { 'd:3': 's/3.json' }, [[3, 4]]); // version 3's nodes: 0 "c", 1 li, 2 ul, 3 body, 4 html
  assert.equal(html('s/4.json'), html('s/3.json'));
});

test("a frame's document of its own: its references name its own versions, and it counts as one node in its parent's", () => {
  // Top document "t" v1: html(body(iframe(#document f@1(html(body "inner one"))), p "top")). Post-order in t: 0 #document(f), 1 iframe, 2 "top", 3 p, 4 body, 5 html.
  const frame1: SnapshotNode = ['#document', { id: 'f', version: '1', doctype: 'html' }, ['html', {}, ['body', {}, 'inner one']]];
  const files: Record<string, string> = {
    's/1.json': file('t', 1, {}, ['html', {}, ['body', {}, ['iframe', { title: 'x' }, frame1], ['p', {}, 'top']]]),
    // v2: the frame's document changed (f@2 refers to nothing), the p is a reference.
    's/2.json': file('t', 2, { 't:1': 's/1.json' }, ['html', {}, ['body', {}, ['iframe', { title: 'x' }, ['#document', { id: 'f', version: '2' }, ['html', {}, ['body', {}, 'inner two']]]], [[1, 3]]]]),
    // v3: the frame unchanged since f@1 (its root: f@1's node 2), the top's body changed.
    's/3.json': file('t', 3, { 't:1': 's/1.json', 'f:1': 's/1.json' }, ['html', {}, ['body', { id: 'b' }, ['iframe', { title: 'x' }, ['#document', { id: 'f', version: '1', doctype: 'html' }, [[1, 2]]]], [[1, 3]]]]),
  };
  const snapshots = new Snapshots((name) => files[name]);
  const frameOf = (name: string) => /srcdoc="([^"]*)"/.exec(snapshots.html(name)!)![1]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  assert.match(frameOf('s/1.json'), /<body>inner one<\/body>/);
  assert.match(frameOf('s/2.json'), /<body>inner two<\/body>/);
  assert.match(frameOf('s/3.json'), /^<!DOCTYPE html><html><head><meta charset="utf-8">.*<body>inner one<\/body><\/html>$/);
  assert.match(snapshots.html('s/2.json')!, /<\/iframe><p>top<\/p>/);
  assert.match(snapshots.html('s/3.json')!, /<body id="b"><iframe title="x" srcdoc=".*"><\/iframe><p>top<\/p><\/body>/);
});

test('what cannot be resolved is left out (a file missing, a reference past a tree, a loop); a file that is not a snapshot is none; an older HTML snapshot reads as it is', () => {
  const files: Record<string, string> = {
    's/2.json': file('d', 2, { 'd:1': 's/missing.json' }, ['html', {}, ['body', {}, [[1, 4]], ['p', {}, 'kept'], [[2, 99]]]]),
    // A reference to its own ancestor (a crafted file; its nodes: 0 "x", 1 p, 2 body, 3 html): left out, not followed for ever.
    's/3.json': file('d', 3, {}, ['html', {}, ['body', {}, [[3, 2]], ['p', {}, 'x']]]),
    's/bad.json': '{"not": "a snapshot"}',
    's/old.html': '<!DOCTYPE html><html><body><p>older trace</p></body></html>',
  };
  const snapshots = new Snapshots((name) => files[name]);
  assert.match(snapshots.html('s/2.json')!, /<body><p>kept<\/p><\/body>/);
  assert.match(snapshots.html('s/3.json')!, /<body><p>x<\/p><\/body>/);
  assert.equal(snapshots.html('s/bad.json'), undefined);
  assert.equal(snapshots.html('s/nothing.json'), undefined);
  assert.equal(snapshots.html('s/old.html'), files['s/old.html']);
});

test('rendered HTML runs and fetches nothing, whatever a file says: no script, no handler, no srcdoc or src of its own on a frame, texts and attributes escaped', () => {
  const files: Record<string, string> = {
    's/1.json': file('d', 1, {}, [
      'html',
      { onload: 'x()' },
      ['head', {}, ['style', {}, 'p { color: red } </style><script>bad()</script>']],
      ['body', {}, ['script', {}, 'bad()'], ['p', { onclick: 'bad()', title: 'a "quoted" & <b>' }, '<b>not markup</b> & more\u00a0'], ['iframe', { srcdoc: '<script>bad()</script>', src: 'http://elsewhere/' }], ['img', { 'bad"name': 'x', src: 'data:image/png;base64,AA' }], ['template', { 'data-wdgate-removed': 'script' }]],
    ]),
  };
  const html = new Snapshots((name) => files[name]).html('s/1.json')!;
  // (A style's text is raw: what it holds is no markup, and it cannot end early.)
  assert.doesNotMatch(html.replace(/<style>[\s\S]*?<\/style>/, ''), /<script|onclick|onload|elsewhere|bad"name/);
  assert.match(html, /<style>p \{ color: red \} <\\\/style><script>bad\(\)<\/script><\/style>/, "a style's text cannot end it early");
  assert.match(html, /<p title="a &quot;quoted&quot; &amp; <b>">&lt;b&gt;not markup&lt;\/b&gt; &amp; more&nbsp;<\/p><iframe><\/iframe><img src="data:image\/png;base64,AA"><template data-wdgate-removed="script"><\/template>/);
});

/** Playwright's reading of a frame's snapshots (its snapshotRenderer): a reference is [snapshots ago, node index] in post-order of texts and elements. */
function playwrightResolve(snapshots: SnapshotNode[], index: number): unknown {
  const nodesOf = (n: unknown, into: unknown[] = []): unknown[] => {
    if (typeof n === 'string') into.push(n);
    else if (Array.isArray(n) && typeof n[0] === 'string') {
      for (const c of n.slice(2)) nodesOf(c, into);
      into.push(n);
    }
    return into;
  };
  const visit = (n: unknown, at: number): unknown => {
    if (typeof n === 'string') return n;
    if (Array.isArray(n) && Array.isArray(n[0])) {
      const [ago, k] = n[0] as [number, number];
      return visit(nodesOf(snapshots[at - ago])[k], at - ago);
    }
    const [tag, attrs, ...children] = n as [string, Record<string, string>, ...unknown[]];
    return [tag, attrs, ...children.map((c) => visit(c, at))];
  };
  return visit(snapshots[index], index);
}

test("the Playwright export keeps a snapshot's references as Playwright's own (its snapshots of the page, counted alike), which read back as the same page", async () => {
  const T = 1_800_000_000_000;
  const viewport = { width: 800, height: 600, scrollX: 0, scrollY: 0 };
  const step = (n: number, name: string, snapshot?: string) => ({ n, kind: 'command', name, startedAt: T + n * 10, durationMs: 5, window: 'w', url: 'http://a.test/', ...(snapshot && { snapshot, viewport }) });
  const index = { version: 1, session: { id: 's', startedAt: new Date(T).toISOString(), browserName: 'chrome', engine: 'chromium' }, steps: [step(0, 'navigateTo', 's/1.json'), step(1, 'elementClick', 's/2.json'), step(2, 'elementClick', 's/3.json')] };
  const zip = zipSync({ 'trace.json': strToU8(JSON.stringify(index)), 's/1.json': strToU8(V1), 's/2.json': strToU8(V2), 's/3.json': strToU8(V3) });
  const events = new TextDecoder().decode(unzipSync(await toPlaywrightTrace(zip))['trace.trace']).split('\n').map((l) => JSON.parse(l));
  // The page's frame snapshots in order (each after@ and before@ a snapshot of the main frame).
  const frames = events.filter((e) => e.type === 'frame-snapshot' && e.snapshot.frameId === 'page@w').map((e) => e.snapshot);
  const afters = frames.map((f, i) => [f.snapshotName, i] as const).filter(([name]) => String(name).startsWith('after@'));
  const expected = new Snapshots((name) => ({ 's/1.json': V1, 's/2.json': V2, 's/3.json': V3 })[name]);
  for (const [name, i] of afters) {
    const source = `s/${Number(String(name).split('@')[2]) + 1}.json`;
    assert.deepEqual(playwrightResolve(frames.map((f) => f.html), i), expected.tree(source)!.html, `${name}: the same page`);
  }
  // And kept as references: version 3's head and first two items are Playwright references, not copies.
  const third = frames[afters.at(-1)![1]].html;
  assert.ok(Array.isArray(third[2]) && Array.isArray(third[2][0]), JSON.stringify(third));
  assert.match(JSON.stringify(third), /"ul",\{\},\[\[\d+,6\]\],\[\[\d+,8\]\],\["li",\{\},"c"\]/);
});
