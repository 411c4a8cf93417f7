// The pages the tracing bench drives (issue 38): every one has a button `#go` whose click changes
// the page, so that the same find → get text → click loop runs on each.
//
// - small: one input, the button, 20 list items (the page of issues 25–33).
// - list: a page of moderate weight: a style sheet of ~80 rules, a header and a navigation, 300
//   list items with links, and a timer that changes the title every second (as a clock, a
//   notification count or a "last saved" label does).
// - app: an application-like page of ~3,000 elements (a header, 120 cards, a table of 120 rows of
//   8 cells, a side panel) and a style sheet of ~600 rules, whose script re-renders a section of
//   ~200 elements on each click, as a component framework does (new nodes for the section).

export interface BenchPage {
  name: string;
  /** What the table calls it. */
  label: string;
  /** The page's body (the page server wraps it: doctype, head with a title). */
  body: string;
  title: string;
}

const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];
const word = (i: number) => words[i % words.length]!;

function small(): BenchPage {
  return {
    name: 'small',
    label: 'small page (an input, a button, 20 list items)',
    title: 'bench',
    body: `<input id="name" value="x"><button id="go" onclick="this.textContent = Date.now()">go</button><ul>${'<li>item</li>'.repeat(20)}</ul>`,
  };
}

function list(): BenchPage {
  const rules: string[] = [
    'body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1f2328 }',
    'header { display: flex; gap: 12px; align-items: center; padding: 8px 16px; background: #f6f8fa; border-bottom: 1px solid #d0d7de }',
    'nav a { margin-right: 8px; color: #0969da; text-decoration: none }',
    'main { display: grid; grid-template-columns: 200px 1fr; gap: 16px; padding: 16px }',
    'ul.items { list-style: none; margin: 0; padding: 0 }',
    'ul.items li { display: flex; justify-content: space-between; padding: 4px 8px; border-bottom: 1px solid #eaeef2 }',
    'ul.items li:nth-child(odd) { background: #fafbfc }',
    'ul.items a { color: #0969da }',
    '.meta { color: #57606a; font-size: 12px }',
    '#go { padding: 4px 12px; border-radius: 6px; border: 1px solid #d0d7de; background: #f6f8fa }',
  ];
  for (let i = 0; i < 70; i++) rules.push(`.tag-${i} { color: hsl(${(i * 37) % 360} 60% 40%); border-left: 3px solid hsl(${(i * 37) % 360} 60% 70%); padding-left: 4px }`);
  const items = Array.from({ length: 300 }, (_, i) => `<li><a href="#item-${i}">Item ${i}: ${word(i)} ${word(i * 7)}</a><span class="meta tag-${i % 70}">${word(i * 3)} · ${i % 17} comments</span></li>`).join('');
  const navigation = Array.from({ length: 12 }, (_, i) => `<a href="#section-${i}">${word(i)}</a>`).join('');
  const side = Array.from({ length: 20 }, (_, i) => `<li><a href="#filter-${i}">${word(i + 3)}</a></li>`).join('');
  return {
    name: 'list',
    label: 'list page (300 items with links, a style sheet, a timer on the title)',
    title: 'list',
    body:
      `<style>${rules.join('\n')}</style>` +
      `<header><strong>Items</strong><nav>${navigation}</nav><button id="go" onclick="this.textContent = 'saved ' + Date.now()">save</button></header>` +
      `<main><aside><ul>${side}</ul></aside><section><h1>All items</h1><ul class="items">${items}</ul></section></main>` +
      `<script>setInterval(() => { document.title = 'list · ' + new Date().toLocaleTimeString(); }, 1000);</script>`,
  };
}

