/**
 * The time and author filters of a history search, applied to hits a store returned. The
 * shipped stores apply them in the query; a store written before they existed ignores them,
 * and callers (the recall tool, memory) must still not show what they exclude.
 */
import { matchesSearchFilters } from './search-text.js';
import type { SearchHit } from './session-service.js';

export interface HitFilters {
  /** Only hits with `timestamp > after` (epoch seconds). */
  after?: number;
  /** Only hits with `timestamp < before` (epoch seconds). */
  before?: number;
  /** Only hits by one of these authors. */
  authors?: readonly string[];
}

/** The stores' own rule (`matchesSearchFilters`), for hits a store may not have filtered. */
export function passesHitFilters(hit: SearchHit, filters: HitFilters): boolean {
  return matchesSearchFilters(
    {
      after: filters.after ?? Number.NEGATIVE_INFINITY,
      before: filters.before ?? Number.POSITIVE_INFINITY,
      authors: filters.authors,
    },
    hit,
  );
}

/** The filters that are set, spread into `searchEvents` options (an unset one stays out). */
export function definedHitFilters(filters: HitFilters): {
  after?: number;
  before?: number;
  authors?: string[];
} {
  return {
    ...(filters.after !== undefined ? { after: filters.after } : {}),
    ...(filters.before !== undefined ? { before: filters.before } : {}),
    ...(filters.authors !== undefined ? { authors: [...filters.authors] } : {}),
  };
}
