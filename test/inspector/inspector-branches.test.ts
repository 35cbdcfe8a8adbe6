/**
 * The inspector page's branch filter (assets/inspector/branch-filter.js) in headless Chromium on
 * a triage sweep (three specialists on their branches, each compacting on its own, then the
 * lead): the filter lists the branches with their counts; choosing one keeps it in the URL,
 * shows only what that branch sees (a sibling's events are hidden), draws its own compactions
 * over its rows, and its next request (view) holds no sibling's event either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTriageSweep } from '../../examples/triage-sweep/sweep.js';
import { eventsOnBranch } from '../../src/compaction/branch-view.js';
import type { Event } from '../../src/events/types.js';
import { Runner } from '../../src/runtime/turn/runner.js';
import { startTestServer, type TestServer } from '../../src/server/test-helpers/test-server.js';
import { InMemorySessionService } from '../../src/sessions/in-memory-session-service.js';
import { modelTextEvent } from '../../src/testing/event-builders.js';
import { openBrowser, skipBrowser } from './chromium.js';

const key = { appName: 'triage', userId: 'oncall', sessionId: 'incident-4711' };
const hash = `#/apps/${key.appName}/users/${key.userId}/sessions/${key.sessionId}`;

describe.skipIf(skipBrowser)('the inspector page: workflow branches', () => {
  let server: TestServer;
  let stored: Event[];
  const service = new InMemorySessionService();
  beforeAll(async () => {
    const sweep = createTriageSweep({ pages: 4 });
    await service.createSession(key);
    const runner = new Runner({
      appName: key.appName,
      agent: sweep.agent,
      sessionService: service,
      compaction: sweep.compaction,
      summarizer: sweep.summarizer,
      logger: false,
    });
    for await (const _event of runner.run({ ...key, newMessage: 'Checkout is failing.' })) {
      // stored as they come
    }
    stored = (await service.listEvents({ ...key, limit: 1000 })).events;
    server = await startTestServer({ service, serverOptions: { runner } });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  it("filters the timeline, its compactions and the view to one branch: a sibling's events are hidden", async () => {
    const browser = await openBrowser();
    const { page, screenshot } = browser;
    const shownSeqs = () =>
      page
        .locator('.row[data-seq]')
        .evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-seq'))));
    const seqsOn = (branch: string) =>
      new Set(stored.filter((e) => e.branch === branch).map((e) => e.seq));
    try {
      await page.goto(`${server.url}/${hash}`);
      await page.locator('.row[data-seq="1"]').waitFor();
      // Every branch listed with its counts.
      const filter = page.getByRole('combobox', { name: 'Branch' });
      const options = await filter.locator('option').allTextContents();
      const count = (branch: string | undefined) =>
        stored.filter((event) => event.branch === branch).length;
      const summaries = (branch: string) =>
        stored.filter((event) => event.branch === branch && event.actions.branchCompaction).length;
      expect(options).toEqual([
        `All branches (${stored.length} events)`,
        `trunk (${count(undefined)} events)`,
        ...['sweep.database', 'sweep.deploys', 'sweep.network'].map(
          (branch) => `${branch} (${count(branch)} events, ${summaries(branch)} compactions)`,
        ),
      ]);
      // Unfiltered: the siblings' events are there, each labelled with its branch.
      const database = seqsOn('sweep.database');
      await expect
        .poll(async () => (await shownSeqs()).filter((seq) => database.has(seq)).length)
        .toBeGreaterThan(0);
      expect(await page.locator('.row .author').allTextContents()).toContain(
        'database @ sweep.database',
      );

      // Filtered to sweep.network: in the URL, and only what that branch sees.
      await filter.selectOption('sweep.network');
      await page.waitForURL(/\?branch=sweep\.network$/);
      const expected = eventsOnBranch(stored, { branch: 'sweep.network' }).map((e) => e.seq);
      // Rows are drawn as they come into sight: the ones drawn are the branch's, in order.
      await expect
        .poll(async () => {
          const rows = await shownSeqs();
          return rows.length > 10 && rows.every((seq, index) => seq === expected[index]);
        })
        .toBe(true);
      const shown = await shownSeqs();
      expect(shown).toEqual(expected.slice(0, shown.length));
      for (const sibling of ['sweep.database', 'sweep.deploys']) {
        const theirs = seqsOn(sibling);
        expect(shown.filter((seq) => theirs.has(seq))).toEqual([]);
      }
      expect(await page.locator('.row[aria-posinset="1"]').getAttribute('aria-setsize')).toBe(
        String(expected.length),
      );
      // Its compactions only, drawn on its branch (listed, and as spans over its rows).
      const own = stored
        .filter((event) => event.branch === 'sweep.network' && event.actions.branchCompaction)
        .map((event) => event.seq);
      expect(own.length).toBeGreaterThan(0);
      await expect
        .poll(() =>
          page
            .locator('.span')
            .evaluateAll((spans) => spans.map((span) => Number(span.getAttribute('data-seq')))),
        )
        .toEqual(own);
      const listed = await page
        .locator('.compaction')
        .evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-seq'))));
      expect(listed.sort((a, b) => a - b)).toEqual(own);
      // A specialist's own compactions are branch summaries; the header names them apart.
      expect(await page.locator('.session-meta .counts').textContent()).toContain(
        `${own.length} branch summar`,
      );
      await screenshot('branch-filter');

      // Kept in the URL: a reload shows the same branch.
      await page.reload();
      await page.locator('.row[data-seq]').first().waitFor();
      expect(await page.getByRole('combobox', { name: 'Branch' }).inputValue()).toBe(
        'sweep.network',
      );
      expect((await shownSeqs()).filter((seq) => seqsOn('sweep.deploys').has(seq))).toEqual([]);

      // Live: an event stored on the branch appears; one stored on a sibling does not.
      for (const [author, branch] of [
        ['database', 'sweep.database'],
        ['network', 'sweep.network'],
      ] as const) {
        const event = modelTextEvent({ text: `LIVE note of ${author}`, author, branch });
        await service.appendEvent({ ...key, event });
      }
      const previews = () => page.locator('.row .preview').allTextContents();
      await expect.poll(previews, { timeout: 20_000 }).toContain('LIVE note of network');
      expect(await previews()).not.toContain('LIVE note of database');

      // The branch's next request: its own summary first, no sibling's event.
      await page.getByLabel('Next request (view)').check();
      await page.waitForURL(/\?view=next&branch=sweep\.network$/);
      const firstRow = page.locator('.row[aria-posinset="1"]');
      await expect.poll(() => firstRow.getAttribute('data-kind')).toBe('compaction');
      const view = await shownSeqs();
      expect(own).toContain(view[0]);
      for (const sibling of ['sweep.database', 'sweep.deploys']) {
        expect(view.filter((seq) => seqsOn(sibling).has(seq))).toEqual([]);
      }
      expect(await previews()).toContain('LIVE note of network');
      expect(await previews()).not.toContain('LIVE note of database');

      // Back to every branch.
      await page
        .getByRole('combobox', { name: 'Branch' })
        .selectOption({ label: `All branches (${stored.length} events)` });
      await page.waitForURL(/\?view=next$/);
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
