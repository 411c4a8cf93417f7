// What a channel of the shared Firefox session subscribed to, kept as Firefox keeps a session's
// own (W3C BiDi "session.subscribe", "session.unsubscribe"; Firefox's root session module): event
// names with a module's name standing for each of its events, each subscription global, for some
// top-level contexts or for some user contexts, removed by id, or event by event from the global
// ones ("unsubscribe by attributes"). Upstream every subscription is the channel's user contexts'
// (./hub.ts): the events a channel gets are those this model says it wants.

/** Firefox ESR 153's events by module (the `supportedEvents` of its root modules); [] for a module without events. */
export const FIREFOX_EVENTS: Readonly<Record<string, readonly string[]>> = {
  browser: [],
  browsingContext: [
    'browsingContext.contextCreated',
    'browsingContext.contextDestroyed',
    'browsingContext.domContentLoaded',
    'browsingContext.downloadEnd',
    'browsingContext.downloadWillBegin',
    'browsingContext.fragmentNavigated',
    'browsingContext.historyUpdated',
    'browsingContext.load',
    'browsingContext.navigationCommitted',
    'browsingContext.navigationFailed',
    'browsingContext.navigationStarted',
    'browsingContext.userPromptClosed',
    'browsingContext.userPromptOpened',
  ],
  emulation: [],
  input: ['input.fileDialogOpened'],
  log: ['log.entryAdded'],
  network: ['network.authRequired', 'network.beforeRequestSent', 'network.fetchError', 'network.responseCompleted', 'network.responseStarted'],
  permissions: [],
  script: ['script.message', 'script.realmCreated', 'script.realmDestroyed'],
  session: [],
  storage: [],
  webExtension: [],
};

/** A name Firefox refuses: invalid argument, in its words. */
export class InvalidArgument extends Error {
  readonly error = 'invalid argument';
}

export interface Subscription {
  readonly id: string;
  readonly events: ReadonlySet<string>;
  /** Top-level browsing contexts it is for; none: not scoped by context. */
  readonly contexts: ReadonlySet<string>;
  /** User contexts it is for; none: not scoped by user context. */
  readonly userContexts: ReadonlySet<string>;
}

const isGlobal = (s: Subscription) => s.contexts.size === 0 && s.userContexts.size === 0;

/** Whether the table knows `name`: a module's, or an event of a module. */
export function knownEventName(name: string): boolean {
  const dot = name.indexOf('.');
  const module = dot >= 0 ? name.slice(0, dot) : name;
  return Object.hasOwn(FIREFOX_EVENTS, module) && (dot < 0 || FIREFOX_EVENTS[module]!.includes(name));
}

/**
 * The events `names` stand for: an event's name itself, a module's name each of its events. A
 * name the table does not know is refused as Firefox refuses it, unless `literal` (a name Firefox
 * accepted, of a newer Firefox than the table): it stands for itself.
 */
export function eventNames(names: Iterable<string>, literal: (name: string) => boolean = () => false): Set<string> {
  const events = new Set<string>();
  for (const name of names) {
    if (knownEventName(name)) {
      if (name.includes('.')) events.add(name);
      else for (const event of FIREFOX_EVENTS[name]!) events.add(event);
    } else if (literal(name)) events.add(name);
    else {
      const dot = name.indexOf('.');
      const module = dot >= 0 ? name.slice(0, dot) : name;
      throw new InvalidArgument(Object.hasOwn(FIREFOX_EVENTS, module) ? `${name} is not a valid event name` : `Module ${module} does not exist`);
    }
  }
  return events;
}

export class Subscriptions {
  #list: Subscription[] = [];
  /** Ids handed out and not unsubscribed by id (one emptied event by event is still known). */
  readonly #known = new Set<string>();

  add(subscription: Subscription): void {
    this.#list.push(subscription);
    this.#known.add(subscription.id);
  }

  /** Whether an event (by name, of a top-level context in a user context) is subscribed to. */
  wants(method: string, top: string | undefined, userContext: string | undefined): boolean {
    return this.#list.some(
      (s) =>
        (s.events.has(method) || s.events.has(method.slice(0, method.indexOf('.')))) &&
        (isGlobal(s) || (top !== undefined && s.contexts.has(top)) || (userContext !== undefined && s.userContexts.has(userContext))),
    );
  }

  /** Whether any subscription names `name` itself (a module the table does not know). */
  names(name: string): boolean {
    return this.#list.some((s) => s.events.has(name));
  }

  /** The ids among `ids` never handed out, or unsubscribed by id already. */
  unknown(ids: string[]): string[] {
    return ids.filter((id) => !this.#known.has(id));
  }

  /** Unsubscribe by id (all known: see unknown()). */
  removeById(ids: string[]): void {
    const removed = new Set(ids);
    for (const id of removed) this.#known.delete(id);
    this.#list = this.#list.filter((s) => !removed.has(s.id));
  }

  /**
   * Unsubscribe by attributes, as Firefox does: without `contexts` the events leave the global
   * subscriptions that have them; with `contexts` (top-level) they leave those contexts of the
   * subscriptions for contexts (each event then a subscription of its own, with the same id).
   * Every event (and context) must have matched, else nothing changes: InvalidArgument.
   */
  removeByAttributes(events: Set<string>, contexts: Set<string>): void {
    const next: Subscription[] = [];
    const matchedEvents = new Set<string>();
    const matchedContexts = new Set<string>();
    for (const s of this.#list) {
      if (![...s.events].some((e) => events.has(e))) next.push(s);
      else if (contexts.size === 0) {
        if (!isGlobal(s)) {
          next.push(s);
          continue;
        }
        const rest = new Set([...s.events].filter((e) => !events.has(e)));
        for (const e of s.events) if (events.has(e)) matchedEvents.add(e);
        if (rest.size) next.push({ ...s, events: rest });
      } else if (isGlobal(s)) next.push(s);
      else {
        // Split by event; a named event keeps the contexts not named (none left for a
        // subscription by user context: Firefox drops the event from it).
        for (const event of s.events) {
          if (!events.has(event)) {
            next.push({ ...s, events: new Set([event]) });
            continue;
          }
          const left = new Set(s.contexts);
          for (const context of contexts) {
            if (!left.delete(context)) continue;
            matchedEvents.add(event);
            matchedContexts.add(context);
          }
          if (left.size) next.push({ ...s, events: new Set([event]), contexts: left });
        }
      }
    }
    const names = [...events].join(', ');
    if (matchedEvents.size !== events.size) throw new InvalidArgument(`Failed to unsubscribe from events: ${names}`);
    if (contexts.size && matchedContexts.size !== contexts.size) throw new InvalidArgument(`Failed to unsubscribe from events: ${names} for context ids: ${[...contexts].join(', ')}`);
    this.#list = next;
  }

  /** Ids that still have events. */
  live(): Set<string> {
    return new Set(this.#list.map((s) => s.id));
  }

  /** The global subscriptions (a user context the channel gains is theirs too). */
  global(): Subscription[] {
    return this.#list.filter(isGlobal);
  }

  clear(): void {
    this.#list = [];
    this.#known.clear();
  }
}
