/**
 * The time and author filters of a history search, applied to hits a store returned. The
 * shipped stores apply them in the query; a store written before they existed ignores them,
 * and callers (the recall tool, memory) must still not show what they exclude.
 */
import type { SearchHit } from './session-service.js';

export interface HitFilters {
  /** Only hits with `timestamp > after` (epoch seconds). */
  after?: number;
  /** Only hits with `timestamp < before` (epoch seconds). */
  before?: number;
  /** Only hits by one of these authors. */
  authors?: readonly string[];
}

export function passesHitFilters(hit: SearchHit, filters: HitFilters): boolean {
  if (filters.after !== undefined && !(hit.timestamp > filters.after)) return false;
  if (filters.before !== undefined && !(hit.timestamp < filters.before)) return false;
  if (filters.authors !== undefined && !filters.authors.includes(hit.author)) return false;
  return true;
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
