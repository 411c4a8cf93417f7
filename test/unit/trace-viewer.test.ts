// The trace viewer's reading of a trace (src/trace/viewer/model.ts): what it refuses and why,
// which console lines and requests belong to a step, which picture a step shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { zipSync, strToU8 } from 'fflate';
import { latest, openingStep, pictureOf, readTrace, snapshotDocument, stepWindow, TraceError, videoTime, within, type TraceStep } from '../../src/trace/viewer/model.ts';

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

test('a page captured without a picture shows none (and why), not an older picture; a later picture of it shows again', () => {
  const steps = [
    step(0, 1, { screenshot: 's/0.jpg', snapshot: 'd/0.html' }),
    step(1, 2, { snapshot: 'd/1.html', noScreenshot: 'the machine was busy' }),
    step(2, 3),
    step(3, 4, { snapshot: 'd/1.html', screenshot: 's/3.jpg' }),
    step(4, 5, { snapshot: 'd/4.html' }), // a step as older traces have it: the latest picture, as before
  ];
  assert.deepEqual(pictureOf(steps, 0), { path: 's/0.jpg', from: 0 });
  assert.deepEqual(pictureOf(steps, 1), { missing: 'the machine was busy', from: 1 });
  assert.deepEqual(pictureOf(steps, 2), { missing: 'the machine was busy', from: 1 });
  assert.deepEqual(pictureOf(steps, 3), { path: 's/3.jpg', from: 3 });
  assert.deepEqual(pictureOf(steps, 4), { path: 's/3.jpg', from: 3 });
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
