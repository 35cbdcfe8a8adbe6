/**
 * `PostgresSessionService.searchEvents`: the scope's size and the session check in one
 * statement, the common-term weights refreshed from `pg_stats` (term-shares.ts), then the
 * ranked search (search.ts) with each hit read back as a stored event.
 */
import { SessionNotFoundError } from '../errors.js';
import type { SearchLanguage } from '../query-terms.js';
import { resolveSearchOptions } from '../search-text.js';
import type { SearchEventsOptions, SearchHit } from '../session-service.js';
import type { PostgresConnection } from './connection.js';
import type { PostgresEventReader } from './event-reader.js';
import { type SearchRow, type SearchStatements, searchPostgresEvents } from './search.js';
import type { TermShares } from './term-shares.js';

export async function searchStoredEvents(deps: {
  options: SearchEventsOptions;
  connection: PostgresConnection;
  statements: SearchStatements;
  termShares: TermShares;
  language: SearchLanguage;
  reader: PostgresEventReader;
}): Promise<SearchHit[]> {
  const { options, connection, statements, reader } = deps;
  const search = resolveSearchOptions(options);
  const key = {
    appName: search.appName,
    userId: search.userId,
    sessionId: search.sessionId ?? '',
  };
  const [scope] = await connection.query<{ sessions: number; last_seq: number }>(
    key,
    options.signal,
    statements.scope,
    [search.appName, search.userId, search.sessionId ?? null],
    { operation: 'searchEvents' },
  );
  if (search.sessionId !== undefined && !scope?.sessions) throw new SessionNotFoundError(key);
  await deps.termShares.refresh(options.signal);
  const shares = deps.termShares;
  return searchPostgresEvents({
    search,
    language: deps.language,
    statements,
    share: (term) =>
      term.kind === 'word'
        ? shares.word(term.text)
        : term.kind === 'prefix'
          ? shares.prefix(term.text)
          : undefined,
    rareShare: shares.rareShare(),
    lastSeq: Number(scope?.last_seq ?? 0),
    query: (text, values) =>
      connection.query<SearchRow>(key, options.signal, text, values, {
        operation: 'searchEvents',
      }),
    readRow: (row, sessionId) => reader.parseRows([row], { ...key, sessionId })[0],
  });
}
