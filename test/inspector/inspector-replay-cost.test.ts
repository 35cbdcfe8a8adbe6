/**
 * A priced replay in the inspector page (docs/inspector.md#cost): the form's price field, the
 * cost summary matching the route's `cost`, and the request chart toggled to USD per call
 * (`cost.perCallUsd`), with its own axis label and legend (no threshold entry in dollars).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, openBrowser, ROOT, skipBrowser } from './chromium.js';
import { type InspectorFixture, startInspectorFixture, TOKEN_ALICE } from './inspector-fixture.js';

const PRICE = 'anthropic:claude-sonnet-4-5';
/** A small transcript: the first 40 lines of the incident session (11 model calls). */
const SMALL = readFileSync(join(ROOT, 'examples', 'incident-session.jsonl'), 'utf8')
  .split('\n')
  .slice(0, 40)
  .join('\n');

interface CostBody {
  modelCalls: number;
  cost: {
    withCompaction: { usd: number; summarizerUsd: number };
    withoutCompaction: { usd: number };
    perCallUsd: { withCompaction: number[]; withoutCompaction: number[] };
  };
}

describe.skipIf(skipBrowser)('the inspector replay with a price', () => {
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

  it('shows the cost summary and draws USD per call behind the Tokens | Cost toggle', async () => {
    const settings = { threshold: 3000, retention: 4 };
    // What the route answers for the same upload: the page must show these figures.
    const response = await fetch(`${fixture.url}/inspector/api/replay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN_ALICE}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        transcript: SMALL,
        fileName: 'small.jsonl',
        ...settings,
        price: PRICE,
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as CostBody;
    expect(body.cost.perCallUsd.withCompaction).toHaveLength(body.modelCalls);

    await withBrowser({ token: TOKEN_ALICE }, async ({ page, screenshot }) => {
      await page.goto(`${fixture.url}/#/replay`);
      await page.getByLabel('Transcript file').setInputFiles({
        name: 'small.jsonl',
        mimeType: 'application/jsonl',
        buffer: Buffer.from(SMALL),
      });
      await page.getByLabel('Threshold (tokens)').fill(String(settings.threshold));
      await page.getByLabel('Retention (events)').fill(String(settings.retention));
      await page.getByLabel('Price (provider:model)').fill(PRICE);
      await page.getByRole('button', { name: 'Replay', exact: true }).click();

      const summary = page.getByRole('region', { name: 'Cost' });
      await summary.waitFor({ timeout: 90_000 });
      const usd = (value: number) => `$${value >= 1 ? value.toFixed(2) : value.toFixed(4)}`;
      expect(await summary.locator('[data-cost="USD with compaction"]').textContent()).toBe(
        usd(body.cost.withCompaction.usd),
      );
      expect(await summary.locator('[data-cost="USD without compaction"]').textContent()).toMatch(
        new RegExp(
          `^\\${usd(body.cost.withoutCompaction.usd)} \\((\\d+% saved|compaction costs \\d+% more)\\)$`,
        ),
      );
      expect(await summary.locator('[data-cost="cache-read share"]').textContent()).toMatch(
        /^\d+% of prompt tokens with compaction, \d+% without$/,
      );
      expect(await summary.locator('[data-cost="summarizer USD"]').textContent()).toContain(
        usd(body.cost.withCompaction.summarizerUsd),
      );

      // Tokens first: the threshold line and its legend entry, the tokens axis.
      const report = page.locator('.replay-report');
      const tokens = page.getByRole('button', { name: 'Tokens' });
      const cost = page.getByRole('button', { name: 'Cost (USD)' });
      expect(await tokens.getAttribute('aria-pressed')).toBe('true');
      expect(await report.locator('.y-axis-label').textContent()).toBe('tokens');
      expect(await report.locator('.legend-threshold').count()).toBe(1);

      await cost.click();
      expect(await cost.getAttribute('aria-pressed')).toBe('true');
      expect(await tokens.getAttribute('aria-pressed')).toBe('false');
      const points = report.locator('circle.point');
      const drawn = await points.evaluateAll((items) =>
        items.map((item) => [
          Number(item.getAttribute('data-usd')),
          Number(item.getAttribute('data-uncompacted-usd')),
        ]),
      );
      expect(drawn).toEqual(
        body.cost.perCallUsd.withCompaction.map((value, index) => [
          value,
          body.cost.perCallUsd.withoutCompaction[index],
        ]),
      );
      expect(await report.locator('circle.point[data-tokens]').count()).toBe(0);
      expect(await report.locator('.y-axis-label').textContent()).toBe('USD per call');
      expect(await report.locator('figcaption').textContent()).toBe(
        `Estimated USD per model call (replay, ${PRICE})`,
      );
      // No threshold in dollars: neither the line nor its legend entry.
      expect(await report.locator('line.threshold').count()).toBe(0);
      expect(await report.locator('.legend li').allTextContents()).toEqual([
        'with compaction (USD per model call)',
        'without compaction',
        'compaction',
      ]);
      // The y axis fits the dollars: from $0 to just above the most expensive call.
      const yTicks = (await report.locator('.tick').allTextContents()).slice(0, 5);
      expect(yTicks[0]).toBe('$0');
      const peak = Math.max(
        ...body.cost.perCallUsd.withoutCompaction,
        ...body.cost.perCallUsd.withCompaction,
      );
      const top = Number(yTicks[4]?.replace('$', ''));
      expect(top).toBeGreaterThan(peak * 0.95);
      expect(top).toBeLessThan(peak * 1.2);
      expect(await page.locator('main').textContent()).not.toMatch(/\b(null|undefined|NaN)\b/);
      await screenshot('replay-cost');

      // And back to tokens.
      await tokens.click();
      expect(await report.locator('circle.point[data-tokens]').count()).toBe(body.modelCalls);
    });
  }, 240_000);
});
