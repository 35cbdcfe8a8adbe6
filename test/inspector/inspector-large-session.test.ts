/**
 * The inspector page on a 10,000-event session: the timeline is virtualized and fetched a page
 * at a time, so the first rows and the end of the history each cost a page or two, never the
 * whole history; the next request's view (the whole history: the session was never compacted)
 * is paged the same way. Timings (first timeline row, render after jumping to the end) are printed
 * for the record, never asserted: the machine may be busy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { longTranscript } from '../../src/testing/long-transcript.js';
import { openBrowser, skipBrowser } from './chromium.js';
import {
  APP,
  type InspectorFixture,
  startInspectorFixture,
  TOKEN_ALICE,
} from './inspector-fixture.js';

/** The browser's globals used in `page.evaluate` (this project's types have no DOM lib). */
interface DomElement {
  closest(selector: string): DomElement | null;
  getAttribute(name: string): string | null;
}
declare const document: {
  querySelector(selector: string): { scrollTop: number; scrollHeight: number } | null;
  activeElement: DomElement | null;
};
declare function requestAnimationFrame(callback: () => void): number;

const EVENTS = 10_000;
const LONG = { appName: APP, userId: 'alice', sessionId: 'long-session' };
/** Pages of 200 events: the first one, and the last one or two after jumping to the end. */
const MAX_TIMELINE_REQUESTS = 5;
const PAGE_SIZE = 200;
const sessionUrl = (base: string) =>
  `${base}/#/apps/${LONG.appName}/users/${LONG.userId}/sessions/${LONG.sessionId}`;

