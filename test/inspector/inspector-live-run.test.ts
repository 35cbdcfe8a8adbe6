/**
 * The inspector page while a session is being run: a real `POST /run` through the served Runner
 * (a scripted model, a tool, compaction on with the digest summarizer) while the page is open.
 * The model's answer waits on a gate the test opens only after the page has shown the run's
 * first events, so they can only have arrived live; the Runner's background compaction then
 * shows up as a span, and a second run updates the view of the next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DigestSummarizer, FunctionTool, getText, LlmAgent, Runner } from '../../src/index.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../src/testing/index.js';
import { openBrowser, skipBrowser } from './chromium.js';
import {
  APP,
  type InspectorFixture,
  startInspectorFixture,
  TOKEN_ALICE,
} from './inspector-fixture.js';

const RUN = { appName: APP, userId: 'alice', sessionId: 'live-run' };
const QUESTION = 'Why did checkout slow down?';
const FIRST_ANSWER = 'The new pods retry against payments-replica-2.';
const SECOND_ANSWER = 'Roll back to v2.13.2.';
/** Long enough that the first invocation passes the token threshold (compaction after it). */
const LOGS = Array.from({ length: 80 }, (_, line) => `14:02:${line} checkout retry ${line}`).join(
  '\n',
);

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe.skipIf(skipBrowser)('the inspector page while the Runner runs the session', () => {
  let fixture: InspectorFixture;
  const answerGate = gate();
  const model = new ScriptedModel({
    script: [
      toolCallResponse([{ id: 'call-1', name: 'read_logs', args: { service: 'checkout' } }]),
      async () => {
        await answerGate.opened;
        return textResponse(FIRST_ANSWER);
      },
      textResponse(SECOND_ANSWER),
    ],
  });
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
                execute: async () => ({ output: LOGS }),
              }),
            ],
          }),
          sessionService: service,
          compaction: { tokenThreshold: 400, eventRetentionSize: 2 },
          summarizer: new DigestSummarizer(),
          logger: false,
          background: true,
        }),
    });
    await fixture.service.createSession(RUN);
  }, 120_000);
  afterAll(async () => {
    answerGate.open();
    await fixture?.close();
  });

  const run = (text: string) =>
    fetch(`${fixture.url}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN_ALICE}` },
      body: JSON.stringify({
        appName: RUN.appName,
        userId: RUN.userId,
        sessionId: RUN.sessionId,
        newMessage: { role: 'user', parts: [{ text }] },
      }),
    });

  it('shows the events of a run as the Runner stores them, then its compaction', async () => {
    const browser = await openBrowser({ token: TOKEN_ALICE });
    try {
      const { page } = browser;
      await page.goto(
        `${fixture.url}/#/apps/${RUN.appName}/users/${RUN.userId}/sessions/${RUN.sessionId}`,
      );
      await page.locator('.live-status[data-status="live"]').waitFor({ timeout: 60_000 });
      expect(await page.locator('.session-meta .counts').textContent()).toContain('0 events');
      await page.evaluate('window.loadedOnce = true');

      let answered = false;
      const response = run(QUESTION).then((result) => {
        answered = true;
        return result;
      });
      // The question, the tool call and its result, while the model's answer is held back.
      const question = page.locator('.row[data-seq="1"]');
      await question.waitFor({ timeout: 60_000 });
      expect(await question.getAttribute('data-kind')).toBe('user');
      expect(await question.locator('.preview').textContent()).toBe(QUESTION);
      await page.locator('.row[data-seq="2"][data-kind="tool-call"]').waitFor({ timeout: 60_000 });
      await page
        .locator('.row[data-seq="3"][data-kind="tool-result"]')
        .waitFor({ timeout: 60_000 });
      // The run is still on: its second model call is waiting at the gate.
      expect(answered).toBe(false);
      expect(model.calls).toHaveLength(2);
      expect(model.remaining).toBe(1);

      answerGate.open();
      const answer = page.locator('.row[data-kind="model"]', { hasText: FIRST_ANSWER });
      await answer.waitFor({ timeout: 60_000 });
      expect(await answer.locator('.preview').textContent()).toBe(FIRST_ANSWER);
      expect((await response).status).toBe(200);

      // The Runner's compactions (before the answer's request and after the invocation, in
      // the background): each a span and a summary, as stored.
      await fixture.server.server.runner.flush();
      const stored = await fixture.service.listEvents(RUN);
      const compactions = stored.events.filter((event) => event.actions?.compaction);
      expect(compactions.length).toBeGreaterThan(0);
      await expect
        .poll(
          () =>
            page
              .locator('.span')
              .evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-seq')))),
          { timeout: 60_000 },
        )
        .toEqual(compactions.map((event) => event.seq));
      for (const event of compactions) {
        expect(
          await page.locator(`.compaction[data-seq="${event.seq}"] .summary-text`).textContent(),
        ).toBe(getText(event.actions!.compaction!.compactedContent));
      }
      const compactionCount = `${compactions.length} compaction${compactions.length === 1 ? '' : 's'}`;
      await expect
        .poll(() => page.locator('.session-meta .counts').textContent(), { timeout: 60_000 })
        .toBe(`${stored.events.length} events · ${compactionCount}`);

      // The next request's view, then a second run: the view follows it.
      await page.getByLabel('Next request (view)').check();
      const firstViewRow = page.locator('.row[aria-posinset="1"]');
      await expect
        .poll(() => firstViewRow.getAttribute('data-kind'), { timeout: 60_000 })
        .toBe('compaction');
      expect((await run('What should we roll back?')).status).toBe(200);
      const secondAnswer = page.locator('.row[data-kind="model"]', { hasText: SECOND_ANSWER });
      await secondAnswer.waitFor({ timeout: 60_000 });
      await fixture.server.server.runner.flush();
      const view = await fixture.service.loadView(RUN);
      const expected = [view.checkpoint?.seq, ...view.tail.map((event) => event.seq)].filter(
        (seq) => seq !== undefined,
      );
      await expect
        .poll(
          () =>
            page
              .locator('.row[data-seq]')
              .evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-seq')))),
          { timeout: 60_000 },
        )
        .toEqual(expected);
      await expect
        .poll(() => page.locator('.view-summary').textContent(), { timeout: 60_000 })
        .toMatch(new RegExp(`holds ${expected.length} events`));
      expect(model.remaining).toBe(0);
      // Still the same document: nothing reloaded it.
      expect(await page.evaluate('window.loadedOnce')).toBe(true);
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 240_000);
});
