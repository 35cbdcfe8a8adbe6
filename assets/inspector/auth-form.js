// @ts-check
/** The bearer-token form, shown when the API answers 401. The token stays in sessionStorage. */
import { getToken, setToken } from './api.js';
import { h } from './dom.js';

/**
 * @param {{ detail: string, onToken: () => void }} options
 */
export function renderAuthForm({ detail, onToken }) {
  const input = h('input', {
    id: 'token-input',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    required: true,
    spellcheck: 'false',
  });
  const form = h(
    'form',
    { className: 'auth-form', 'aria-labelledby': 'auth-title' },
    h('h1', { id: 'auth-title' }, 'This server needs a token'),
    h('p', { className: 'muted' }, detail),
    h('label', { for: 'token-input' }, 'Bearer token'),
    h('div', { className: 'auth-row' }, input, h('button', { type: 'submit' }, 'Use token')),
    getToken() ? h('p', { className: 'muted' }, 'The token in use was refused.') : null,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    setToken(input.value.trim());
    onToken();
  });
  queueMicrotask(() => input.focus());
  return form;
}
