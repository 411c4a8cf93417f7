// A channel's subscriptions, kept as Firefox keeps a session's own (its root session module): the
// events a module's name stands for, which subscriptions want an event, and unsubscribing by id
// and by event, with Firefox's answers to what cannot be unsubscribed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventNames, FIREFOX_EVENTS, InvalidArgument, Subscriptions } from '../../backends/firefox/subscriptions.ts';

const refused = (message: string) => (e: unknown) => e instanceof InvalidArgument && e.error === 'invalid argument' && e.message === message;

test("a module's name stands for each of its events; a name Firefox does not know is refused in its words", () => {
  assert.deepEqual([...eventNames(['log'])], ['log.entryAdded']);
  assert.deepEqual([...eventNames(['browsingContext.load', 'network'])], ['browsingContext.load', ...FIREFOX_EVENTS.network!]);
  assert.deepEqual([...eventNames(['storage'])], []);
  assert.throws(() => eventNames(['nosuch']), refused('Module nosuch does not exist'));
  assert.throws(() => eventNames(['nosuch.event']), refused('Module nosuch does not exist'));
  assert.throws(() => eventNames(['browsingContext.noSuchEvent']), refused('browsingContext.noSuchEvent is not a valid event name'));
  // A name Firefox accepted that the table does not know (a newer Firefox) stands for itself.
  assert.deepEqual([...eventNames(['speculation', 'log'], (name) => name === 'speculation')], ['speculation', 'log.entryAdded']);
});

/** Global: no contexts, no user contexts. */
const subscription = (id: string, events: string[], scope: { contexts?: string[]; userContexts?: string[] } = {}) => ({
  id,
  events: eventNames(events),
  contexts: new Set(scope.contexts),
  userContexts: new Set(scope.userContexts),
});

test('an event is wanted by a global subscription to it, or one for its top-level context or its user context', () => {
  const subscriptions = new Subscriptions();
  subscriptions.add(subscription('a', ['log']));
  subscriptions.add(subscription('b', ['browsingContext.load'], { contexts: ['top-1'] }));
  subscriptions.add(subscription('c', ['network.beforeRequestSent'], { userContexts: ['user-1'] }));
  subscriptions.add({ id: 'd', events: new Set(['speculation']), contexts: new Set(), userContexts: new Set() });
  assert.equal(subscriptions.wants('log.entryAdded', 'top-2', 'user-2'), true);
  assert.equal(subscriptions.wants('browsingContext.load', 'top-1', 'user-2'), true);
  assert.equal(subscriptions.wants('browsingContext.load', 'top-2', 'user-1'), false);
  assert.equal(subscriptions.wants('network.beforeRequestSent', 'top-2', 'user-1'), true);
  assert.equal(subscriptions.wants('network.beforeRequestSent', 'top-1', 'user-2'), false);
  assert.equal(subscriptions.wants('speculation.prefetchStatusUpdated', undefined, 'user-2'), true, "a module's name the table does not know");
  assert.equal(subscriptions.wants('script.message', 'top-1', 'user-1'), false);
});

test('by event: a global subscription loses the events named and keeps its id; all must match, else nothing changes', () => {
  const subscriptions = new Subscriptions();
  subscriptions.add(subscription('a', ['browsingContext']));
  subscriptions.removeByAttributes(eventNames(['browsingContext.load']), new Set());
  assert.equal(subscriptions.wants('browsingContext.load', 'top', 'user'), false);
  assert.equal(subscriptions.wants('browsingContext.domContentLoaded', 'top', 'user'), true);
  // The module again: its load event is no longer subscribed to, so Firefox refuses it all.
  const every = FIREFOX_EVENTS.browsingContext!.join(', ');
  assert.throws(() => subscriptions.removeByAttributes(eventNames(['browsingContext']), new Set()), refused(`Failed to unsubscribe from events: ${every}`));
  assert.equal(subscriptions.wants('browsingContext.domContentLoaded', 'top', 'user'), true, 'a refused unsubscribe changes nothing');
  // A subscription emptied event by event is gone, its id still known (unsubscribing it by id is no error).
  subscriptions.removeByAttributes(eventNames(FIREFOX_EVENTS.browsingContext!.filter((e) => e !== 'browsingContext.load')), new Set());
  assert.deepEqual([...subscriptions.live()], []);
  assert.deepEqual(subscriptions.unknown(['a']), []);
  subscriptions.removeById(['a']);
  assert.deepEqual(subscriptions.unknown(['a', 'b']), ['a', 'b']);
});

test('by event, without contexts, a subscription for contexts or user contexts is not touched: refused', () => {
  const subscriptions = new Subscriptions();
  subscriptions.add(subscription('a', ['log.entryAdded'], { contexts: ['top-1'] }));
  subscriptions.add(subscription('b', ['log.entryAdded'], { userContexts: ['user-1'] }));
  assert.throws(() => subscriptions.removeByAttributes(eventNames(['log.entryAdded']), new Set()), refused('Failed to unsubscribe from events: log.entryAdded'));
  assert.equal(subscriptions.wants('log.entryAdded', 'top-1', 'user-2'), true);
  assert.equal(subscriptions.wants('log.entryAdded', 'top-2', 'user-1'), true);
});

test('by event and context: those contexts leave the subscriptions for contexts, each event kept for the rest under the same id', () => {
  const subscriptions = new Subscriptions();
  subscriptions.add(subscription('a', ['browsingContext.load', 'log.entryAdded'], { contexts: ['top-1', 'top-2'] }));
  subscriptions.removeByAttributes(eventNames(['log.entryAdded']), new Set(['top-1']));
  assert.equal(subscriptions.wants('log.entryAdded', 'top-1', 'user'), false);
  assert.equal(subscriptions.wants('log.entryAdded', 'top-2', 'user'), true);
  assert.equal(subscriptions.wants('browsingContext.load', 'top-1', 'user'), true);
  assert.throws(() => subscriptions.removeByAttributes(eventNames(['log.entryAdded']), new Set(['top-1'])), refused('Failed to unsubscribe from events: log.entryAdded'));
  subscriptions.removeByAttributes(eventNames(['log.entryAdded', 'browsingContext.load']), new Set(['top-2']));
  assert.deepEqual([...subscriptions.live()], ['a']);
  subscriptions.removeById(['a']);
  assert.equal(subscriptions.wants('browsingContext.load', 'top-1', 'user'), false);
});
