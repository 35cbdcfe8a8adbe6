/**
 * The inspector page drives a served agent: its chat box sends a message through `POST /run_sse`
 * (streaming), shows the answer as it streams (the model holds its second delta until the test
 * has seen the first on the page), the run's events reach the timeline, and the model-calls panel
 * traces each call (request, answer, reported tokens, tool calls). A read-only server shows why
 * there is no chat box.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Model } from '../../src/models/types.js';
import { LlmAgent } from '../../src/runtime/agents/llm-agent.js';
import { FunctionTool } from '../../src/runtime/tools/function-tool.js';
import { Runner } from '../../src/runtime/turn/runner.js';
import {
  ScriptedModel,
  streamedTextResponse,
  toolCallResponse,
} from '../../src/testing/scripted-model.js';
import { openBrowser, skipBrowser } from './chromium.js';
import {
  APP,
  INCIDENT,
  type InspectorFixture,
  startInspectorFixture,
  TOKEN_ALICE,
} from './inspector-fixture.js';

const CHAT = { appName: APP, userId: 'alice', sessionId: 'chat' };
const QUESTION = 'Why did checkout slow down?';
const PIECES = ['The new pods ', 'retry against ', 'payments-replica-2.'];
const ANSWER = PIECES.join('');

function gate(): { opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const sessionUrl = (base: string, key: typeof CHAT) =>
  `${base}/#/apps/${key.appName}/users/${key.userId}/sessions/${key.sessionId}`;

describe.skipIf(skipBrowser)('the inspector chat box and model calls', () => {
  let fixture: InspectorFixture;
  const streamGate = gate();
  const scripted = new ScriptedModel({
    script: [
      toolCallResponse([{ id: 'call-1', name: 'read_logs', args: { service: 'checkout' } }], {
        promptTokenCount: 300,
        candidatesTokenCount: 12,
        totalTokenCount: 312,
      }),
      streamedTextResponse(PIECES, {
        promptTokenCount: 1200,
        cachedContentTokenCount: 1000,
        candidatesTokenCount: 7,
        totalTokenCount: 1207,
      }),
    ],
  });
  // The scripted model, holding the answer after its first delta until the test opens the gate.
  const model: Model = {
    modelId: scripted.modelId,
    generate: (request) => scripted.generate(request),
    async *stream(request, options) {
      let deltas = 0;
      for await (const part of scripted.stream!(request, options)) {
        yield part;
        if (part.type === 'text-delta' && deltas++ === 0) await streamGate.opened;
      }
    },
  };

  beforeAll(async () => {
    fixture = await startInspectorFixture({
      runner: (service) =>
        new Runner({
          appName: APP,
          agent: new LlmAgent({
            name: 'assistant',
            model,
            instruction: 'Answer briefly.',
            tools: [
              new FunctionTool({
                name: 'read_logs',
                description: "Reads a service's logs.",
                parameters: z.object({ service: z.string() }),
                execute: async () => ({ output: '14:02 checkout retry storm' }),
              }),
            ],
          }),
          sessionService: service,
          compaction: null,
          logger: false,
        }),
    });
    await fixture.service.createSession({ ...CHAT, state: { plan: 'pro' } });
  }, 120_000);
  afterAll(async () => {
    streamGate.open();
    await fixture?.close();
  });

  it('sends a message, streams the answer, and the run lands in the timeline and the trace', async () => {
    const browser = await openBrowser({ token: TOKEN_ALICE });
    try {
      const { page } = browser;
      await page.goto(sessionUrl(fixture.url, CHAT));
      await page.locator('.live-status[data-status="live"]').waitFor({ timeout: 60_000 });
      await page.getByLabel('Message to assistant').fill(QUESTION);
      await page.getByRole('button', { name: 'Send' }).click();

      // The first delta is shown while the model holds the rest: the answer streams.
      const answer = page.locator('.chat-answer');
      await expect.poll(() => answer.textContent(), { timeout: 60_000 }).toBe(PIECES[0]);
      expect(await answer.getAttribute('data-state')).toBe('streaming');
      expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
      // Meanwhile the stored question, tool call and result reach the timeline live.
      await page.locator('.row[data-seq="1"][data-kind="user"]').waitFor({ timeout: 60_000 });
      expect(await page.locator('.row[data-seq="1"] .preview').textContent()).toBe(QUESTION);
      await page
        .locator('.row[data-seq="3"][data-kind="tool-result"]')
        .waitFor({ timeout: 60_000 });
      expect(await page.locator('.chat-tools').textContent()).toContain('called read_logs');

      streamGate.open();
      await expect.poll(() => answer.getAttribute('data-state'), { timeout: 60_000 }).toBe('done');
      expect(await answer.textContent()).toBe(ANSWER);
      const stored = page.locator('.row[data-seq="4"][data-kind="model"]');
      await stored.waitFor({ timeout: 60_000 });
      expect(await stored.locator('.preview').textContent()).toBe(ANSWER);
      expect(await page.locator('.chat-status').textContent()).toContain('Answered');

      // The per-call trace: two calls, the second's request holds the question, call and result.
      await page.locator('.call-trace summary').click();
      const calls = page.locator('.call-trace .call');
      await expect.poll(() => calls.count(), { timeout: 60_000 }).toBe(2);
      expect(await page.locator('.call-trace summary').textContent()).toBe('Model calls (2)');
      expect(await page.getByRole('button', { name: 'Show older calls' }).isHidden()).toBe(true);
      // Newest first.
      const first = calls.nth(1);
      expect(await first.getAttribute('data-seq')).toBe('2');
      expect(await first.locator('.call-usage').textContent()).toBe('300 in · 12 out');
      expect(await first.locator('.call-tools').textContent()).toContain(
        'read_logs({"service":"checkout"}) → #3',
      );
      const second = calls.nth(0);
      expect(await second.locator('.call-usage').textContent()).toBe(
        '1,200 in (1,000 cached) · 7 out',
      );
      expect(await second.locator('.call-answer').textContent()).toContain(ANSWER);
      expect(await second.locator('.call-request-summary').textContent()).toMatch(
        /^3 events \(#1–#3\), about [\d,]+ tokens/,
      );
      await second.getByRole('button', { name: 'Show request' }).click();
      const requestRows = second.locator('.call-request-event');
      await expect.poll(() => requestRows.count(), { timeout: 60_000 }).toBe(3);
      expect(
        await requestRows.evaluateAll((items) =>
          items.map((item) => `${item.getAttribute('data-seq')}:${item.getAttribute('data-kind')}`),
        ),
      ).toEqual(['1:user', '2:tool-call', '3:tool-result']);

      // The state panel.
      await page.locator('.state-panel summary').click();
      await page.locator('.state-list dt[data-key="plan"]').waitFor({ timeout: 60_000 });
      expect(await page.locator('.state-value').textContent()).toBe('"pro"');
      // The request-size chart caught up with the run: one point per call.
      await expect
        .poll(() => page.locator('.chart circle.point').count(), { timeout: 60_000 })
        .toBe(2);
      await browser.screenshot('chat-and-calls');
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 240_000);

  it("offers no chat box on another app's session, and says why", async () => {
    const browser = await openBrowser({ token: TOKEN_ALICE });
    try {
      const other = { appName: 'elsewhere', userId: 'alice', sessionId: 'other-app' };
      await fixture.service.createSession(other);
      await browser.page.goto(sessionUrl(fixture.url, other));
      const reason = browser.page.locator('.chat-reason');
      await reason.waitFor({ timeout: 60_000 });
      expect(await reason.textContent()).toContain("this server runs app 'demo'");
      expect(await browser.page.locator('#chat-message').count()).toBe(0);
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});

describe.skipIf(skipBrowser)('the inspector chat box on a read-only server', () => {
  let fixture: InspectorFixture;
  beforeAll(async () => {
    fixture = await startInspectorFixture({
      inspector: { readOnlyReason: 'orrery inspect only reads the store' },
    });
  }, 120_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it('is replaced by the reason', async () => {
    const browser = await openBrowser({ token: TOKEN_ALICE });
    try {
      await browser.page.goto(sessionUrl(fixture.url, INCIDENT));
      const reason = browser.page.locator('.chat-reason');
      await reason.waitFor({ timeout: 60_000 });
      expect(await reason.textContent()).toBe('No chat box: orrery inspect only reads the store.');
      expect(await browser.page.locator('#chat-message').count()).toBe(0);
      // The per-call trace still reads: the incident's five invocations, two calls each.
      await browser.page.locator('.call-trace summary').click();
      await expect
        .poll(() => browser.page.locator('.call-trace .call').count(), { timeout: 60_000 })
        .toBe(10);
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
