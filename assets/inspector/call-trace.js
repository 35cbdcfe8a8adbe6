// @ts-check
/**
 * The per-call trace of a session: each model call with the request it was sent (events,
 * estimated tokens, the summary that opened it), its answer, the tokens the provider reported,
 * its time and its tool calls, newest first. Loaded when opened (`GET .../calls?order=desc`, a
 * pass over the history on the server), a page at a time (**Show older calls**); **Show
 * request** pages through that call's request (`.../calls/:call/request`).
 */
import { api } from './api.js';
import { h } from './dom.js';
import { formatNumber, formatTime, plural } from './format.js';

/** @typedef {import('../../src/server/inspector/api-types.js').CallTraceEntry} CallTraceEntry */
/** @typedef {{ appName: string, userId: string, sessionId: string }} SessionKey */

/** "1,200 in (1,000 cached) · 7 out", or why there is no figure. */
export function usageText(/** @type {CallTraceEntry['usage']} */ usage) {
  if (!usage) return 'not reported';
  const parts = [];
  if (usage.input !== undefined) {
    const cached = usage.cached !== undefined ? ` (${formatNumber(usage.cached)} cached)` : '';
    parts.push(`${formatNumber(usage.input)} in${cached}`);
  }
  if (usage.output !== undefined) parts.push(`${formatNumber(usage.output)} out`);
  if (usage.thoughts !== undefined) parts.push(`${formatNumber(usage.thoughts)} thinking`);
  if (parts.length === 0 && usage.total !== undefined)
    parts.push(`${formatNumber(usage.total)} total`);
  return parts.join(' · ');
}

function secondsText(/** @type {number | null} */ seconds) {
  if (seconds === null) return '–';
  return seconds < 10 ? `${seconds.toFixed(2)} s` : `${Math.round(seconds)} s`;
}

function requestRange(/** @type {CallTraceEntry['request']} */ request) {
  const summary = request.summarySeq !== null ? `summary #${request.summarySeq}` : '';
  const tail =
    request.fromSeq !== null && request.toSeq !== null
      ? `#${request.fromSeq}–#${request.toSeq}`
      : '';
  return [summary, tail].filter(Boolean).join(' + ') || 'nothing stored';
}

/**
 * The request's events, a page at a time.
 * @param {{ key: SessionKey, entry: CallTraceEntry, pageSize: number, signal: AbortSignal,
 *   onError: (error: unknown) => void }} options
 */
