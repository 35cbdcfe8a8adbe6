/** One order of session keys: by app, then user, then session id (code-unit order). */
import type { SessionKey } from '../events/types.js';

export function compareSessionKeys(first: SessionKey, second: SessionKey): number {
  return (
    compareText(first.appName, second.appName) ||
    compareText(first.userId, second.userId) ||
    compareText(first.sessionId, second.sessionId)
  );
}

function compareText(first: string, second: string): number {
  if (first === second) return 0;
  return first < second ? -1 : 1;
}
