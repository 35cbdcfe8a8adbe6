/**
 * The share of the events holding each common lexeme, as PostgreSQL's ANALYZE (and autovacuum)
 * keeps it for the `search` column: `pg_stats.most_common_elems` and `most_common_elem_freqs`
 * (the ~1000 commonest lexemes at the default statistics target). Search estimates a common
 * term's document frequency from it instead of counting the term's matches (search.ts), read
 * once per `maxAgeMs` per store, not in every search statement: joining `pg_stats` there cost
 * more planning time than the estimate saved.
 */

/** How long a read of the statistics is used before it is read again (default 60 s). */
export const DEFAULT_TERM_SHARES_MAX_AGE_MS = 60_000;

export interface TermSharesOptions {
  /** Reads the statistics row (`pg_stats` of `orrery_events.search`), none before ANALYZE. */
  read: (signal?: AbortSignal) => Promise<TermSharesRow[]>;
  maxAgeMs?: number;
  /** Milliseconds now (tests pass their own clock). */
  now?: () => number;
}

export interface TermSharesRow {
  elems: string[] | null;
  freqs: number[] | null;
}

/** The statement that reads the statistics ($1: the schema's name, unquoted). */
export const TERM_SHARES_SQL = `SELECT most_common_elems::text::text[] AS elems,
    most_common_elem_freqs::float8[] AS freqs
  FROM pg_stats WHERE schemaname = $1 AND tablename = 'orrery_events' AND attname = 'search'
    AND NOT inherited LIMIT 1`;

export class TermShares {
  private shares = new Map<string, number>();
  private leastShare: number | undefined;
  private readAt = Number.NEGATIVE_INFINITY;
  private pending?: Promise<void>;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(private readonly options: TermSharesOptions) {
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_TERM_SHARES_MAX_AGE_MS;
    this.now = options.now ?? Date.now;
  }

  /** Reads the statistics again when the last read is older than `maxAgeMs`. */
  async refresh(signal?: AbortSignal): Promise<void> {
    if (this.now() - this.readAt < this.maxAgeMs) return;
    // Concurrent searches share one read.
    this.pending ??= this.read(signal).finally(() => {
      this.pending = undefined;
    });
    await this.pending;
  }

  /** The share (0..1) of the table's events holding `word`; undefined when it is not common. */
  word(word: string): number | undefined {
    return this.shares.get(word);
  }

  /**
   * The share taken for a word that is not common: half of the least common one's (which
   * bounds it, as ANALYZE keeps the commonest); undefined before ANALYZE.
   */
  rareShare(): number | undefined {
    return this.leastShare === undefined ? undefined : this.leastShare / 2;
  }

  /**
   * The share of events holding a word that starts with `prefix`: the sum of the common ones'
   * shares (an upper bound, capped at 1); undefined when no common word starts with it.
   */
  prefix(prefix: string): number | undefined {
    let sum: number | undefined;
    for (const [word, share] of this.shares) {
      if (word.startsWith(prefix)) sum = (sum ?? 0) + share;
    }
    return sum === undefined ? undefined : Math.min(1, sum);
  }

  private async read(signal?: AbortSignal): Promise<void> {
    const rows = await this.options.read(signal);
    const shares = new Map<string, number>();
    const { elems, freqs } = rows[0] ?? { elems: null, freqs: null };
    // freqs holds one share per element, then the minimum, maximum and null share.
    let least: number | undefined;
    if (elems && freqs) {
      elems.forEach((elem, index) => {
        const share = freqs[index];
        if (share !== undefined) shares.set(elem, share);
      });
      // After the elements' frequencies: their minimum, maximum and the null elements' share.
      const minimum = freqs[elems.length];
      least = minimum !== undefined && minimum > 0 ? minimum : undefined;
    }
    this.shares = shares;
    this.leastShare = least;
    this.readAt = this.now();
  }
}