function requestList({ key, entry, pageSize, signal, onError }) {
  const list = h('ol', { className: 'call-request-events' });
  const more = h('button', { type: 'button', className: 'link', hidden: true }, 'Show more');
  let shown = 0;
  const load = async () => {
    more.disabled = true;
    try {
      const page = await api.callRequest(key, entry.call, {
        offset: shown,
        limit: pageSize,
        signal,
      });
      for (const event of page.events) {
        list.append(
          h(
            'li',
            { className: 'call-request-event', dataset: { seq: event.seq, kind: event.kind } },
            h('span', { className: 'seq' }, `#${event.seq}`),
            ' ',
            h('span', { className: 'kind' }, event.kind === 'compaction' ? 'summary' : event.kind),
            ' ',
            h('span', { className: 'tokens' }, `~${formatNumber(event.tokens)} tokens`),
            ' ',
            h('span', { className: 'preview' }, event.preview),
          ),
        );
      }
      shown += page.events.length;
      more.hidden = shown >= page.total || page.events.length === 0;
    } catch (error) {
      if (!signal.aborted) onError(error);
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener('click', () => void load());
  void load();
  return h('div', { className: 'call-request' }, list, more);
}

/**
 * @param {{ key: SessionKey, entry: CallTraceEntry, pageSize: number, signal: AbortSignal,
 *   onError: (error: unknown) => void }} options
 */
function callItem(options) {
  const { entry } = options;
  const requestSlot = h('div', { className: 'call-request-slot' });
  const toggle = h(
    'button',
    { type: 'button', className: 'link', 'aria-expanded': 'false' },
    'Show request',
  );
  toggle.addEventListener('click', () => {
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = open ? 'Hide request' : 'Show request';
    requestSlot.replaceChildren(open ? requestList(options) : '');
  });
  const { request } = entry;
  return h(
    'li',
    { className: 'call', dataset: { call: entry.call, seq: entry.seq } },
    h(
      'div',
      { className: 'call-head' },
      h('strong', {}, `Call ${entry.call}`),
      ` · answer #${entry.seq} · ${entry.author} · ${formatTime(entry.timestamp)}`,
    ),
    h(
      'dl',
      { className: 'facts' },
      h('dt', { title: 'the events the model was sent, rebuilt from the store' }, 'request'),
      h(
        'dd',
        { className: 'call-request-summary' },
        `${plural(request.eventCount, 'event')} (${requestRange(request)}), about ${formatNumber(request.estimatedTokens)} tokens (estimate, instruction and tools included) `,
        toggle,
      ),
      h('dt', { title: "the provider's usageMetadata for this call" }, 'tokens (reported)'),
      h('dd', { className: 'call-usage' }, usageText(entry.usage)),
      h('dt', { title: 'from the last event stored before the call to its answer' }, 'time'),
      h('dd', { className: 'call-time' }, secondsText(entry.seconds)),
      h('dt', {}, 'answer'),
      h(
        'dd',
        { className: 'call-answer' },
        entry.answer.preview || '(no text)',
        entry.finishReason
          ? h('span', { className: 'muted' }, ` (finish: ${entry.finishReason})`)
          : '',
        entry.errorMessage
          ? h('span', { className: 'danger' }, ` error: ${entry.errorMessage}`)
          : '',
      ),
      entry.toolCalls.length > 0 ? h('dt', {}, 'tool calls') : null,
      entry.toolCalls.length > 0
        ? h(
            'dd',
            {},
            h(
              'ul',
              { className: 'call-tools' },
              entry.toolCalls.map((use) =>
                h(
                  'li',
                  { dataset: { tool: use.name } },
                  h('code', {}, `${use.name}(${use.args})`),
                  use.resultSeq !== undefined
                    ? ` → #${use.resultSeq} ${use.result ?? ''}`
                    : ' → no result stored',
                ),
              ),
            ),
          )
        : null,
    ),
    requestSlot,
  );
}

/**
 * A closed `<details>` panel; its calls are loaded when it opens and again on `refresh()`
 * while it is open.
 * @param {{ key: SessionKey, pageSize: number, signal: AbortSignal,
 *   onError: (error: unknown) => void }} options
 */
export function createCallTrace({ key, pageSize, signal, onError }) {
  const title = h('span', {}, 'Model calls');
  const body = h(
    'div',
    { className: 'call-trace-body' },
    h('p', { className: 'muted' }, 'Loading…'),
  );
  const element = h('details', { className: 'panel call-trace' }, h('summary', {}, title), body);
  const list = h('ol', { className: 'call-list' });
  const older = h(
    'button',
    { type: 'button', className: 'link', hidden: true },
    'Show older calls',
  );
  let shown = 0;
  /** The newest page (`fromStart`), or the next older one. */
  const load = async (fromStart = true) => {
    older.disabled = true;
    try {
      const offset = fromStart ? 0 : shown;
      const page = await api.calls(key, { order: 'desc', offset, limit: pageSize, signal });
      title.textContent = `Model calls (${formatNumber(page.total)})`;
      const items = page.calls.map((entry) => callItem({ key, entry, pageSize, signal, onError }));
      if (fromStart) list.replaceChildren(...items);
      else list.append(...items);
      shown = offset + page.calls.length;
      older.hidden = shown >= page.total;
      body.replaceChildren(
        page.total === 0 ? h('p', { className: 'muted' }, 'No model call stored yet.') : list,
        older,
      );
    } catch (error) {
      if (!signal.aborted) onError(error);
    } finally {
      older.disabled = false;
    }
  };
  older.addEventListener('click', () => void load(false));
  element.addEventListener('toggle', () => {
    if (element.open) void load();
  });
  return {
    element,
    /** Reloads the calls if the panel is open (new events arrived). */
    refresh() {
      if (element.open) void load();
    },
  };
}
