// W3C error codes and their HTTP statuses (spec §6.6), and the wire form of an error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NavigationTimeoutError, NoSuchWindowError, ScriptError, UnsupportedPrimitiveError } from '../../backends/backend.ts';
import { SPEC_TABLE } from '../helpers/spec-errors.ts';
import { ERROR_STATUS, error, isErrorCode, serializeError, toWebDriverError, WebDriverError } from '../../src/webdriver/errors.ts';

test('every W3C error code has the spec status, and there are no others', () => {
  assert.deepEqual(Object.keys(ERROR_STATUS).sort(), Object.keys(SPEC_TABLE).sort());
  for (const [code, status] of Object.entries(SPEC_TABLE)) {
    assert.ok(isErrorCode(code));
    assert.equal(error(code as never, 'm').status, status, code);
  }
});

test('isErrorCode knows only the spec codes', () => {
  for (const v of ['no such thing', 'NO SUCH ELEMENT', '', undefined, null, 404, 'toString', '__proto__', 'constructor']) {
    assert.equal(isErrorCode(v), false, String(v));
  }
});

test('an error is sent as {value: {error, message, stacktrace}} with its status', () => {
  const { status, body } = serializeError(error('no such element', 'no element matches "#x"'));
  assert.equal(status, 404);
  assert.deepEqual(JSON.parse(body), { value: { error: 'no such element', message: 'no element matches "#x"', stacktrace: '' } });
});

test('extra error data (the alert text of unexpected alert open) sits beside the three members', () => {
  const { status, body } = serializeError(error('unexpected alert open', 'an alert is open', { data: { text: 'hi' } }));
  assert.equal(status, 500);
  assert.deepEqual(JSON.parse(body), { value: { error: 'unexpected alert open', message: 'an alert is open', stacktrace: '', data: { text: 'hi' } } });
});

test('backend and internal exceptions map to W3C errors; no stack leaks', () => {
  const wd = error('no such frame', 'x');
  assert.equal(toWebDriverError(wd), wd);
  assert.equal(toWebDriverError(new NoSuchWindowError('gone')).code, 'no such window');
  assert.equal(toWebDriverError(new NavigationTimeoutError('slow')).code, 'timeout');
  // Whatever command meets it: a backend's missing primitive is unsupported operation, its message kept.
  const lacking = toWebDriverError(new UnsupportedPrimitiveError('this engine cannot emulate touch'));
  assert.deepEqual([lacking.code, lacking.status, lacking.message], ['unsupported operation', 500, 'this engine cannot emulate touch']);
  const script = toWebDriverError(new ScriptError('TypeError: boom'));
  assert.equal(script.code, 'javascript error');
  assert.equal(script.message, 'TypeError: boom');
  const internal = toWebDriverError(new RangeError('net::ERR_CONNECTION_REFUSED'));
  assert.ok(internal instanceof WebDriverError);
  assert.equal(internal.code, 'unknown error');
  assert.equal(internal.message, 'net::ERR_CONNECTION_REFUSED');
  assert.equal(JSON.parse(serializeError(internal).body).value.stacktrace, '');
  assert.equal(toWebDriverError('a string').message, 'a string');
  assert.equal(toWebDriverError(undefined).code, 'unknown error');
});

test('an error message goes on the wire as one line', () => {
  const { body } = serializeError(error('javascript error', 'Error: boom\n    at <anonymous>:1:7\r\n    at run'));
  assert.equal(JSON.parse(body).value.message, 'Error: boom at <anonymous>:1:7 at run');
});
