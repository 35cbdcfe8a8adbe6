/** Counts in output read as English: "1 event", "2 events", "1,204 events". */
import { groupDigits } from './group-digits.js';

/** `count` and the noun, singular for exactly one; `plural` for irregular nouns. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${groupDigits(count)} ${count === 1 ? singular : pluralForm}`;
}
