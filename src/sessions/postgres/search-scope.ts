/**
 * The scope lexemes of the PostgreSQL search index: the SQL expression it indexes
 * (`SCOPED_SEARCH_VECTOR`, migration 11) and the same lexemes as Node computes them for a
 * query, so a term ANDed with them reads only the scope's matches. Computed here, not by a SQL
 * function in the statement: each call in a statement cost planning time (~0.7 ms a search of
 * five terms). `search-scope.test.ts` checks them against the SQL expression's on names of
 * every kind of character.
 */
import { createHash } from 'node:crypto';

/** A seq bucket of the index is `seq >> SEQ_BUCKET_BITS`: 4,096 events. */
const SEQ_BUCKET_BITS = 12;
/** Events a seq bucket of the index holds. */
export const SEQ_BUCKET_SIZE = 2 ** SEQ_BUCKET_BITS;

/** The SQL of a row's session hash (`sessionHash` below is the same in Node). */
const SESSION_HASH_SQL = `md5(length(app_name)::text || ':' || length(user_id)::text || ':'
      || app_name || user_id || session_id)`;

/**
 * The indexed vector of an event row: `search` plus its user's lexeme (`~u` and a hash of app
 * and user), its session's (`~s` and a hash of app, user and session) and its session's seq
 * bucket's (the session's hash, `.`, the bucket). No word is one of them: the search text turns
 * ASCII punctuation into spaces and query terms hold none. The index is on this expression and
 * every GIN read of search.ts writes it out the same, so the planner matches them; written
 * out, not a SQL function, because inlining a function parses its body again at each call
 * (~0.1 ms of planning each, ten calls in a search of five terms). The lengths keep `ap` +
 * `puser` apart from `app` + `user`.
 */
export const SCOPED_SEARCH_VECTOR = `(search || array_to_tsvector(ARRAY[
    '~u' || md5(length(app_name)::text || ':' || app_name || user_id),
    '~s' || ${SESSION_HASH_SQL},
    '~b' || ${SESSION_HASH_SQL} || '.' || (seq >> ${SEQ_BUCKET_BITS})::text]))`;

/** PostgreSQL's `length(text)`: characters (code points), not UTF-16 units. */
function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/** The hash of a session's lexemes: `md5(length(app) || ':' || length(user) || ':' || ...)`. */
function sessionHash(key: { appName: string; userId: string; sessionId: string }): string {
  const { appName, userId, sessionId } = key;
  return md5(`${characters(appName)}:${characters(userId)}:${appName}${userId}${sessionId}`);
}

/** The scope's lexeme as a tsquery: the session's, or the user's without a session. */
export function scopeTsQuery(key: { appName: string; userId: string; sessionId?: string }): string {
  if (key.sessionId === undefined) {
    return `'~u${md5(`${characters(key.appName)}:${key.appName}${key.userId}`)}'`;
  }
  return `'~s${sessionHash({ ...key, sessionId: key.sessionId })}'`;
}

/** A session's buckets `low` to `high` (`bucketOf`), OR-ed, as a tsquery. */
export function bucketsTsQuery(options: {
  key: { appName: string; userId: string; sessionId: string };
  low: number;
  high: number;
}): string {
  const hash = sessionHash(options.key);
  const buckets: string[] = [];
  for (let bucket = options.low; bucket <= options.high; bucket++) {
    buckets.push(`'~b${hash}.${bucket}'`);
  }
  return buckets.join(' | ');
}

/** The bucket of a seq, as `seq >> SEQ_BUCKET_BITS` in SQL. */
export function bucketOf(seq: number): number {
  return Math.floor(seq / SEQ_BUCKET_SIZE);
}
