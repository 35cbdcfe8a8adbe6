/**
 * The digest's sections while events are read: an ordered list without repeats where a repeat
 * moves to the end (most recent) or, with `keepFirst`, stays put. A `Map` keeps insertion order,
 * so each step is O(1) and a window of n events costs O(n), where `indexOf` + `splice` on an
 * array cost O(n) a step (quadratic on a 50k-event backlog).
 */
export class RecentItems {
  private readonly items = new Map<string, string>();

  /** `key`: what makes two items the same (default: the item itself). */
  constructor(
    initial: Iterable<string> = [],
    private readonly key: (item: string) => string = (item) => item,
  ) {
    for (const item of initial) this.remember(item);
  }

  get size(): number {
    return this.items.size;
  }

  remember(item: string, keepFirst = false): void {
    const key = this.key(item);
    if (this.items.has(key)) {
      if (keepFirst) return;
      this.items.delete(key);
    }
    this.items.set(key, item);
  }

  /** Keeps only the items `keep` accepts, in order. */
  retain(keep: (item: string) => boolean): void {
    for (const [key, item] of [...this.items]) if (!keep(item)) this.items.delete(key);
  }

  toArray(): string[] {
    return [...this.items.values()];
  }
}

/**
 * A section that keeps its `limit` most recent distinct items, filled newest event first: once
 * `limit` distinct items are in, nothing older can stay in the digest, so the reader stops
 * reading (and redacting) older events for it. `toArray()` gives what `RecentItems` would give
 * had every event been read oldest first, trimmed to `limit`.
 */
export class NewestItems {
  private readonly seen = new Set<string>();
  private readonly newestFirst: string[] = [];

  constructor(
    private readonly carried: readonly string[],
    readonly limit: number,
    private readonly key: (item: string) => string = (item) => item,
  ) {}

  get full(): boolean {
    return this.newestFirst.length >= this.limit;
  }

  /** An item of an older event than every item offered before (or of the same event, later in it). */
  offer(item: string): void {
    const key = this.key(item);
    if (this.full || this.seen.has(key)) return;
    this.seen.add(key);
    this.newestFirst.push(item);
  }

  /** Oldest first: the carried items not seen again, then the items read, within `limit`. */
  toArray(): string[] {
    const carried = new RecentItems(this.carried, this.key).toArray();
    const items = carried.filter((item) => !this.seen.has(this.key(item)));
    for (let index = this.newestFirst.length - 1; index >= 0; index--) {
      items.push(this.newestFirst[index] as string);
    }
    return items.slice(Math.max(0, items.length - this.limit));
  }
}
