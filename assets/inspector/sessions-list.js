// @ts-check
/** The sessions list: newest first, filtered by app and user (the filter lives in the URL). */
import { api } from './api.js';
import { h } from './dom.js';
import { formatNumber, formatTime, isoTime } from './format.js';
import { sessionHash } from './routes.js';

/**
 * @typedef {import('../../src/server/inspector/api-types.js').SessionsResponse} SessionsResponse
 * @typedef {import('../../src/server/inspector/api-types.js').SessionRow} SessionRow
 * @typedef {{ app: string, user: string }} Filters
 */

/** What the API lists without `limit` (`DEFAULT_SESSIONS_LIMIT`). */
const DEFAULT_LIMIT = 50;

/** @param {Filters} filters */
function listHash(filters) {
  const search = new URLSearchParams();
  if (filters.app) search.set('app', filters.app);
  if (filters.user) search.set('user', filters.user);
  const text = search.toString();
  return text ? `#/?${text}` : '#/';
}

/**
 * @param {{ name: string, label: string, allLabel: string, options: string[], value: string }}
 *   options
 */
function filterSelect({ name, label, allLabel, options, value }) {
  const choices = value && !options.includes(value) ? [value, ...options] : options;
  return h(
    'label',
    { className: 'filter' },
    `${label} `,
    h(
      'select',
      { name },
      h('option', { value: '' }, allLabel),
      choices.map((option) => h('option', { value: option, selected: option === value }, option)),
    ),
  );
}

/** @param {SessionsResponse} result @param {Filters} filters */
function filterForm(result, filters) {
  const form = h(
    'form',
    { className: 'filters', role: 'search', 'aria-label': 'Filter sessions' },
    filterSelect({
      name: 'app',
      label: 'App',
      allLabel: 'All apps',
      options: result.apps ?? [],
      value: filters.app,
    }),
    filterSelect({
      name: 'user',
      label: 'User',
      allLabel: 'All users',
      options: result.users ?? [],
      value: filters.user,
    }),
    h('button', { type: 'submit' }, 'Filter'),
  );
  const apply = (/** @type {Event} */ event) => {
    event.preventDefault();
    const data = new FormData(form);
    location.hash = listHash({
      app: String(data.get('app') ?? ''),
      user: String(data.get('user') ?? ''),
    });
  };
  form.addEventListener('submit', apply);
  form.addEventListener('change', apply);
  return form;
}

/** @param {SessionRow} session */
function sessionRow(session) {
  return h(
    'tr',
    { dataset: { sessionId: session.sessionId, userId: session.userId, appName: session.appName } },
    h('td', {}, session.appName),
    h('td', {}, session.userId),
    h('td', {}, h('a', { href: sessionHash(session) }, session.sessionId)),
    h('td', { className: 'number' }, formatNumber(session.eventCount)),
    h('td', { className: 'number' }, formatNumber(session.compactionCount)),
    h(
      'td',
      {},
      h('time', { datetime: isoTime(session.lastUpdateTime) }, formatTime(session.lastUpdateTime)),
    ),
    h('td', { className: 'number' }, formatNumber(session.viewTokens)),
  );
}

/** What the Compactions column counts (the session header names branch summaries apart). */
export const COMPACTIONS_TITLE =
  "the trunk's compactions; a workflow branch's summaries are not counted";

/** @param {{ root: HTMLElement, filters: Filters, signal: AbortSignal }} options */
export async function showSessions({ root, filters, signal }) {
  const result = await api.sessions({ app: filters.app, user: filters.user, signal });
  const columns = [
    'App',
    'User',
    'Session',
    'Events',
    'Compactions',
    'Last activity (UTC)',
    'View tokens',
  ];
  const numeric = new Set(['Events', 'Compactions', 'View tokens']);
  // `h` skips null children; replaceChildren would print them: build in a wrapper.
  const content = h(
    'div',
    { className: 'sessions-page' },
    h('h1', {}, 'Sessions'),
    filterForm(result, filters),
    result.partial
      ? h(
          'p',
          { className: 'note' },
          'This store lists sessions one user at a time: pick a user to see theirs.',
        )
      : null,
    result.sessions.length >= DEFAULT_LIMIT
      ? h(
          'p',
          { className: 'note' },
          `The ${DEFAULT_LIMIT} sessions active last are listed: filter by app or user to see others.`,
        )
      : null,
    result.sessions.length === 0
      ? h('p', { className: 'muted' }, 'No sessions match.')
      : h(
          'table',
          { className: 'sessions' },
          h('caption', { className: 'visually-hidden' }, 'Sessions, newest first'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              columns.map((column) =>
                h(
                  'th',
                  {
                    scope: 'col',
                    className: numeric.has(column) ? 'number' : null,
                    // As the session header counts them: branch summaries apart.
                    title: column === 'Compactions' ? COMPACTIONS_TITLE : null,
                  },
                  column,
                ),
              ),
            ),
          ),
          h('tbody', {}, result.sessions.map(sessionRow)),
        ),
  );
  root.replaceChildren(content);
}
