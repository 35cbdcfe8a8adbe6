// @ts-check
/**
 * Workflow branches on the session page (docs/workflows.md#inspector): a filter listing the
 * session's branches with their event and compaction counts, kept in the URL (`?branch=`; the
 * trunk is `?branch=` with no value), and the rows of one branch's timeline, paged by position
 * from `GET .../branch-timeline` (what that branch sees: its own and its ancestors' events, its
 * summaries, its descendants' results; never a sibling's). A branch's compactions are drawn over
 * its own rows.
 */
import { requestJson, sessionPath } from './api.js';
import { h } from './dom.js';
import { formatNumber, plural } from './format.js';
import { sessionHash } from './routes.js';
import { createViewPages } from './view-pages.js';

/**
 * @typedef {import('../../src/server/inspector/api-types.js').BranchesResponse} BranchesResponse
 * @typedef {import('../../src/server/inspector/api-types.js').BranchRow} BranchRow
 * @typedef {import('../../src/server/inspector/api-types.js').BranchTimelineResponse} BranchTimelineResponse
 * @typedef {import('../../src/server/inspector/api-types.js').ViewResponse} ViewResponse
 * @typedef {import('./routes.js').SessionKey} SessionKey
 * @typedef {{ branch: string, offset: number, limit: number, signal?: AbortSignal }} BranchPage
 */

/** The select's value for "every branch" (no filter). */
const ALL = '*';

/** @param {{ branch: string, offset: number, limit: number }} parameters */
function branchQuery(parameters) {
  // `branch` is kept when empty: `?branch=` is the trunk.
  return `?${new URLSearchParams(
    Object.entries(parameters)
      .filter(([, value]) => value !== undefined && value !== null)
      .map(([name, value]) => [name, String(value)]),
  )}`;
}

/**
 * @param {SessionKey} key
 * @param {{ signal?: AbortSignal }} [options]
 * @returns {Promise<BranchesResponse>}
 */
export function fetchBranches(key, { signal } = {}) {
  return requestJson(`${sessionPath(key)}/branches`, { signal });
}

/**
 * A page of `branch`'s next request (`GET .../view?branch=`).
 * @param {SessionKey} key
 * @param {BranchPage} page
 * @returns {Promise<ViewResponse>}
 */
export function fetchBranchView(key, { branch, offset, limit, signal }) {
  return requestJson(`${sessionPath(key)}/view${branchQuery({ branch, offset, limit })}`, {
    signal,
  });
}

/**
 * @param {SessionKey} key
 * @param {BranchPage} page
 * @returns {Promise<BranchTimelineResponse>}
 */
function fetchBranchTimeline(key, { branch, offset, limit, signal }) {
  return requestJson(
    `${sessionPath(key)}/branch-timeline${branchQuery({ branch, offset, limit })}`,
    { signal },
  );
}

/** @param {string} branch */
export function branchLabel(branch) {
  return branch === '' ? 'trunk' : branch;
}

/**
 * The branch filter: "All branches", then the trunk and each branch with its counts. Shown only
 * when the session has a branch besides the trunk. `onChange(branch)`: `null` for all.
 * @param {{ branches: BranchRow[], selected: string | null | undefined, eventCount: number,
 *   onChange: (branch: string | null) => void }} options
 */
export function renderBranchFilter({ branches, selected, eventCount, onChange }) {
  if (branches.length <= 1) return null;
  /** @param {string} value @param {string} label */
  const option = (value, label) =>
    h('option', { value, selected: value === (selected ?? ALL) }, label);
  /** @param {BranchRow} row */
  const counts = (row) =>
    `${plural(row.events, 'event')}${row.compactions > 0 ? `, ${plural(row.compactions, 'compaction')}` : ''}`;
  return h(
    'label',
    { className: 'branch-filter' },
    'Branch ',
    h(
      'select',
      {
        name: 'branch',
        'aria-label': 'Branch',
        onchange: (event) => {
          if (!(event.target instanceof HTMLSelectElement)) return;
          onChange(event.target.value === ALL ? null : event.target.value);
        },
      },
      option(ALL, `All branches (${formatNumber(eventCount)} events)`),
      branches.map((row) => option(row.branch, `${branchLabel(row.branch)} (${counts(row)})`)),
    ),
  );
}

/**
 * The rows of `branch`'s timeline: `view-pages`' paging over `GET .../branch-timeline`, plus the
 * `seq` of every row (from any answer) and the compactions seen on the branch. The timeline sets
 * `onLoaded` (a page arrived: draw again).
 * @param {{ key: SessionKey, branch: string, pageSize: number, signal: AbortSignal,
 *   onSummary?: (result: BranchTimelineResponse) => void,
 *   onError: (error: unknown) => void }} options
 */
export function createBranchRows({ key, branch, pageSize, signal, onSummary, onError }) {
  /** @type {number[]} */
  let seqs = [];
  /** @type {BranchTimelineResponse['compactions']} */
  let spans = [];
  const pages = createViewPages({
    pageSize,
    signal,
    onLoaded: () => rows.onLoaded?.(),
    onError,
    onSummary: (result) => {
      seqs = result.seqs;
      spans = result.compactions;
      onSummary?.(result);
    },
    load: (/** @type {number} */ offset, /** @type {number} */ limit) =>
      fetchBranchTimeline(key, { branch, offset, limit, signal }),
  });
  /** Rows whose `seq` is at most `seq`. @param {number} seq */
  const rowsUpTo = (seq) => {
    let low = 0;
    let high = seqs.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      // `middle` < `seqs.length`: the fallback is for the types only.
      if ((seqs[middle] ?? Number.POSITIVE_INFINITY) <= seq) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  const rows = {
    /** @type {null | (() => void)} */
    onLoaded: null,
    get total() {
      return pages.total;
    },
    get spans() {
      return spans;
    },
    eventAt: pages.eventAt,
    isLoaded: pages.isLoaded,
    missing: pages.missing,
    ensure: pages.ensure,
    start: pages.start,
    refresh: pages.refresh,
    rowsUpTo,
    /** The row of `seq`, or -1 when the branch does not see it. @param {number} seq */
    rowOfSeq(seq) {
      const row = rowsUpTo(seq) - 1;
      return seqs[row] === seq ? row : -1;
    },
  };
  return rows;
}

/**
 * The session page's branch pieces: the filter (`null` without branches) and, when `branch` is
 * set (`''`: the trunk), the timeline's `{ rows, loadView }` (its rows already asked for).
 * Choosing a branch changes the URL (`sessionHash`), which shows the session again.
 * @param {{ key: SessionKey, branch: string | null, signal: AbortSignal,
 *   onError: (error: unknown) => void, pageSize: number, eventCount: number,
 *   isView: () => boolean, onLoaded: () => void }} options
 */
export async function openBranchFilter(options) {
  const { key, branch, signal, onError, pageSize, eventCount, isView, onLoaded } = options;
  const { branches } = await fetchBranches(key, { signal });
  const element = renderBranchFilter({
    branches,
    selected: branch,
    eventCount,
    onChange: (chosen) => {
      location.hash = sessionHash(key, isView(), chosen);
    },
  });
  if (branch === null || branch === undefined) return { element, timeline: undefined };
  const rows = createBranchRows({ key, branch, pageSize, signal, onError, onSummary: onLoaded });
  rows.start();
  /** @param {number} offset @param {number} limit */
  const loadView = (offset, limit) => fetchBranchView(key, { branch, offset, limit, signal });
  return { element, timeline: { rows, loadView } };
}
