// @ts-check
/**
 * The chat box of a session: sends a message to the served agent (`POST /run_sse`, streaming)
 * and shows its answer as it streams; the events it stores reach the timeline through the
 * session's live stream. Shown only where the server runs this session's agent: a read-only
 * server (`orrery inspect`) or another app's session gets the reason instead.
 */
import { api } from './api.js';
import { h } from './dom.js';

/** @typedef {import('../../src/server/inspector/api-types.js').InspectorInfo} InspectorInfo */
/** @typedef {{ appName: string, userId: string, sessionId: string }} SessionKey */
/** @typedef {import('./api.js').RunEvent} RunEvent An event of the run's stream (ADK JSON). */

/** Why this page cannot send to `key`'s agent, or `undefined` when it can. */
export function chatUnavailableReason(
  /** @type {InspectorInfo} */ info,
  /** @type {SessionKey} */ key,
) {
  if (!info.canRun) return info.readOnlyReason ?? 'this server does not run an agent';
  if (key.appName !== info.appName) {
    return `this server runs app '${info.appName}' (agent ${info.agentName}); this session belongs to app '${key.appName}'`;
  }
  return undefined;
}

/** The visible text of an event's parts (thoughts left out). */
function textOf(/** @type {RunEvent} */ event) {
  return (event.content?.parts ?? [])
    .filter((part) => typeof part.text === 'string' && !part.thought)
    .map((part) => part.text)
    .join('');
}

/**
 * @param {{ key: SessionKey, info: InspectorInfo, signal: AbortSignal,
 *   onError: (error: unknown) => void, onRunEnd?: () => void }} options
 * @returns {HTMLElement}
 */
export function renderChatBox({ key, info, signal, onError, onRunEnd }) {
  const reason = chatUnavailableReason(info, key);
  if (reason !== undefined) {
    return h(
      'section',
      { className: 'chat-box chat-off', 'aria-label': 'Chat' },
      h('h2', {}, 'Chat'),
      h('p', { className: 'muted chat-reason' }, `No chat box: ${reason}.`),
    );
  }
  const input = h('textarea', {
    id: 'chat-message',
    name: 'message',
    rows: 2,
    required: true,
    placeholder: `Message ${info.agentName}…`,
  });
  const send = h('button', { type: 'submit' }, 'Send');
  const status = h('p', { className: 'chat-status muted', role: 'status' });
  const transcript = h('ol', { className: 'chat-transcript', 'aria-live': 'polite' });

  /** One exchange: the message, then the answer as it streams. */
  const exchange = (/** @type {string} */ text) => {
    const answer = h('div', { className: 'chat-answer', dataset: { state: 'streaming' } });
    const tools = h('ul', { className: 'chat-tools' });
    transcript.append(
      h(
        'li',
        { className: 'chat-exchange' },
        h('p', { className: 'chat-message' }, h('strong', {}, 'You: '), text),
        h(
          'div',
          { className: 'chat-reply' },
          h('strong', {}, `${info.agentName}: `),
          answer,
          tools,
        ),
      ),
    );
    let streamed = '';
    return {
      /** @param {RunEvent} event */
      add(event) {
        const eventText = textOf(event);
        if (event.partial) {
          streamed += eventText;
          answer.textContent = streamed;
          return;
        }
        for (const part of event.content?.parts ?? []) {
          if (part.functionCall) tools.append(h('li', {}, `called ${part.functionCall.name}`));
          if (part.functionResponse) {
            tools.append(h('li', {}, `${part.functionResponse.name} answered`));
          }
        }
        if (event.errorMessage) tools.append(h('li', { className: 'danger' }, event.errorMessage));
        // A stored answer replaces the deltas that streamed it.
        if (eventText && event.content?.role === 'model') {
          streamed = '';
          answer.textContent = answer.dataset.final
            ? `${answer.textContent}\n${eventText}`
            : eventText;
          answer.dataset.final = 'true';
        }
      },
      end(/** @type {string} */ state) {
        answer.dataset.state = state;
        if (!answer.textContent && state === 'done') answer.textContent = '(no text answer)';
      },
    };
  };

  const form = h(
    'form',
    {
      className: 'chat-form',
      onsubmit: async (event) => {
        event.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        input.value = '';
        send.disabled = true;
        status.textContent = `${info.agentName} is answering…`;
        const current = exchange(text);
        try {
          await api.run(key, { text, signal, onEvent: (runEvent) => current.add(runEvent) });
          current.end('done');
          status.textContent = 'Answered: its events are in the timeline.';
        } catch (error) {
          current.end('failed');
          status.textContent = 'The run failed.';
          if (!signal.aborted) onError(error);
        } finally {
          send.disabled = false;
          onRunEnd?.();
        }
      },
    },
    h('label', { for: 'chat-message' }, `Message to ${info.agentName}`),
    h('div', { className: 'chat-row' }, input, send),
  );
  input.addEventListener('keydown', (event) => {
    // Enter sends, Shift+Enter is a new line.
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  return h(
    'section',
    { className: 'chat-box', 'aria-label': 'Chat' },
    h('h2', {}, 'Chat'),
    transcript,
    form,
    status,
  );
}
