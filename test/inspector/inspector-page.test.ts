/**
 * The inspector page (`assets/inspector/`) in headless Chromium against a real server on a
 * seeded SQLite store: the token form and the sessions list (another user's session stays
 * hidden), a session with two compactions (spans, summaries, the view toggle, a collapsed tool
 * result expanded), a live event, and replay in the page matching `orrery replay --json`.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getText } from '../../src/index.js';
import { modelTextEvent, userTextEvent } from '../../src/testing/index.js';
import { type Browser, openBrowser, ROOT, skipBrowser } from './chromium.js';
import {
  BOB_SECRET,
  BOB_SESSION,
  INCIDENT,
  type InspectorFixture,
  LONG_OUTPUT_END,
  QUIET,
  startInspectorFixture,
  TOKEN_ALICE,
} from './inspector-fixture.js';

const hashOf = (key: { appName: string; userId: string; sessionId: string }) =>
  `#/apps/${key.appName}/users/${key.userId}/sessions/${key.sessionId}`;

describe.skipIf(skipBrowser)('the inspector page', () => {
  let fixture: InspectorFixture;
  beforeAll(async () => {
    fixture = await startInspectorFixture();
  }, 120_000);
  afterAll(async () => {
    await fixture?.close();
  });

  const withBrowser = async (
    options: { token?: string },
    body: (browser: Browser) => Promise<void>,
  ) => {
    const browser = await openBrowser(options);
    try {
      await body(browser);
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  };

  it("asks for a token, then lists only that user's sessions and hides another's", async () => {
    await withBrowser({}, async ({ page, screenshot }) => {
      await page.goto(`${fixture.url}/`);
      // The API answers 401 without a token: the page asks for one.
      const tokenInput = page.getByLabel('Bearer token');
      await tokenInput.waitFor();
      await tokenInput.fill(TOKEN_ALICE);
      await page.getByRole('button', { name: 'Use token' }).click();

      const rows = page.locator('table.sessions tbody tr');
      await rows.first().waitFor();
      const listed = await rows.evaluateAll((items) =>
        items.map((row) => [row.getAttribute('data-user-id'), row.getAttribute('data-session-id')]),
      );
      expect(listed.sort()).toEqual(
        [
          ['alice', INCIDENT.sessionId],
          ['alice', QUIET.sessionId],
        ].sort(),
      );
      const incidentRow = page.locator(`tr[data-session-id="${INCIDENT.sessionId}"]`);
      const cells = await incidentRow.locator('td').allTextContents();
      // app, user, session, events, compactions, last activity, view tokens
      expect(cells.slice(0, 5)).toEqual(['demo', 'alice', INCIDENT.sessionId, '22', '2']);
      expect(Number(cells[6]?.replace(/,/g, ''))).toBeGreaterThan(0);
      expect(await page.locator('main').textContent()).not.toMatch(/\b(null|undefined|NaN)\b/);
      await screenshot('sessions');

      // Filter by user: the filter goes into the URL.
      await page.getByLabel('User').selectOption('alice');
      await page.waitForURL(/#\/\?user=alice$/);
      await expect.poll(() => rows.count()).toBe(2);

      // Bob's session by its URL: the API's 404 detail is shown, none of its content.
      await page.goto(`${fixture.url}/${hashOf(BOB_SESSION)}`);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('not found');
      expect(await page.content()).not.toContain(BOB_SECRET);
    });
  }, 120_000);

  it('draws the two compactions as spans, shows their summaries and toggles to the view', async () => {
    const stored = fixture.compactions.map((event) => event.actions.compaction);
    expect(stored).toHaveLength(2);
    await withBrowser({ token: TOKEN_ALICE }, async ({ page, screenshot }) => {
      await page.goto(`${fixture.url}/${hashOf(INCIDENT)}`);
      await page.locator('.row[data-seq="1"]').waitFor();

      const spans = await page
        .locator('.span')
        .evaluateAll((items) =>
          items.map((item) =>
            ['data-seq', 'data-start-seq', 'data-end-seq'].map((name) =>
              Number(item.getAttribute(name)),
            ),
          ),
        );
      expect(spans).toEqual(
        fixture.compactions.map((event) => [
          event.seq,
          event.actions.compaction.startSeq,
          event.actions.compaction.endSeq,
        ]),
      );
      // Each compaction's trigger, tokens, summarizer and whole summary text.
      for (const event of fixture.compactions) {
        const item = page.locator(`.compaction[data-seq="${event.seq}"]`);
        const compaction = event.actions.compaction;
        const summary = getText(compaction.compactedContent);
        expect(summary.length).toBeGreaterThan(20);
        expect(await item.locator('.summary-text').textContent()).toBe(summary);
        const facts = await item.locator('dd').allTextContents();
        expect(facts[0]).toBe(compaction.trigger);
        expect(facts[1]).toBe(
          `${compaction.tokensBefore.toLocaleString('en-US')} → ${compaction.tokensAfter.toLocaleString('en-US')}`,
        );
        expect(facts[2]).toBe('digest');
        expect(facts[3]).toBe(
          compaction.fallback
            ? `from ${compaction.fallback.from}: ${compaction.fallback.reason}`
            : undefined,
        );
      }
      expect(stored[1]?.fallback?.from).toBe('flaky-model');
      // The compaction rows of the timeline name the range they summarize.
      const [, second] = fixture.compactions;
      await page.locator(`.row[data-seq="${second!.seq}"]`).waitFor();
      expect(
        await page.locator(`.row[data-seq="${second!.seq}"] .preview`).textContent(),
      ).toContain(`#${second!.actions.compaction.startSeq}–#${second!.actions.compaction.endSeq}`);

      await page.locator('.chart-slot circle.point').first().waitFor();
      await screenshot('session');

      // A span is a button: it brings its compaction event into sight, marked.
      const [first] = fixture.compactions;
      await page.locator(`.span[data-seq="${first!.seq}"]`).click();
      await page.locator(`.row.highlight[data-seq="${first!.seq}"]`).waitFor();

      // A tool result is collapsed; "Show" fetches the whole stored event.
      const toolRow = page.locator('.row[data-kind="tool-result"]').first();
      expect(await toolRow.locator('.preview').textContent()).toMatch(/^▸ /);
      expect(await toolRow.textContent()).not.toContain(LONG_OUTPUT_END);
      const seq = await toolRow.getAttribute('data-seq');
      await toolRow.getByRole('button', { name: `Show the full event #${seq}` }).click();
      const detail = page.locator(`.row[data-seq="${seq}"] .event-json`);
      await detail.waitFor();
      expect(await detail.textContent()).toContain(LONG_OUTPUT_END);
      await screenshot('session-history');
      await page.locator(`.row[data-seq="${seq}"] button.expand`).click();
      await detail.waitFor({ state: 'detached' });

      // The view: exactly what the next request holds, the newest summary first.
      await page.getByLabel('Next request (view)').check();
      await page.waitForURL(/\?view=next$/);
      const firstRow = page.locator('.row[aria-posinset="1"]');
      await firstRow.waitFor();
      await expect.poll(() => firstRow.getAttribute('data-kind')).toBe('compaction');
      const view = await fixture.service.loadView(INCIDENT);
      const shown = await page
        .locator('.row[data-seq]')
        .evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-seq'))));
      expect(shown).toEqual([view.checkpoint!.seq, ...view.tail.map((event) => event.seq)]);
      expect(shown[0]).toBe(second!.seq);
      for (const shownSeq of shown.slice(1)) {
        expect(shownSeq).toBeGreaterThan(second!.actions.compaction.endSeq);
      }
      expect(await firstRow.locator('.preview').textContent()).toContain(
        getText(second!.actions.compaction.compactedContent).slice(0, 40),
      );
      expect(await page.locator('.view-summary').textContent()).toMatch(
        new RegExp(`holds ${shown.length} events`),
      );
      expect(await page.locator('main').textContent()).not.toMatch(/\b(null|undefined|NaN)\b/);
      await screenshot('session-view');
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot('session-view-dark');

      // The chart: one point per stored model response (a tool call or an answer).
      const history = await fixture.service.listEvents(INCIDENT);
      const modelResponses = history.events.filter((event) => event.content?.role === 'model');
      await expect
        .poll(() => page.locator('.chart-slot circle.point').count())
        .toBe(modelResponses.length);
    });
  }, 120_000);

  it('asks for pages of the size the server names (/info pageSize)', async () => {
    const pageSize = 5;
    await withBrowser({ token: TOKEN_ALICE }, async ({ page }) => {
      // The server's page size is a constant (200): this one answers 5, so the page's own
      // figure cannot pass for the server's.
      await page.route('**/inspector/api/info', async (route) => {
        const response = await route.fetch();
        await route.fulfill({ response, json: { ...(await response.json()), pageSize } });
      });
      const paged: URL[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (/\/(timeline|view)$/.test(url.pathname)) paged.push(url);
      });
      await page.goto(`${fixture.url}/${hashOf(INCIDENT)}`);
      // 22 events: the last rows come from the fifth page.
      await page.locator('.row[data-seq="22"]').waitFor();
      await page.getByLabel('Next request (view)').check();
      await page.locator('.row[aria-posinset="1"][data-kind="compaction"]').waitFor();
      const timeline = paged.filter((url) => url.pathname.endsWith('/timeline'));
      const view = paged.filter((url) => url.pathname.endsWith('/view'));
      expect(timeline.length).toBeGreaterThanOrEqual(5);
      expect(view.length).toBeGreaterThanOrEqual(1);
      for (const url of paged) expect(url.searchParams.get('limit'), url.search).toBe('5');
      for (const url of timeline) {
        expect(Number(url.searchParams.get('afterSeq')) % pageSize, url.search).toBe(0);
      }
    });
  }, 120_000);

  it('shows an event appended while the page is open, without a reload', async () => {
    await withBrowser({ token: TOKEN_ALICE }, async ({ page }) => {
      await page.goto(`${fixture.url}/${hashOf(QUIET)}`);
      await page.locator('.row[data-seq="2"]').waitFor();
      await page.locator('.live-status[data-status="live"]').waitFor();
      await page.evaluate('window.loadedOnce = true');
      await fixture.append(QUIET, userTextEvent({ text: 'A message typed elsewhere' }));
      const live = page.locator('.row[data-seq="3"]');
      await live.waitFor();
      expect(await live.locator('.preview').textContent()).toBe('A message typed elsewhere');
      expect(await page.locator('.session-meta .counts').textContent()).toContain('3 events');

      // A compaction written elsewhere: its span and its summary arrive the same way.
      await fixture.append(QUIET, modelTextEvent({ author: 'assistant', text: 'Answered.' }));
      const compaction = await fixture.compact(QUIET);
      const span = page.locator(`.span[data-seq="${compaction.seq}"]`);
      await span.waitFor();
      expect(await span.getAttribute('data-end-seq')).toBe(
        String(compaction.actions.compaction.endSeq),
      );
      expect(
        await page.locator(`.compaction[data-seq="${compaction.seq}"] .summary-text`).textContent(),
      ).toBe(getText(compaction.actions.compaction.compactedContent));
      expect(await page.locator('.session-meta .counts').textContent()).toContain(
        `${compaction.seq} events · 1 compaction`,
      );
      // Still the same document: nothing reloaded it.
      expect(await page.evaluate('window.loadedOnce')).toBe(true);
    });
  }, 120_000);

  it("replays an uploaded transcript and draws the CLI's request sizes", async () => {
    const transcript = join(ROOT, 'examples', 'incident-session.jsonl');
    const settings = ['--threshold', '12000', '--retention', '6'];
    await withBrowser({ token: TOKEN_ALICE }, async ({ page, screenshot }) => {
      await page.goto(`${fixture.url}/#/replay`);
      // Not a transcript: the problem's detail is shown, naming the field.
      await page.getByLabel('Transcript file').setInputFiles({
        name: 'notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('just some notes, not a transcript'),
      });
      await page.getByRole('button', { name: 'Replay' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/^transcript: /);
      await page.getByRole('button', { name: 'Dismiss the error' }).click();
      await alert.waitFor({ state: 'hidden' });

      await page.getByLabel('Transcript file').setInputFiles(transcript);
      await page.getByLabel('Threshold (tokens)').fill('12000');
      await page.getByLabel('Retention (events)').fill('6');
      await page.getByRole('button', { name: 'Replay' }).click();
      const points = page.locator('.replay-report circle.point');
      await points.first().waitFor({ timeout: 90_000 });
      const drawn = await points.evaluateAll((items) =>
        items.map((item) =>
          ['data-call', 'data-tokens', 'data-uncompacted-tokens'].map((name) =>
            Number(item.getAttribute(name)),
          ),
        ),
      );
      const markers = await page
        .locator('.replay-report .compaction-marker')
        .evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-call'))));
      const threshold = await page
        .locator('.replay-report line.threshold')
        .getAttribute('data-threshold');

      const cli = spawnSync(
        join(ROOT, 'node_modules', '.bin', 'tsx'),
        [join(ROOT, 'src', 'cli', 'entry.ts'), 'replay', transcript, ...settings, '--json'],
        { cwd: ROOT, encoding: 'utf8', env: cliEnv(), timeout: 120_000 },
      );
      expect(cli.status, cli.stderr).toBe(0);
      const report = JSON.parse(cli.stdout) as {
        modelCalls: number;
        compactions: Array<{ beforeCall: number }>;
        requests: Array<{ withCompaction: number; withoutCompaction: number }>;
        maxViewTokens: number;
      };
      expect(report.modelCalls).toBeGreaterThan(50);
      expect(drawn).toEqual(
        report.requests.map((request, index) => [
          index + 1,
          request.withCompaction,
          request.withoutCompaction,
        ]),
      );
      expect(report.compactions.length).toBeGreaterThan(1);
      expect(markers).toEqual(
        report.compactions
          .map((compaction) => compaction.beforeCall)
          .filter((call) => call <= report.modelCalls),
      );
      expect(threshold).toBe('12000');
      expect(await page.locator('[data-figure="model calls"]').textContent()).toBe(
        report.modelCalls.toLocaleString('en-US'),
      );
      await screenshot('replay');
    });
  }, 240_000);
});

/** The CLI's environment without compaction settings, so only the flags decide. */
function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('ORRERY_')) env[name] = value;
  }
  return env;
}
