/**
 * Headless Debian Chromium for the browser tests, the inspector pages' and ADK's web UI's
 * (`test/server/dev-ui.test.ts`), never a downloaded browser: the tests fail under CI=true when
 * it is missing and are skipped otherwise. Screenshots go to `test-results/inspector/`
 * (gitignored).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

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

/** A fresh profile; every request off this machine is refused (the page must work offline). */
export async function openBrowser(options: { token?: string } = {}): Promise<Browser> {
  if (!chromiumAvailable) {
    throw new Error(
      `CI=true but ${CHROMIUM} is missing: .ci/run installs it (apt-get install -y chromium)`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'orrery-inspector-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 900 },
  });
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  if (options.token) {
    // As the token form would leave it (a script: this project's types have no DOM).
    await context.addInitScript({
      content: `sessionStorage.setItem('orrery.inspector.token', ${JSON.stringify(options.token)});`,
    });
  }
  const page = context.pages()[0] ?? (await context.newPage());
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
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