describe.skipIf(skipBrowser)('the inspector page on a 10,000-event session', () => {
  let fixture: InspectorFixture;
  beforeAll(async () => {
    fixture = await startInspectorFixture({
      seed: async (service) => {
        await service.importSession({ ...LONG, events: longTranscript({ events: EVENTS }) });
      },
    });
  }, 180_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it('paints the first rows and the last ones from a few pages of the history', async () => {
    const browser = await openBrowser({ token: TOKEN_ALICE });
    try {
      const { page } = browser;
      const timelineRequests: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname.endsWith('/timeline')) timelineRequests.push(url.search);
      });
      await page.goto(sessionUrl(fixture.url));
      await page.locator('.row[data-seq="1"]').waitFor({ timeout: 60_000 });
      const firstRowMs = await page.evaluate(
        () => performance.getEntriesByName('inspector:first-timeline-row')[0]?.startTime ?? -1,
      );
      expect(firstRowMs).toBeGreaterThan(0);
      const firstPage = await page.evaluate(() => {
        const entry = performance
          .getEntriesByType('resource')
          .find((item) => item.name.includes('/timeline?afterSeq=0'));
        const end = (entry as unknown as { responseEnd: number } | undefined)?.responseEnd;
        return entry && end ? { startMs: entry.startTime, tookMs: end - entry.startTime } : null;
      });
      expect(await page.locator('.session-meta .counts').textContent()).toContain('10,000 events');
      // Virtualized: a screenful of rows (plus a margin) exists, not ten thousand.
      const rowsAtStart = await page.locator('.row').count();
      expect(rowsAtStart).toBeGreaterThan(10);
      expect(rowsAtStart).toBeLessThan(100);

      // Jump to the end; time until the last event's row is drawn.
      const scrollMs = await page.evaluate(
        (lastSeq) =>
          new Promise<number>((resolve) => {
            const scroller = document.querySelector('.timeline-scroller');
            if (!scroller) throw new Error('no timeline on the page');
            const started = performance.now();
            scroller.scrollTop = scroller.scrollHeight;
            const check = () => {
              if (document.querySelector(`.row[data-seq="${lastSeq}"]`)) {
                resolve(performance.now() - started);
              } else {
                requestAnimationFrame(check);
              }
            };
            check();
          }),
        EVENTS,
      );
      const rowsAtEnd = await page.locator('.row[data-seq]').count();
      expect(rowsAtEnd).toBeGreaterThan(10);
      expect(rowsAtEnd).toBeLessThan(100);
      expect(await page.locator('.row-placeholder').count()).toBe(0);
      expect(timelineRequests.length).toBeGreaterThanOrEqual(2);
      expect(timelineRequests.length).toBeLessThan(MAX_TIMELINE_REQUESTS);
      await browser.screenshot('long-session-end');
      console.log(
        `[inspector] ${EVENTS} events: first timeline row at ${Math.round(firstRowMs)} ms after navigation start ` +
          `(its page requested at ${Math.round(firstPage?.startMs ?? -1)} ms, answered in ${Math.round(firstPage?.tookMs ?? -1)} ms); ` +
          `end of history drawn ${Math.round(scrollMs)} ms after the jump; ` +
          `${timelineRequests.length} timeline requests (${timelineRequests.join(' ')})`,
      );
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 240_000);

  it('pages the next request (view) too: a few requests, each with a limit', async () => {
    const browser = await openBrowser({ token: TOKEN_ALICE });
    try {
      const { page } = browser;
      await page.goto(sessionUrl(fixture.url));
      await page.locator('.row[data-seq="1"]').waitFor({ timeout: 60_000 });

      const viewRequests: URL[] = [];
      const viewAnswers: Array<Promise<{ events: unknown[]; total: number; bytes: number }>> = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname.endsWith('/view')) viewRequests.push(url);
      });
      page.on('response', (response) => {
        if (!new URL(response.url()).pathname.endsWith('/view')) return;
        viewAnswers.push(
          response
            .body()
            .then((body) => ({ ...JSON.parse(body.toString('utf8')), bytes: body.length })),
        );
      });
      await page.getByLabel('Next request (view)').check();
      await page.waitForURL(/\?view=next$/);
      const summary = page.locator('.view-summary');
      await expect
        .poll(() => summary.textContent(), { timeout: 60_000 })
        .toMatch(/holds 10,000 events/);
      await page.locator('.row[aria-posinset="1"][data-seq="1"]').waitFor({ timeout: 60_000 });
      const rowsAtStart = await page.locator('.row').count();
      expect(rowsAtStart).toBeGreaterThan(10);
      expect(rowsAtStart).toBeLessThan(100);

      // The end of the view: its last page or two, not the pages in between.
      await page.evaluate(() => {
        const scroller = document.querySelector('.timeline-scroller');
        if (!scroller) throw new Error('no timeline on the page');
        scroller.scrollTop = scroller.scrollHeight;
      });
      await page.locator(`.row[aria-posinset="${EVENTS}"][data-seq]`).waitFor({ timeout: 60_000 });
      await expect
        .poll(() => page.locator('.row-placeholder').count(), { timeout: 60_000 })
        .toBe(0);
      const rowsAtEnd = await page.locator('.row[data-seq]').count();
      expect(rowsAtEnd).toBeGreaterThan(10);
      expect(rowsAtEnd).toBeLessThan(100);

      expect(viewRequests.length).toBeGreaterThanOrEqual(2);
      expect(viewRequests.length).toBeLessThan(MAX_TIMELINE_REQUESTS);
      for (const url of viewRequests) {
        expect(url.searchParams.get('limit'), url.search).toBe(String(PAGE_SIZE));
        expect(Number(url.searchParams.get('offset')) % PAGE_SIZE, url.search).toBe(0);
      }
      const answers = await Promise.all(viewAnswers);
      expect(answers).toHaveLength(viewRequests.length);
      for (const answer of answers) {
        expect(answer.total).toBe(EVENTS);
        expect(answer.events.length).toBeLessThanOrEqual(PAGE_SIZE);
      }
      const bytes = answers.reduce((sum, answer) => sum + answer.bytes, 0);
      // For the record: the whole view in one answer, as the page used to fetch it.
      const whole = await fetch(`${fixture.url}${new URL(viewRequests[0]!.href).pathname}`, {
        headers: { authorization: `Bearer ${TOKEN_ALICE}` },
      });
      const wholeBytes = (await whole.arrayBuffer()).byteLength;
      console.log(
        `[inspector] view of ${EVENTS} events: ${viewRequests.length} view requests ` +
          `(${viewRequests.map((url) => url.search).join(' ')}), ${bytes} bytes in all; ` +
          `the whole view in one answer: ${wholeBytes} bytes`,
      );
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 240_000);

  it('moves the keyboard focus to rows not fetched yet (End, Home)', async () => {
    const browser = await openBrowser({ token: TOKEN_ALICE });
    try {
      const { page } = browser;
      await page.goto(sessionUrl(fixture.url));
      await page.locator('.row[data-seq="1"] button.expand').focus({ timeout: 60_000 });
      await page.keyboard.press('End');
      // The last row's page arrives after the key: the focus moves to its Show button then.
      const last = page.locator(`.row[data-seq="${EVENTS}"] button.expand`);
      await expect
        .poll(() => last.evaluate((button) => button === document.activeElement), {
          timeout: 60_000,
        })
        .toBe(true);
      await page.keyboard.press('ArrowUp');
      expect(
        await page.evaluate(() =>
          document.activeElement?.closest('.row')?.getAttribute('data-seq'),
        ),
      ).toBe(String(EVENTS - 1));
      await page.keyboard.press('Home');
      expect(
        await page.evaluate(() =>
          document.activeElement?.closest('.row')?.getAttribute('data-seq'),
        ),
      ).toBe('1');
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 240_000);
});
