// The trace viewer's reading of a trace (src/trace/viewer/model.ts, captures.ts, facts.ts): what it
// refuses and why, which console lines and requests belong to a step, which picture a step shows
// before, as it acts and after it, the filmstrip, the errors and the metadata.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { zipSync, strToU8 } from 'fflate';
import { latest, networkEntries, openingStep, readTrace, snapshotDocument, stepWindow, TraceError, videoTime, within, type TraceStep } from '../../src/trace/viewer/model.ts';
import { actionOf, afterOf, beforeOf, filmstrip, layoutStrip, markSnapshot, percentBox, phaseOf, stepAt, timeline } from '../../src/trace/viewer/captures.ts';
import { errorsOf, metadataOf } from '../../src/trace/viewer/facts.ts';

const step = (n: number, startedAt: number, extra: Partial<TraceStep> = {}): TraceStep => ({ n, kind: 'command', name: `c${n}`, startedAt, durationMs: 5, ...extra });

function traceZip(index: unknown, extra: Record<string, Uint8Array> = {}): Uint8Array {
  return zipSync({ 'trace.json': strToU8(JSON.stringify(index)), ...extra });
}

test('a file that is not a trace is refused with the reason: not a zip, a zip without trace.json, another version, bad JSON', () => {
  assert.throws(() => readTrace(strToU8('<html>not a zip</html>')), (e: Error) => e instanceof TraceError && /not a zip/.test(e.message));
  assert.throws(() => readTrace(zipSync({ 'readme.txt': strToU8('hi') })), /no trace\.json/);
  assert.throws(() => readTrace(traceZip({ version: 2, session: { id: 'x' }, steps: [] })), /format version 2.*version 1/);
  assert.throws(() => readTrace(zipSync({ 'trace.json': strToU8('{"version": 1,') })), /trace\.json in this trace is not JSON/);
  const truncated = traceZip({ version: 1, session: { id: 'x' }, steps: [] }).slice(0, 30);
  assert.throws(() => readTrace(truncated), (e: Error) => e instanceof TraceError);
});

test('a trace is read: steps, console, the HAR as requests in time order, the video only if its file is there', () => {
  const har = {
    log: {
      entries: [
        { startedDateTime: new Date(2000).toISOString(), time: 12, request: { method: 'GET', url: 'http://a/2' }, response: { status: 404, content: { size: 9, mimeType: 'text/html; charset=utf-8' } } },
        { startedDateTime: new Date(1000).toISOString(), time: 3, request: { method: 'POST', url: 'http://a/1' }, response: { status: 200, content: { size: 10 } }, _resourceType: 'fetch' },
      ],
    },
  };
  const trace = readTrace(
    traceZip({ version: 1, session: { id: 's' }, steps: [step(0, 1000)], video: 'video.webm' }, {
      'console.json': strToU8(JSON.stringify([{ type: 'console', level: 'log', text: 'hi', timestamp: 1500 }])),
      'network.har': strToU8(JSON.stringify(har)),
    }),
  );
  assert.equal(trace.steps.length, 1);
  assert.equal(trace.console[0]?.text, 'hi');
  assert.deepEqual(
    trace.network.map((r) => [r.method, r.url, r.status, r.type, r.size]),
    [
      ['POST', 'http://a/1', 200, 'fetch', 10],
      ['GET', 'http://a/2', 404, 'text/html', 9],
    ],
  );
  assert.equal(trace.video, undefined, 'video.webm is named but not in the zip');
});

test("a step's time runs to the next step's start; the first takes what came before, the last what came after", () => {
  const steps = [step(0, 100), step(1, 200), step(2, 300)];
  assert.deepEqual(stepWindow(steps, 0), { from: -Infinity, to: 200 });
  assert.deepEqual(stepWindow(steps, 1), { from: 200, to: 300 });
  assert.deepEqual(stepWindow(steps, 2), { from: 300, to: Infinity });
  const lines = [50, 150, 200, 250, 299, 300, 900].map((timestamp) => ({ timestamp }));
  const t = (l: { timestamp: number }) => l.timestamp;
  assert.deepEqual(within(lines, t, stepWindow(steps, 0)).map(t), [50, 150]);
  assert.deepEqual(within(lines, t, stepWindow(steps, 1)).map(t), [200, 250, 299]);
  assert.deepEqual(within(lines, t, stepWindow(steps, 2)).map(t), [300, 900]);
});

