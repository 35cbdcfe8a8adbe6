/**
 * Finds what a digest must keep exactly: URLs, file paths, UUIDs, ticket-style ids, commit-style
 * hashes and version numbers. Pure and deterministic (order of first appearance by kind).
 */

const URL_PATTERN = /\bhttps?:\/\/[^\s"'`<>()[\]{}\\]+/g;
const UUID_PATTERN = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** `/var/log/app.log`, `~/x`, `./a/b`, `../c`: not preceded by a word, dot, colon or slash. */
const ABSOLUTE_PATH_PATTERN = /(?<![\w.:/~-])(?:~|\.{1,2})?\/(?:[\w@.+-]+\/)*[\w@.+-]*[\w@+-]/g;
/** `src/a/b.ts`: relative paths count only with a file extension (else `and/or` would). */
const RELATIVE_PATH_PATTERN = /(?<![\w./~-])(?:[\w@.+-]+\/)+[\w@+-]+\.[A-Za-z0-9]{1,8}\b/g;
const VERSION_PATTERN = /\bv\d+(?:\.\d+){1,3}(?:-[\w.]+)?\b|\b\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?\b/g;
/** `ABC123`, `INC-4411`, `PROJ_12`: upper-case letters with at least two digits. */
const TICKET_PATTERN = /\b[A-Z][A-Z0-9]*(?:[-_][A-Z0-9]+)*\b/g;
/** Commit-style hashes: 7 to 40 hex characters holding both letters and digits. */
const HASH_PATTERN = /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/g;
const TRAILING_PUNCTUATION = /[.,;:!?]+$/;

/**
 * Pushes every match of `pattern` (global) in `text` to `found`, and returns `text` with each
 * match masked by a space so a narrower pattern does not match inside it (as
 * `text.replace(pattern, ' ')`, in the same pass). `requires`: what every match contains; a
 * text without it is returned as is, unscanned.
 */
function collect(text: string, pattern: RegExp, found: string[], requires?: string): string {
  if (requires !== undefined && !text.includes(requires)) return text;
  let masked = '';
  let position = 0;
  for (const match of text.matchAll(pattern)) {
    const value = match[0].replace(TRAILING_PUNCTUATION, '');
    if (value !== '') found.push(value);
    masked += `${text.slice(position, match.index)} `;
    position = match.index + match[0].length;
  }
  return position === 0 && masked === '' ? text : masked + text.slice(position);
}

function isTicket(value: string): boolean {
  let digits = 0;
  for (const character of value) if (character >= '0' && character <= '9') digits++;
  return digits >= 2 && value.length >= 4 && /[A-Z]/.test(value);
}

/** Identifiers in `text`, URLs first, then UUIDs, paths, versions, tickets and hashes. */
export function findIdentifiers(text: string): string[] {
  const found: string[] = [];
  let rest = collect(text, URL_PATTERN, found, '://');
  rest = collect(rest, UUID_PATTERN, found, '-');
  rest = collect(rest, ABSOLUTE_PATH_PATTERN, found, '/');
  rest = collect(rest, RELATIVE_PATH_PATTERN, found, '/');
  rest = collect(rest, VERSION_PATTERN, found, '.');
  const tickets: string[] = [];
  rest = collect(rest, TICKET_PATTERN, tickets);
  for (const ticket of tickets) if (isTicket(ticket)) found.push(ticket);
  collect(rest, HASH_PATTERN, found);
  return found;
}
