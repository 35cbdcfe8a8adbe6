/**
 * The views a store already read, per session (docs/performance.md#the-view-cache): a turn
 * costs the events appended since the last read, not a re-read and re-validation of the whole
 * tail. An entry is keyed by the session's identity (`stamp`: its creation time, so a session
 * deleted and created again is a new one) and holds the view as of `lastSeq`. The consistency
 * rule: a store uses an entry only after reading the session's `lastSeq` in the same snapshot
 * as the rows it adds, so appends by another process or replica are always read; a stored
 * event never changes, so what was read stays right.
 */
import type { Event, SessionKey } from '../events/types.js';
import type { StoredView } from './session-service.js';

export interface ViewCacheOptions {
  /** Sessions kept, least recently read dropped first (default 256; 0 turns the cache off). */
  sessions?: number;
  /**
   * Events kept across all sessions (default 100,000), least recently read sessions dropped
   * first; a view whose tail alone is longer is not kept. Bounds the memory whatever the tails.
   */
  maxEvents?: number;
}

interface Entry {
  stamp: number | string;
  view: StoredView;
}

export const DEFAULT_VIEW_CACHE_SESSIONS = 256;
const DEFAULT_MAX_EVENTS = 100_000;

/** What a store does with its cached view for a session whose stored `lastSeq` it just read. */
export type CachedView =
  /** Nothing usable: read the view whole. */
  | { kind: 'miss' }
  /** The view as stored now (a copy the caller may keep). */
  | { kind: 'hit'; view: StoredView }
  /** Rows after `afterSeq` were appended since: read them and `extend`. */
  | { kind: 'behind'; afterSeq: number };

function cacheKey(key: SessionKey): string {
  return `${key.appName}\u0000${key.userId}\u0000${key.sessionId}`;
}

function copyOf(view: StoredView): StoredView {
  const copy: StoredView = {
    checkpoint: view.checkpoint,
    tail: view.tail.slice(),
    lastSeq: view.lastSeq,
  };
  if (view.warnings) copy.warnings = view.warnings.slice();
  return copy;
}

export class ViewCache {
  private readonly entries = new Map<string, Entry>();
  private readonly sessions: number;
  private readonly maxEvents: number;
  /** The tail events of every entry. */
  private events = 0;

  constructor(options: ViewCacheOptions = {}) {
    this.sessions = options.sessions ?? DEFAULT_VIEW_CACHE_SESSIONS;
    this.maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  }

  /** Sessions and events kept now. */
  get size(): { sessions: number; events: number } {
    return { sessions: this.entries.size, events: this.events };
  }

  /** The `lastSeq` of the view kept for `key`, if any (no recency change). */
  peekLastSeq(key: SessionKey): number | undefined {
    return this.entries.get(cacheKey(key))?.view.lastSeq;
  }

  lookup(key: SessionKey, stamp: number | string, lastSeq: number): CachedView {
    const name = cacheKey(key);
    const entry = this.entries.get(name);
    if (!entry || entry.stamp !== stamp || entry.view.lastSeq > lastSeq) return { kind: 'miss' };
    // Most recently read last, so the first entry is the one to drop.
    this.entries.delete(name);
    this.entries.set(name, entry);
    if (entry.view.lastSeq === lastSeq) return { kind: 'hit', view: copyOf(entry.view) };
    // A view that passed over a bad checkpoint is read whole again (the warnings say why).
    if (entry.view.warnings) return { kind: 'miss' };
    return { kind: 'behind', afterSeq: entry.view.lastSeq };
  }

  /**
   * The cached view extended with `rows` (every row with `seq` in `(afterSeq, lastSeq]`, in
   * order), or `undefined` when one of them is a compaction (the checkpoint may change: read
   * the view whole).
   */
  extend(
    key: SessionKey,
    stamp: number | string,
    rows: Event[],
    lastSeq: number,
  ): StoredView | undefined {
    const name = cacheKey(key);
    const entry = this.entries.get(name);
    if (!entry || entry.stamp !== stamp) return undefined;
    if (rows.some((event) => event.actions?.compaction)) return undefined;
    // The entry's tail is the cache's own array (every read gets a copy): extended in place.
    for (const event of rows) entry.view.tail.push(event);
    entry.view.lastSeq = lastSeq;
    this.events += rows.length;
    const copy = copyOf(entry.view);
    this.bound(name);
    return copy;
  }

  /**
   * An event this process just stored (committed) at `event.seq`: added to the cached view when
   * it directly follows it (`lastSeq + 1`, same `stamp`), so the next read finds it without
   * reading, parsing or checking its row. `event` must be the store's own copy (never one a
   * caller holds). Anything else (another process appended in between, a compaction, no entry)
   * leaves the entry as it is: the next read's `lastSeq` tells what it lacks.
   */
  appended(key: SessionKey, stamp: number | string, event: Event): void {
    const name = cacheKey(key);
    const entry = this.entries.get(name);
    if (!entry || entry.stamp !== stamp || entry.view.warnings) return;
    if (entry.view.lastSeq !== event.seq - 1 || event.actions?.compaction) return;
    entry.view.tail.push(event);
    entry.view.lastSeq = event.seq;
    this.events++;
    this.bound(name);
  }

  /** Keeps `view` (read whole, as stored at `view.lastSeq`). */
  remember(key: SessionKey, stamp: number | string, view: StoredView): void {
    this.drop(cacheKey(key));
    if (this.sessions <= 0 || view.tail.length > this.maxEvents) return;
    this.entries.set(cacheKey(key), { stamp, view: copyOf(view) });
    this.events += view.tail.length;
    this.bound(cacheKey(key));
  }

  /** Drops least recently read entries past the bounds (`name` too, when its tail alone is over). */
  private bound(name: string): void {
    const entry = this.entries.get(name);
    if (entry && entry.view.tail.length > this.maxEvents) this.drop(name);
    while (this.entries.size > this.sessions || this.events > this.maxEvents) {
      this.drop(this.entries.keys().next().value as string);
    }
  }

  forget(key: SessionKey): void {
    this.drop(cacheKey(key));
  }

  clear(): void {
    this.entries.clear();
    this.events = 0;
  }

  private drop(name: string): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.entries.delete(name);
    this.events -= entry.view.tail.length;
  }
}
