/**
 * The text of the PostgreSQL `search` column, computed by the writer (schema version 7): until
 * then a generated column ran `orrery_event_search_text` (search.ts), a plpgsql recursive walk
 * of the event's json, on every insert (a quarter to a third of the database CPU of a turn).
 * The writer sends this text and the insert stores `to_tsvector('simple', text)`, so the
 * lexemes and their positions are what the generated column stored: the same words in the
 * same order (breadth first, as the SQL walk's recursion yields them), the same skipped fields
 * with SQL's NULL rules, the same fallback to the raw JSON text when the json functions throw.
 * Search rankings do not change. A test compares both for events of every shape.
 */
import type { NewEvent } from '../../events/types.js';

/** ASCII punctuation runs become one space (`src/foo-bar.ts` -> `src foo bar ts`). */
const PUNCTUATION = /[!-/:-@[-`{-~]+/g;

/**
 * A `\u0000` or a lone surrogate in any string or key of the json makes PostgreSQL's json
 * functions throw (text cannot hold them); `JSON.stringify` writes both as `\u` escapes
 * (after an even run of backslashes, else the backslash is the string's own).
 */
const UNDECODABLE_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

type SqlBoolean = boolean | null;

/** SQL `=`: NULL when either side is NULL. */
function sqlEquals(left: string | null, right: string): SqlBoolean {
  return left === null ? null : left === right;
}

/** SQL `AND` (three-valued). */
function sqlAnd(left: SqlBoolean, right: SqlBoolean): SqlBoolean {
  if (left === false || right === false) return false;
  return left === null || right === null ? null : true;
}

/**
 * The SQL walk's filter: a row passes when every `NOT (...)` is true, i.e. its condition is
 * false (an array element's key is NULL, so under `content` or `functionCall` it is left out).
 */
function isKept(key: string | null, parent: string | null): boolean {
  if (key === 'thoughtSignature' || key === 'mimeType') return false;
  const parentIsCall =
    parent === null ? null : parent === 'functionCall' || parent === 'functionResponse';
  return (
    sqlAnd(sqlEquals(key, 'role'), sqlEquals(parent, 'content')) === false &&
    sqlAnd(sqlEquals(key, 'id'), parentIsCall) === false &&
    sqlAnd(sqlEquals(key, 'data'), sqlEquals(parent, 'inlineData')) === false
  );
}

/** A value as `JSON.stringify` writes it (`toJSON` applied); `undefined` when left out. */
function jsonValue(value: unknown, key: string): unknown {
  if (value !== null && typeof value === 'object') {
    const toJson = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJson === 'function') return toJson.call(value, key);
  }
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  return value;
}

interface WalkNode {
  key: string | null;
  parent: string | null;
  value: unknown;
}

/** Every string and number under `content` in the SQL walk's order, the skipped ones left out. */
function contentLeaves(content: unknown): string[] {
  const out: string[] = [];
  let level: WalkNode[] = [{ key: 'content', parent: null, value: jsonValue(content, 'content') }];
  while (level.length > 0) {
    const next: WalkNode[] = [];
    for (const { key, parent, value } of level) {
      if (typeof value === 'string') {
        if (isKept(key, parent)) out.push(value);
      } else if (typeof value === 'number') {
        // A non-finite number is JSON null.
        if (Number.isFinite(value) && isKept(key, parent)) out.push(String(value));
      } else if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
          next.push({ key: null, parent: key, value: jsonValue(value[index], String(index)) });
        }
      } else if (value !== null && typeof value === 'object') {
        for (const [childKey, child] of Object.entries(value)) {
          const childValue = jsonValue(child, childKey);
          if (childValue !== undefined)
            next.push({ key: childKey, parent: key, value: childValue });
        }
      }
    }
    level = next;
  }
  return out;
}

/**
 * The text whose `to_tsvector('simple', ...)` is the event's `search` column, `null` for a
 * compaction event (not searched). `json` is the `event` column's text (`JSON.stringify` of
 * `event`).
 */
export function postgresSearchText(
  event: Pick<NewEvent, 'content' | 'actions'>,
  json: string,
): string | null {
  if (event.actions?.compaction !== undefined) return null;
  if (json.includes('\\u') && UNDECODABLE_ESCAPE.test(json)) {
    return json.replaceAll('\\u0000', ' ').replace(PUNCTUATION, ' ');
  }
  return contentLeaves(event.content).join(' ').replace(PUNCTUATION, ' ');
}
