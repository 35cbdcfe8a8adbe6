// @ts-check
/**
 * The session's state (`session.state`): each key, its value as JSON, and the event whose
 * `stateDelta` last set it. Loaded when the panel opens (`GET .../state`), again on `refresh()`.
 */
import { api } from './api.js';
import { h } from './dom.js';
import { formatTime, plural } from './format.js';

/** @typedef {import('../../src/server/inspector/api-types.js').StateResponse} StateResponse */
/** @typedef {{ appName: string, userId: string, sessionId: string }} SessionKey */

/** The state as a list, or a line saying it is empty. */
export function renderState(/** @type {StateResponse} */ response) {
  const names = Object.keys(response.state).sort();
  if (names.length === 0) {
    return h('p', { className: 'muted' }, 'The state is empty: no event set a key.');
  }
  return h(
    'dl',
    { className: 'state-list' },
    names.map((name) => [
      h('dt', { dataset: { key: name } }, name),
      h(
        'dd',
        {},
        h('pre', { className: 'state-value' }, JSON.stringify(response.state[name], null, 2)),
        h(
          'span',
          { className: 'muted' },
          response.setBySeq[name] !== undefined
            ? `set by #${response.setBySeq[name]}`
            : 'set when the session was created',
        ),
      ),
    ]),
  );
}

/**
 * @param {{ key: SessionKey, signal: AbortSignal, onError: (error: unknown) => void }} options
 */
export function createStatePanel({ key, signal, onError }) {
  const title = h('span', {}, 'State');
  const body = h('div', { className: 'state-body' }, h('p', { className: 'muted' }, 'Loading…'));
  const element = h('details', { className: 'panel state-panel' }, h('summary', {}, title), body);
  const load = async () => {
    try {
      /** @type {StateResponse} */
      const response = await api.state(key, { signal });
      title.textContent = `State (${plural(Object.keys(response.state).length, 'key')})`;
      body.replaceChildren(
        renderState(response),
        h('p', { className: 'muted' }, `Last update ${formatTime(response.lastUpdateTime)} (UTC).`),
      );
    } catch (error) {
      if (!signal.aborted) onError(error);
    }
  };
  element.addEventListener('toggle', () => {
    if (element.open) void load();
  });
  return {
    element,
    refresh() {
      if (element.open) void load();
    },
  };
}
