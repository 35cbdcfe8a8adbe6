/** PostgreSQL state columns are jsonb, which cannot hold NUL characters. */
import { InvalidEventError } from '../../events/errors.js';
import type { splitState } from '../store-helpers.js';

/**
 * State is merged with jsonb `||`, and jsonb cannot hold NUL characters: such a value is an
 * `InvalidEventError` naming the key (events themselves are stored as json text and keep them).
 */
export function assertJsonbStorable(scoped: ReturnType<typeof splitState>, path: string): void {
  for (const part of [scoped.session, scoped.user, scoped.app]) {
    for (const [key, value] of Object.entries(part)) {
      if (containsNul(key) || containsNul(value)) {
        throw new InvalidEventError({
          path: `${path}[${JSON.stringify(key)}]`,
          message: 'holds a NUL character (\\u0000), which PostgreSQL state (jsonb) cannot store',
          value,
        });
      }
    }
  }
}

function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(containsNul);
  return Object.entries(value).some(([key, child]) => containsNul(key) || containsNul(child));
}