test("a step without a picture shows the latest one before it, and says whose it is; none before the first capture", () => {
  const steps = [step(0, 1), step(1, 2, { screenshot: 's/1.jpg', snapshot: 'd/1.html' }), step(2, 3), step(3, 4, { screenshot: 's/3.jpg' })];
  assert.equal(latest(steps, 0, 'screenshot'), undefined);
  assert.deepEqual(latest(steps, 2, 'screenshot'), { path: 's/1.jpg', from: 1 });
  assert.deepEqual(latest(steps, 3, 'screenshot'), { path: 's/3.jpg', from: 3 });
  assert.deepEqual(latest(steps, 3, 'snapshot'), { path: 'd/1.html', from: 1 });
});

test("the video is at the step's end, counted from the session's start", () => {
  const trace = readTrace(traceZip({ version: 1, session: { id: 's', startedAt: new Date(10_000).toISOString() }, steps: [step(0, 12_000)] }));
  assert.equal(videoTime(trace, { ...trace.steps[0]!, durationMs: 500 }), 2.5);
});

test('a snapshot document carries its own policy first: no script, nothing fetched', () => {
  const doc = snapshotDocument('<!DOCTYPE html><html><head><title>x</title></head><body><img src="http://elsewhere/x.png"></body></html>');
  assert.match(doc, /^<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data: blob:/);
  assert.equal(doc.match(/<!doctype/gi)?.length, 1);
});

test('a failed session opens at its last failed command (an earlier one was waited out); any other at its first step', () => {
  const steps = [step(0, 1), step(1, 2, { error: { code: 'no such element', message: 'waiting' } }), step(2, 3), step(3, 4, { error: { code: 'timeout', message: 'gave up' } }), step(4, 5)];
  const trace = (result: string) => readTrace(traceZip({ version: 1, session: { id: 's', result }, steps }));
  assert.equal(openingStep(trace('failed')), 3);
  assert.equal(openingStep(trace('passed')), 0);
  assert.equal(openingStep(readTrace(traceZip({ version: 1, session: { id: 's' }, steps: [] }))), undefined);
});

// ── Before, action, after; the filmstrip; errors and metadata (./captures.ts, ./facts.ts) ──────

test("a step's before: its own capture, else the after capture of the step before it when nothing between could have changed the page", () => {
  const steps = [
    step(0, 10, { screenshot: 's/0.jpg', snapshot: 'd/0.html', viewport: { width: 800, height: 600 } }),
    step(1, 20), // a read: no capture, no reason for lacking one
    { ...step(2, 30), kind: 'marker' as const },
    step(3, 40, { screenshot: 's/3.jpg', snapshot: 'd/3.html' }),
    step(4, 50, { before: { screenshot: 's/4b.jpg', snapshot: 'd/4b.html', viewport: { width: 1, height: 2 } } }),
    { ...step(5, 60), kind: 'bidi' as const },
    step(6, 70, { captureError: 'the capture failed: x' }),
    step(7, 80),
  ];
  assert.deepEqual(beforeOf(steps, 0), {}, 'nothing before the first step');
  assert.deepEqual(beforeOf(steps, 1), { screenshot: { path: 's/0.jpg', from: 0, phase: 'after' }, snapshot: { path: 'd/0.html', from: 0, phase: 'after' }, viewport: { width: 800, height: 600 } });
  assert.deepEqual(beforeOf(steps, 3).snapshot, { path: 'd/0.html', from: 0, phase: 'after' }, 'past a read and a marker');
  assert.deepEqual(beforeOf(steps, 4), { screenshot: { path: 's/4b.jpg', from: 4, phase: 'before' }, snapshot: { path: 'd/4b.html', from: 4, phase: 'before' }, viewport: { width: 1, height: 2 } });
  assert.deepEqual(beforeOf(steps, 6), {}, 'a BiDi message may have changed the page unseen');
  assert.deepEqual(beforeOf(steps, 7), {}, 'a capture that failed');
  // After: its own, else the latest; Action: none without an action capture.
  assert.deepEqual(afterOf(steps, 2).screenshot, { path: 's/0.jpg', from: 0, phase: 'after' });
  assert.deepEqual(phaseOf(steps, 3, 'action'), {});
});

