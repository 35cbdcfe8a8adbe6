/**
 * The live session chart with a price (docs/cost.md#live-spend): the served agent's model has a
 * catalog price, so the chart offers "Tokens | Cost (USD)" and draws each call's estimated USD
 * (`GET .../chart` `cost.perCallUsd`, from the usage the calls reported).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DigestSummarizer, LlmAgent, Runner } from '../../src/index.js';
import { modelTextEvent, ScriptedModel, userTextEvent } from '../../src/testing/index.js';
import { openBrowser, skipBrowser } from './chromium.js';
import {
  APP,
  type InspectorFixture,
  startInspectorFixture,
  TOKEN_ALICE,
} from './inspector-fixture.js';

const PRICED = { appName: APP, userId: 'alice', sessionId: 'priced-chat' };

describe.skipIf(skipBrowser)('the live session chart with a price', () => {
  let fixture: InspectorFixture;
  beforeAll(async () => {
    fixture = await startInspectorFixture({
      runner: (service) =>
        new Runner({
          appName: APP,
          agent: new LlmAgent({
            name: 'assistant',
            model: new ScriptedModel({ modelId: 'google:gemini-2.5-flash', script: [] }),
            instruction: 'Answer briefly.',
          }),
          sessionService: service,
          summarizer: new DigestSummarizer(),
          logger: false,
        }),
    });
    await fixture.service.createSession(PRICED);
    for (let turn = 1; turn <= 3; turn++) {
      const invocationId = `priced-${turn}`;
      await fixture.append(PRICED, userTextEvent({ invocationId, text: `question ${turn}` }));
      await fixture.append(PRICED, {
        ...modelTextEvent({ invocationId, author: 'assistant', text: `answer ${turn}` }),
        usageMetadata: {
          promptTokenCount: 10_000 * turn,
          cachedContentTokenCount: 8_000 * turn,
          candidatesTokenCount: 200,
        },
      });
    }
  }, 120_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it('draws USD per call behind the Tokens | Cost toggle', async () => {
    const chartPath = `/inspector/api/apps/${APP}/users/alice/sessions/${PRICED.sessionId}/chart`;
    const response = await fetch(`${fixture.url}${chartPath}`, {
      headers: { authorization: `Bearer ${TOKEN_ALICE}` },
    });
    const chart = (await response.json()) as { cost?: { perCallUsd: number[] } };
    expect(chart.cost?.perCallUsd).toHaveLength(3);

    const browser = await openBrowser({ token: TOKEN_ALICE });
    try {
      const { page } = browser;
      await page.goto(`${fixture.url}/#/apps/${APP}/users/alice/sessions/${PRICED.sessionId}`);
      const slot = page.locator('.chart-slot');
      await slot.locator('circle.point').first().waitFor({ timeout: 60_000 });
      expect(await slot.locator('.y-axis-label').textContent()).toBe('tokens');
      await slot.getByRole('button', { name: 'Cost (USD)' }).click();
      expect(await slot.locator('.y-axis-label').textContent()).toBe('USD per call');
      const drawn = await slot
        .locator('circle.point')
        .evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-usd'))));
      expect(drawn).toEqual(chart.cost?.perCallUsd);
      expect(await slot.locator('figcaption').textContent()).toContain('google:gemini-2.5-flash');
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
