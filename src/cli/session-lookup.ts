/**
 * A session id as typed on the command line: the whole id, or (for commands that only read or
 * compact) a prefix of exactly one of the app and user's sessions. A miss names what the store
 * does hold: the same id under another app or user, or ids close to the one typed.
 */
import type { SessionKey } from '../events/types.js';
import { SessionNotFoundError } from '../sessions/errors.js';
import type { SessionService } from '../sessions/session-service.js';
import { CliUsageError } from './errors.js';

/** Sessions looked at in other apps and users for a hint (newest first). */
const ELSEWHERE_LIMIT = 1000;

export async function resolveSessionKey(
  service: SessionService,
  key: SessionKey,
  options: { prefix: boolean },
): Promise<SessionKey> {
  if (await service.getSession({ ...key, events: 'view' })) return key;
  const typed = key.sessionId;
  const ids = (await service.listSessions({ appName: key.appName, userId: key.userId })).map(
    (session) => session.sessionId,
  );
  const matches = ids.filter((id) => id.startsWith(typed));
  if (options.prefix && matches.length === 1 && matches[0] !== undefined) {
    return { ...key, sessionId: matches[0] };
  }
  if (options.prefix && matches.length > 1) {
    const shown = matches.slice(0, 5).join(', ');
    throw new CliUsageError({
      field: 'session id',
      message: `session id '${typed}' is the start of ${matches.length} sessions (${shown}${matches.length > 5 ? ', ...' : ''}): type more of it`,
    });
  }
  throw new SessionNotFoundError({ ...key, hint: await hintFor(service, key, ids, matches) });
}

async function hintFor(
  service: SessionService,
  key: SessionKey,
  ids: string[],
  prefixMatches: string[],
): Promise<string | undefined> {
  const typed = key.sessionId;
  if (prefixMatches.length > 0) {
    return `did you mean ${quoteList(prefixMatches)}? (this command needs the whole id)`;
  }
  const elsewhere = (await service.listAllSessions?.({ limit: ELSEWHERE_LIMIT })) ?? [];
  const there = elsewhere.filter(
    (session) =>
      (session.appName !== key.appName || session.userId !== key.userId) &&
      session.sessionId.startsWith(typed),
  );
  const first = there[0];
  if (first !== undefined) {
    const more =
      there.length > 1 ? ` (and ${there.length - 1} more: orrery sessions list --all)` : '';
    return `'${first.sessionId}' is stored under app '${first.appName}' and user '${first.userId}': add --app ${first.appName} --user ${first.userId}${more}`;
  }
  const near = ids.filter((id) => editDistance(id.slice(0, typed.length + 2), typed) <= 2);
  if (near.length > 0) return `did you mean ${quoteList(near)}?`;
  return undefined;
}

function quoteList(ids: string[]): string {
  const shown = ids.slice(0, 3).map((id) => `'${id}'`);
  return ids.length > 3 ? `${shown.join(', ')}, ...` : shown.join(' or ');
}

/** Levenshtein distance, for "did you mean" (ids are short). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