test("a page captured without a picture shows none in After (and why), not an older picture; a later picture of it shows again", () => {
  const steps = [
    step(0, 1, { screenshot: 's/0.jpg', snapshot: 'd/0.html' }),
    step(1, 2, { snapshot: 'd/1.html', noScreenshot: 'the machine was busy' }),
    step(2, 3),
    step(3, 4, { snapshot: 'd/1.html', screenshot: 's/3.jpg' }),
    step(4, 5, { snapshot: 'd/4.html' }), // a step as older traces have it: the latest picture, as before
  ];
  assert.deepEqual(afterOf(steps, 0).screenshot, { path: 's/0.jpg', from: 0, phase: 'after' });
  assert.deepEqual(afterOf(steps, 1), { snapshot: { path: 'd/1.html', from: 1, phase: 'after' }, missing: 'the machine was busy' });
  assert.deepEqual(afterOf(steps, 2), { snapshot: { path: 'd/1.html', from: 1, phase: 'after' }, missing: 'the machine was busy' });
  assert.deepEqual(afterOf(steps, 3).screenshot, { path: 's/3.jpg', from: 3, phase: 'after' });
  assert.deepEqual(afterOf(steps, 4).screenshot, { path: 's/3.jpg', from: 3, phase: 'after' });
});

test("a step's action view: its own files, else the before's, with the element and the point; the element outlined and the point marked in its snapshot", () => {
  const element = { marker: 'm-1', selector: 'body > button', box: { x: 100, y: 50, width: 40, height: 20 } };
  const steps = [
    step(0, 10, { screenshot: 's/0.jpg', snapshot: 'd/0.html', viewport: { width: 800, height: 400, scrollY: 30 } }),
    step(1, 20, { action: { snapshot: 'd/1a.html', element, point: { x: 120, y: 60 } } }),
  ];
  const view = actionOf(steps, 1);
  assert.deepEqual(view, { screenshot: { path: 's/0.jpg', from: 0, phase: 'after' }, snapshot: { path: 'd/1a.html', from: 1, phase: 'action' }, viewport: { width: 800, height: 400, scrollY: 30 }, element, point: { x: 120, y: 60 } });
  assert.deepEqual(percentBox(element.box, view.viewport!), { left: 12.5, top: 12.5, width: 5, height: 5 });
  const html = '<html><head><title>t</title></head><body><button>go</button><iframe srcdoc="<body></body>"></iframe></body></html>';
  const marked = markSnapshot(html, view);
  assert.match(marked, /<style data-wdgate-viewer>\[data-wdgate-target="m-1"\] \{ outline[^}]+\}\nbody > button \{ outline[^}]+\}<\/style><\/head>/);
  // The point in the document: the viewport's point and how far it was scrolled; before the document's own </body>.
  assert.match(marked, /<div data-wdgate-pointer style="position: absolute; left: 120px; top: 90px;[^"]*"><\/div><\/body><\/html>$/);
  // What could end the rule or the sheet is not put in.
  assert.doesNotMatch(markSnapshot(html, { element: { marker: 'x"]{}', selector: 'a{} </style><script>' } }), /data-wdgate-viewer/);
});

