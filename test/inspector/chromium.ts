/**
 * Headless Debian Chromium for the browser tests, the inspector pages' and ADK's web UI's
 * (`test/server/dev-ui.test.ts`), never a downloaded browser: the tests fail under CI=true when
 * it is missing and are skipped otherwise. Screenshots go to `test-results/inspector/`
 * (gitignored). One Chromium a test file, closed after it; each test gets its own context (no
 * cookie, storage or cache of another test's): launching Chromium took 1.4 s a test on the
 * 2-core machine, a new context 0.65 s (docs/testing.md).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BrowserContext,
  chromium,
  type Page,
  type Browser as PlaywrightBrowser,
} from 'playwright-core';
import { afterAll } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
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

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCREENSHOTS = join(ROOT, 'test-results', 'inspector');

export const chromiumAvailable = existsSync(CHROMIUM);
/** Skip (with a note) only outside CI. */
export const skipBrowser = !chromiumAvailable && process.env.CI !== 'true';
if (skipBrowser) {
  console.warn(`[orrery] skipping the browser tests: no ${CHROMIUM} (apt-get install -y chromium)`);
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and console errors other than a refused request's. */
  errors: string[];
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** This test file's Chromium, launched by the first `openBrowser`. */
let launched: Promise<PlaywrightBrowser> | undefined;

// Registered on the importing test file: its Chromium ends with it.
afterAll(async () => {
  const browser = launched;
  launched = undefined;
  if (browser) await (await browser).close();
});

/**
 * A fresh context (nothing of another test's: no cookie, storage or cache); every request off
 * this machine is refused (the page must work offline).
 */
export async function openBrowser(options: { token?: string } = {}): Promise<Browser> {
  if (!chromiumAvailable) {
    throw new Error(
      `CI=true but ${CHROMIUM} is missing: .ci/run installs it (apt-get install -y chromium)`,
    );
  }
  launched ??= chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const context = await (await launched).newContext({ viewport: { width: 1400, height: 900 } });
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  if (options.token) {
    // As the token form would leave it (a script: this project's types have no DOM).
    await context.addInitScript({
      content: `sessionStorage.setItem('orrery.inspector.token', ${JSON.stringify(options.token)});`,
    });
  }
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A 401 or 404 the page handles still logs "Failed to load resource".
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      errors.push(`console: ${message.text()}`);
    }
  });
  return {
    context,
    page,
    errors,
    async screenshot(name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      const path = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path, fullPage: false });
      return path;
    },
    async close() {
      await context.close();
    },
  };
}
