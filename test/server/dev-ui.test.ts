/**
 * ADK's own web UI (`@google/adk-devtools`' browser bundle, served by `--dev-ui`) as a real
 * client, in headless Chromium: it lists the app, creates a session, sends a message over
 * /run_sse and shows the answer; the ADK tooling routes orrery does not serve answer 501 and
 * the chat works regardless. Needs Debian's `chromium` (never downloaded): the test fails under
 * CI=true when it is missing and is skipped otherwise.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { findDevUiRoot } from '../../src/server/routes/dev-ui.js';
import { APP, startTestServer } from '../../src/server/test-helpers/test-server.js';
import { textResponse } from '../../src/testing/scripted-model.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ANSWER = 'The answer is forty-two.';

const available = existsSync(CHROMIUM);
if (!available && process.env.CI !== 'true') {
  console.warn(
    `[orrery] skipping the ADK web UI test: no ${CHROMIUM} (apt-get install -y chromium)`,
  );
}

describe.skipIf(!available && process.env.CI !== 'true')(
  "ADK's web UI against orrery serve --dev-ui",
  () => {
    it('lists the app, creates a session, sends a message over /run_sse and shows the answer', async () => {
      if (!available)
        throw new Error(
          `CI=true but ${CHROMIUM} is missing: .ci/run installs it (apt-get install -y chromium)`,
        );
      const server = await startTestServer({
        script: [textResponse(ANSWER)],
        serverOptions: { devUiRoot: findDevUiRoot() },
      });
      const profile = mkdtempSync(join(tmpdir(), 'orrery-chromium-'));
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: ARGS,
      });
      try {
        // Offline: the UI's web fonts are refused at once rather than looked up.
        await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
        const page = context.pages()[0] ?? (await context.newPage());
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
        expect(stored.events.map((event) => [event.author, event.content?.parts[0]?.text])).toEqual(
          [
            ['user', 'What is the answer?'],
            ['assistant', ANSWER],
          ],
        );
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
        await context.close();
        rmSync(profile, { recursive: true, force: true });
        await server.close();
      }
    }, 120_000);
  },
);