test('the filmstrip: every screenshot at its time (before and action at the start, after at the end), one repeated by the next left out; laid out without overlap', () => {
  const steps = [
    step(0, 1000, { screenshot: 's/0.jpg' }),
    step(1, 2000, { screenshot: 's/0.jpg' }), // nothing changed
    step(2, 3000, { before: { screenshot: 's/2b.jpg' }, action: { screenshot: 's/2a.jpg' }, screenshot: 's/2.jpg' }),
    { ...step(3, 3002, { error: { code: 'no such element', message: 'x' } }), durationMs: 1 },
  ];
  const frames = filmstrip(steps);
  assert.deepEqual(frames.map((f) => [f.path, f.n, f.phase, f.at]), [
    ['s/0.jpg', 0, 'after', 1005],
    ['s/2b.jpg', 2, 'before', 3000],
    ['s/2a.jpg', 2, 'action', 3000],
    ['s/2.jpg', 2, 'after', 3005],
  ]);
  const span = timeline(steps);
  assert.deepEqual(span, { start: 1000, end: 3005 });
  assert.deepEqual(layoutStrip(frames, span, 1072, 72), [2, 998, 1072, 1146], 'at their time, else right after the one before');
  assert.equal(stepAt(steps, 2500), 1);
  assert.equal(stepAt(steps, 500), 0);
});

test('errors: failed commands, page errors at the step whose time holds them, a browser that went away at the last step; metadata', () => {
  const trace = readTrace(
    traceZip(
      {
        version: 1,
        session: { id: 's', endCause: 'crashed', endReason: 'its browser went away', endedAt: new Date(9000).toISOString(), browserName: 'chrome', browserVersion: '156.0', engine: 'chromium', window: { width: 1280, height: 720 }, answeredCapabilities: { browserName: 'chrome' } },
        steps: [step(0, 1000), step(1, 2000, { error: { code: 'no such element', message: 'gone' } }), step(2, 3000)],
      },
      { 'console.json': strToU8(JSON.stringify([{ type: 'pageerror', level: 'error', text: 'boom', stack: 'Error: boom\n  at x', timestamp: 2500 }, { type: 'console', level: 'log', text: 'hi', timestamp: 2600 }])) },
    ),
  );
  assert.deepEqual(
    errorsOf(trace).map((e) => [e.kind, e.n, e.title, e.message]),
    [
      ['command', 1, 'c1: no such element', 'gone'],
      ['page', 1, 'Uncaught page error', 'Error: boom\n  at x'],
      ['crash', 2, 'The browser went away', 'its browser went away'],
    ],
  );
  const meta = Object.fromEntries(metadataOf(trace));
  assert.equal(meta.Browser, 'chrome 156.0');
  assert.equal(meta.Window, '1280 × 720');
  assert.equal(meta['Page errors'], '1');
  assert.equal(meta['Console messages'], '1');
  assert.match(meta['Capabilities answered']!, /"browserName": "chrome"/);
});

test("a request's headers, timings and kept body are read from the HAR; a base64 body is not shown as text", () => {
  const entry = (url: string, content: Record<string, unknown>) => ({
    startedDateTime: new Date(1000).toISOString(),
    time: 5,
    request: { method: 'GET', url, headers: [{ name: 'Accept', value: '*/*' }] },
    response: { status: 200, statusText: 'OK', headers: [{ name: 'Set-Cookie', value: '[redacted]' }], content },
    timings: { blocked: 1, dns: -1, wait: 3 },
    _window: 'w1',
  });
  const [text, binary] = networkEntries({ log: { entries: [entry('http://a/1', { mimeType: 'application/json', text: '{"a":1}' }), entry('http://a/2', { mimeType: 'image/png', text: 'iVBOR', encoding: 'base64' })] } });
  assert.deepEqual([text!.requestHeaders, text!.responseHeaders, text!.body, text!.timings, text!.window], [[{ name: 'Accept', value: '*/*' }], [{ name: 'Set-Cookie', value: '[redacted]' }], '{"a":1}', { blocked: 1, dns: -1, wait: 3 }, 'w1']);
  assert.equal(binary!.body, undefined);
});
