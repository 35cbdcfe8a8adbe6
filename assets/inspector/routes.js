// @ts-check
/**
 * Hash routes, so a session can be linked: `#/` (sessions, `?app=&user=` filters),
 * `#/apps/A/users/U/sessions/S` (`?view=next`: the next request's view; `?branch=B`: one
 * workflow branch, `?branch=` the trunk), `#/replay`.
 */

/**
 * @param {SessionKey} key
 * @param {boolean} [view]
 * @param {string | null} [branch] a workflow branch (`''` the trunk); `null`: every event
 */
export function sessionHash(key, view = false, branch = null) {
  const part = encodeURIComponent;
  const path = `#/apps/${part(key.appName)}/users/${part(key.userId)}/sessions/${part(key.sessionId)}`;
  const query = new URLSearchParams();
  if (view) query.set('view', 'next');
  if (branch !== null && branch !== undefined) query.set('branch', branch);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * @typedef {{ appName: string, userId: string, sessionId: string }} SessionKey
 * @typedef {{ name: 'session', key: SessionKey, view: boolean, branch: string | null }
 *   | { name: 'replay' }
 *   | { name: 'sessions', filters: { app: string, user: string } }} Route
 */

/** @param {string} hash @returns {Route} */
export function parseHash(hash) {
  const text = hash.replace(/^#/, '');
  const [pathText = '', queryText = ''] = text.split('?', 2);
  const segments = pathText.split('/').filter(Boolean).map(decodeURIComponent);
  const query = new URLSearchParams(queryText);
  if (
    segments[0] === 'apps' &&
    segments[2] === 'users' &&
    segments[4] === 'sessions' &&
    segments.length === 6
  ) {
    return {
      name: 'session',
      key: { appName: segments[1] ?? '', userId: segments[3] ?? '', sessionId: segments[5] ?? '' },
      view: query.get('view') === 'next',
      branch: query.get('branch'),
    };
  }
  if (segments[0] === 'replay') return { name: 'replay' };
  return {
    name: 'sessions',
    filters: { app: query.get('app') ?? '', user: query.get('user') ?? '' },
  };
}
