/**
 * Facts about a stored tail that a turn asks every time (the elision rule in force, the
 * invocations in it), kept per view and extended by what was appended instead of scanned whole
 * each turn (docs/performance.md, "Per-turn passes in proportion to what was appended"). The
 * figures are the full scans', exactly: a tail that is not the remembered one plus appends (a
 * compaction, another scope, a recreated session) is scanned whole.
 */
import type { Event } from '../events/types.js';
import { type ElisionEvent, isElisionEvent, isValidElision } from './elision.js';

interface Facts {
  length: number;
  firstId: string;
  lastId: string;
  /** `latestElision(events)`. */
  latest?: ElisionEvent;
  /** Invocation ids of the events that are neither compactions nor elision events. */
  invocations: Set<string | undefined>;
}

/** Views remembered at most (the least recently asked are forgotten). */
const DEFAULT_VIEWS = 1_000;

export class TailFacts {
  private readonly views = new Map<string, Facts>();
  private readonly limit: number;

  constructor(options: { views?: number } = {}) {
    this.limit = Math.max(1, options.views ?? DEFAULT_VIEWS);
  }

  /**
   * `latestElision(events)`. `viewKey` names the sequence: the same key must always name the
   * same append-only one (one session's view as one scope sees it).
   */
  latestElision(options: { viewKey: string; events: readonly Event[] }): ElisionEvent | undefined {
    return this.facts(options)?.latest;
  }

  /** `countCompletedInvocations({ tail: events, currentInvocationId })`. */
  completedInvocations(options: {
    viewKey: string;
    events: readonly Event[];
    currentInvocationId?: string;
  }): number {
    const facts = this.facts(options);
    if (!facts) return 0;
    // As the full count, which skips every event of the running invocation (an event without
    // one too, when none is running).
    return facts.invocations.size - (facts.invocations.has(options.currentInvocationId) ? 1 : 0);
  }

  private facts(options: { viewKey: string; events: readonly Event[] }): Facts | undefined {
    const { viewKey, events } = options;
    const known = this.views.get(viewKey);
    this.views.delete(viewKey);
    if (events.length === 0) return undefined;
    // Stored events never change: a sequence whose first and previous-last events are the
    // remembered ones (by id) holds the same events in between, and only appends after.
    const extends_ =
      known !== undefined &&
      events.length >= known.length &&
      events[0]!.id === known.firstId &&
      events[known.length - 1]!.id === known.lastId;
    const facts: Facts = extends_
      ? known
      : { length: 0, firstId: events[0]!.id, lastId: '', invocations: new Set() };
    for (let index = facts.length; index < events.length; index++) {
      const event = events[index]!;
      if (isValidElision(event) && (!facts.latest || event.seq > facts.latest.seq)) {
        facts.latest = event;
      }
      if (!event.actions?.compaction && !isElisionEvent(event)) {
        facts.invocations.add(event.invocationId);
      }
    }
    facts.length = events.length;
    facts.lastId = events[events.length - 1]!.id;
    this.views.set(viewKey, facts);
    if (this.views.size > this.limit) {
      const oldest = this.views.keys().next().value;
      if (oldest !== undefined) this.views.delete(oldest);
    }
    return facts;
  }
}