function app(): BenchPage {
  const rules: string[] = [
    'body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1f2328; background: #f6f8fa }',
    '.app { display: grid; grid-template-columns: 240px 1fr 280px; gap: 16px; padding: 16px }',
    '.topbar { display: flex; align-items: center; gap: 16px; padding: 8px 16px; background: #24292f; color: white }',
    '.topbar a { color: #c9d1d9 }',
    '.cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px }',
    '.card { background: white; border: 1px solid #d0d7de; border-radius: 8px; padding: 12px }',
    '.card h3 { margin: 0 0 4px; font-size: 15px }',
    '.card .stats { display: flex; gap: 8px; color: #57606a; font-size: 12px }',
    'table { border-collapse: collapse; width: 100%; background: white; margin-top: 16px }',
    'td, th { border: 1px solid #d0d7de; padding: 4px 6px; font-size: 12px }',
    'tr:nth-child(even) td { background: #f6f8fa }',
    '.panel { background: white; border: 1px solid #d0d7de; border-radius: 8px; padding: 8px }',
    '.panel .row { display: flex; justify-content: space-between; padding: 2px 0; border-bottom: 1px dashed #eaeef2 }',
    '.badge { display: inline-block; padding: 0 6px; border-radius: 10px; font-size: 11px; background: #ddf4ff; color: #0969da }',
    '#go { padding: 4px 12px; border-radius: 6px; border: 1px solid #1f883d; background: #2da44e; color: white }',
  ];
  // A design system's utility classes: the larger part of an application's style sheet.
  for (let i = 0; i < 150; i++) {
    const hue = (i * 47) % 360;
    rules.push(`.u-c${i} { color: hsl(${hue} 55% 35%) }`, `.u-bg${i} { background: hsl(${hue} 70% 96%) }`, `.u-b${i} { border-color: hsl(${hue} 50% 75%) }`, `.u-p${i} { padding: ${i % 12}px ${(i * 3) % 16}px }`);
  }
  rules.push('@media (max-width: 900px) { .app { grid-template-columns: 1fr } .cards { grid-template-columns: 1fr 1fr } }');
  const card = (i: number) =>
    `<article class="card u-b${i % 150}"><h3 class="u-c${i % 150}">${word(i)} ${word(i * 5)} #${i}</h3>` +
    `<p>${word(i + 1)} ${word(i + 2)} ${word(i + 3)} ${word(i + 4)}.</p>` +
    `<div class="stats"><span class="badge">${word(i * 2)}</span><span>${(i * 37) % 1000} views</span><span>${i % 23} stars</span><a href="#card-${i}">open</a></div>` +
    `<ul><li>${word(i)}</li><li>${word(i + 5)}</li></ul><footer><small>updated ${i % 59} min ago</small></footer></article>`;
  const row = (i: number) => `<tr>${Array.from({ length: 8 }, (_, c) => `<td class="u-p${(i + c) % 150}">${c === 0 ? `<a href="#row-${i}">${word(i)}-${i}</a>` : `${(i * (c + 3)) % 997}`}</td>`).join('')}</tr>`;
  const navigation = Array.from({ length: 30 }, (_, i) => `<li><a href="#nav-${i}" class="u-c${i}">${word(i)} ${word(i + 4)}</a></li>`).join('');
  // The section the click re-renders: 40 rows of 5 elements, each render new nodes with new numbers.
  const render = `function renderPanel(n) {
    let html = '';
    for (let i = 0; i < 40; i++) html += '<div class="row"><span class="badge">' + ((n * 7 + i) % 97) + '</span><b>item ' + i + '</b><i>' + ((n + i) % 13) + ' new</i><a href="#p' + i + '">view</a></div>';
    document.getElementById('panel').innerHTML = html;
  }`;
  return {
    name: 'app',
    label: 'application-like page (~3,000 elements, ~600 style rules, a click re-renders ~200 elements)',
    title: 'app',
    body:
      `<style>${rules.join('\n')}</style>` +
      `<div class="topbar"><strong>Dashboard</strong><a href="#a">Projects</a><a href="#b">Issues</a><a href="#c">Settings</a><button id="go" onclick="renderPanel(++window.renders)">refresh</button></div>` +
      `<div class="app"><nav><ul>${navigation}</ul></nav>` +
      `<main><div class="cards">${Array.from({ length: 120 }, (_, i) => card(i)).join('')}</div>` +
      `<table><thead><tr>${Array.from({ length: 8 }, (_, c) => `<th>col ${c}</th>`).join('')}</tr></thead><tbody>${Array.from({ length: 120 }, (_, i) => row(i)).join('')}</tbody></table></main>` +
      `<aside class="panel" id="panel"></aside></div>` +
      `<script>window.renders = 0; ${render} renderPanel(0);</script>`,
  };
}

export const BENCH_PAGES: BenchPage[] = [small(), list(), app()];
