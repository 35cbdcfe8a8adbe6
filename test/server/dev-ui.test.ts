/**
 * ADK's own web UI (`@google/adk-devtools`' browser bundle, served by `--dev-ui`) as a real
 * client, in headless Chromium: it lists the app, creates a session, sends a message over
 * /run_sse and shows the answer; the ADK tooling routes orrery does not serve answer 501 and
 * the chat works regardless. Needs Debian's `chromium` (never downloaded; `test/inspector/
 * chromium.ts`): the test fails under CI=true when it is missing and is skipped otherwise.
 */
import { describe, expect, it } from 'vitest';
import { findDevUiRoot } from '../../src/server/index.js';
import { APP, startTestServer } from '../../src/server/test-helpers/test-server.js';
import { textResponse } from '../../src/testing/index.js';
import { openBrowser, skipBrowser } from '../inspector/chromium.js';

const ANSWER = 'The answer is forty-two.';

describe.skipIf(skipBrowser)("ADK's web UI against orrery serve --dev-ui", () => {
  it('lists the app, creates a session, sends a message over /run_sse and shows the answer', async () => {
    const server = await startTestServer({
      script: [textResponse(ANSWER)],
      serverOptions: { devUiRoot: findDevUiRoot() },
    });
    // Offline (requests off this machine are refused): the UI's web fonts fail at once.
    const browser = await openBrowser().catch(async (error: unknown) => {
      await server.close();
      throw error;
    });
    try {
      const page = browser.page;
      const answered: Array<{ method: string; path: string; status: number }> = [];
      page.on('response', (response) => {
        const url = new URL(response.url());
        if (url.host === new URL(server.url).host && !url.pathname.startsWith('/dev-ui')) {
          answered.push({
            method: response.request().method(),
            path: url.pathname,
            status: response.status(),
          });
        }
      });
      await page.goto(`${server.url}/dev-ui/?app=${APP}`);
      // The app the server lists is the one selected.
      await page.getByText(APP, { exact: true }).first().waitFor({ timeout: 30_000 });

      const input = page.locator('textarea');
      await input.waitFor({ timeout: 30_000 });
      await input.fill('What is the answer?');
      await input.press('Enter');
      await page.getByText(ANSWER).first().waitFor({ timeout: 30_000 });

      const sessions = await server.service.listSessions({ appName: APP, userId: 'user' });
      expect(sessions).toHaveLength(1);
      const stored = await server.service.listEvents({
        appName: APP,
        userId: 'user',
        sessionId: sessions[0]!.sessionId,
      });
      expect(stored.events.map((event) => [event.author, event.content?.parts[0]?.text])).toEqual([
        ['user', 'What is the answer?'],
        ['assistant', ANSWER],
      ]);
      const calls = answered.map((item) => `${item.method} ${item.path} ${item.status}`);
      expect(calls).toContain('GET /list-apps 200');
      expect(calls).toContain(`POST /apps/${APP}/users/user/sessions 200`);
      expect(calls).toContain('POST /run_sse 200');
      // Whatever else it asked for is ADK tooling, answered 501; nothing failed otherwise.
      const failed = answered.filter((item) => item.status >= 400);
      expect(failed.length).toBeGreaterThan(0);
      for (const item of failed) {
        expect(item.status).toBe(501);
        expect(item.path).toMatch(/^\/(dev|debug)\//);
      }
    } finally {
      await browser.close();
      await server.close();
    }
  }, 120_000);
});
