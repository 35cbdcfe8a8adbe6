// @ts-check
/**
 * The next request's events, paged as the history is: `GET .../view?offset=&limit=` one page at
 * a time as its rows come into sight, never the whole view (a session never compacted holds its
 * whole history in its view: 3.5 MB for 10,000 events). A refresh (a live event changed the
 * view) refetches the pages in sight and forgets the others, so a row scrolled to later is never
 * a stale one. Answers of an older refresh are dropped.
 */

/**
 * @typedef {import('../../src/server/inspector/api-types.js').TimelineEvent} TimelineEvent
 * A paged answer: `GET .../view`'s (`ViewResponse`) or `GET .../branch-timeline`'s.
 * @typedef {{ events: TimelineEvent[], total: number }} PagedAnswer
 */

/**
 * `load(offset, limit)`: a page of the source (`GET .../view`: timeline.js; a branch's
 * timeline: branch-filter.js). `onSummary` hears each answer with the total before it.
 * @template {PagedAnswer} Page
 * @param {{ pageSize: number, signal: AbortSignal, onLoaded: () => void,
 *   onSummary: (summary: Page & { previousTotal: number }) => void,
 *   onError: (error: unknown) => void,
 *   load: (offset: number, limit: number) => Promise<Page> }} options
 */
export function createViewPages({ pageSize, signal, onLoaded, onSummary, onError, load }) {
  let total = 0;
  /** Bumped by each start or refresh: an answer asked before it is dropped. */
  let generation = 0;
  /** @type {Map<number, TimelineEvent>} */
  const byIndex = new Map();
  /** @type {Set<number>} */
  let loaded = new Set();
  /** @type {Set<number>} */
  let loading = new Set();

  /** @param {number} page */
  function forgetPage(page) {
    for (let index = page * pageSize; index < (page + 1) * pageSize; index++) {
      byIndex.delete(index);
    }
  }

  /** @param {number} page */
  function fetchPage(page) {
    const asked = generation;
    const pagesLoading = loading;
    pagesLoading.add(page);
    load(page * pageSize, pageSize)
      .then((result) => {
        if (asked !== generation) return;
        const previousTotal = total;
        total = result.total;
        forgetPage(page);
        for (const [offset, event] of result.events.entries()) {
          byIndex.set(page * pageSize + offset, event);
        }
        loaded.add(page);
        onSummary({ ...result, previousTotal });
      })
      .catch((error) => {
        if (!signal.aborted && asked === generation) onError(error);
      })
      .finally(() => {
        pagesLoading.delete(page);
        if (!signal.aborted && asked === generation) onLoaded();
      });
  }

  /**
   * Pages `first..last` (row indexes) not loaded nor asked for, each fetched once.
   * @param {number} first
   * @param {number} last
   */
  function ensure(first, last) {
    for (let page = Math.floor(first / pageSize); page <= Math.floor(last / pageSize); page++) {
      if (!loaded.has(page) && !loading.has(page)) fetchPage(page);
    }
  }

  return {
    get total() {
      return total;
    },
    eventAt: (/** @type {number} */ index) => byIndex.get(index),
    isLoaded: (/** @type {number} */ page) => loaded.has(page),
    /**
     * True when a row of `first..last` is on a page not loaded yet.
     * @param {number} first
     * @param {number} last
     */
    missing(first, last) {
      for (let page = Math.floor(first / pageSize); page <= Math.floor(last / pageSize); page++) {
        if (!loaded.has(page)) return true;
      }
      return false;
    },
    ensure,
    /** From nothing: the first page tells the total. */
    start() {
      generation++;
      total = 0;
      byIndex.clear();
      loaded = new Set();
      loading = new Set();
      fetchPage(0);
    },
    /**
     * Refetches the rows `first..last` (the ones in sight); the other pages are forgotten.
     * @param {number} first
     * @param {number} last
     */
    refresh(first, last) {
      generation++;
      const firstPage = Math.floor(first / pageSize);
      const lastPage = Math.max(firstPage, Math.floor(last / pageSize));
      for (const index of [...byIndex.keys()]) {
        const page = Math.floor(index / pageSize);
        if (page < firstPage || page > lastPage) byIndex.delete(index);
      }
      loaded = new Set();
      loading = new Set();
      for (let page = firstPage; page <= lastPage; page++) fetchPage(page);
    },
    /** Leaving the view: answers still on their way are dropped. */
    stop() {
      generation++;
      loading = new Set();
    },
  };
}
