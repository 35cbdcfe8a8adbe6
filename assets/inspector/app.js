// @ts-check
/**
 * The inspector page's entry: routes the hash to a screen, shows errors (the problem's detail),
 * and asks for a bearer token when the API answers 401. Each screen gets an AbortSignal that
 * ends its requests and live stream when the route changes.
 */
import { AuthRequiredError, getToken, setToken } from './api.js';
import { renderAuthForm } from './auth-form.js';
import { h } from './dom.js';
import { showReplay } from './replay-form.js';
import { parseHash } from './routes.js';
import { showSession } from './session-page.js';
import { showSessions } from './sessions-list.js';

/** An element index.html always has. @param {string} id */
const byId = (id) => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`index.html has no #${id}`);
  return element;
};
const main = byId('main');
const errorBox = byId('error');
const tokenStatus = byId('token-status');
/** @type {AbortController | null} */
let current = null;

/** @param {string} message */
function showError(message) {
  errorBox.replaceChildren(
    h('span', {}, message),
    h(
      'button',
      { type: 'button', className: 'link', onclick: clearError, 'aria-label': 'Dismiss the error' },
      'Dismiss',
    ),
  );
  errorBox.hidden = false;
}

function clearError() {
  errorBox.hidden = true;
  errorBox.replaceChildren();
}

function showTokenStatus() {
  tokenStatus.replaceChildren(
    getToken()
      ? h('button', { type: 'button', className: 'link', onclick: forgetToken }, 'Forget token')
      : '',
  );
}

function forgetToken() {
  setToken('');
  showTokenStatus();
  void route();
}

/**
 * A field of a thrown value, when it is an object that has it (an `Error`, an `ApiError`, a
 * `DOMException`); `undefined` otherwise.
 * @param {unknown} error
 * @param {'name' | 'detail' | 'message'} field
 * @returns {unknown}
 */
function fieldOf(error, field) {
  return typeof error === 'object' && error !== null ? Reflect.get(error, field) : undefined;
}

/** @param {unknown} error */
function handleError(error) {
  if (fieldOf(error, 'name') === 'AbortError' || current?.signal.aborted) return;
  if (error instanceof AuthRequiredError) {
    current?.abort();
    clearError();
    main.replaceChildren(renderAuthForm({ detail: error.detail, onToken: () => void route() }));
    return;
  }
  showError(String(fieldOf(error, 'detail') ?? fieldOf(error, 'message') ?? error));
}

/** @param {'replay' | 'sessions'} name */
function markCurrentNav(name) {
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (!(link instanceof HTMLElement)) continue;
    if (link.dataset.nav === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function route() {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  clearError();
  showTokenStatus();
  const target = parseHash(location.hash);
  markCurrentNav(target.name === 'replay' ? 'replay' : 'sessions');
  main.replaceChildren(h('p', { className: 'muted' }, 'Loading…'));
  const context = { root: main, signal: controller.signal, onError: handleError };
  try {
    if (target.name === 'session') {
      document.title = `${target.key.sessionId} · orrery inspector`;
      await showSession({ ...context, key: target.key, view: target.view, branch: target.branch });
    } else if (target.name === 'replay') {
      document.title = 'Replay · orrery inspector';
      showReplay(context);
    } else {
      document.title = 'Sessions · orrery inspector';
      await showSessions({ ...context, filters: target.filters });
    }
  } catch (error) {
    if (controller.signal.aborted) return;
    if (!(error instanceof AuthRequiredError)) main.replaceChildren();
    handleError(error);
  }
}

window.addEventListener('hashchange', () => void route());
void route();
