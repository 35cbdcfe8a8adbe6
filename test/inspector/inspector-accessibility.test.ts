/**
 * The inspector page's accessibility basics in headless Chromium: every control is a real
 * control (nothing clickable is a bare element), every form field has a name from a label, the
 * keyboard focus is always drawn, and the timeline's rows are reached from the keyboard (Tab,
 * then the arrow keys, Page Up/Down, Home and End, rows not drawn yet included).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, openBrowser, skipBrowser } from './chromium.js';
import {
  INCIDENT,
  type InspectorFixture,
  startInspectorFixture,
  TOKEN_ALICE,
} from './inspector-fixture.js';

/** The browser's globals used in `page.evaluate` (this project's types have no DOM lib). */
interface DomElement {
  tagName: string;
  id: string;
  className: unknown;
  parentElement: DomElement | null;
  closest(selector: string): DomElement | null;
  getAttribute(name: string): string | null;
  labels?: ArrayLike<unknown> | null;
  textContent: string | null;
  blur(): void;
}
declare const document: {
  activeElement: DomElement | null;
  body: DomElement;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
};
declare function getComputedStyle(element: DomElement): {
  cursor: string;
  outlineStyle: string;
  outlineWidth: string;
};

const CONTROLS = ['BUTTON', 'A', 'LABEL', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY'];
const hashOf = (key: { appName: string; userId: string; sessionId: string }) =>
  `#/apps/${key.appName}/users/${key.userId}/sessions/${key.sessionId}`;

/** Elements that look clickable (a pointer cursor) but are no control nor inside one. */
async function bareClickables(browser: Browser): Promise<string[]> {
  return browser.page.evaluate((controls) => {
    const found: string[] = [];
    for (const element of Array.from(document.querySelectorAll('body *'))) {
      if (getComputedStyle(element).cursor !== 'pointer') continue;
      let inControl = false;
      for (let node: DomElement | null = element; node; node = node.parentElement) {
        if (controls.includes(node.tagName)) inControl = true;
      }
      if (!inControl) found.push(`${element.tagName}.${String(element.className)}`);
    }
    return found;
  }, CONTROLS);
}

/** Form fields without a label, `aria-label` or `aria-labelledby`. */
async function unnamedFields(browser: Browser): Promise<string[]> {
  return browser.page.evaluate(() =>
    Array.from(document.querySelectorAll('input, select, textarea'))
      .filter(
        (field) =>
          (field.labels?.length ?? 0) === 0 &&
          !field.getAttribute('aria-label') &&
          !field.getAttribute('aria-labelledby'),
      )
      .map((field) => `${field.tagName}#${field.id}[name=${field.getAttribute('name')}]`),
  );
}

/** Tabs `count` times; each stop's element, and whether its focus outline is drawn. */
async function tabStops(browser: Browser, count: number) {
  const stops: Array<{ element: string; outline: boolean }> = [];
  for (let step = 0; step < count; step++) {
    await browser.page.keyboard.press('Tab');
    stops.push(
      await browser.page.evaluate(() => {
        const element = document.activeElement ?? document.body;
        const style = getComputedStyle(element);
        return {
          element: `${element.tagName}.${String(element.className)}`,
          outline: style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0,
        };
      }),
    );
  }
  return stops;
}

/** The 1-based row position of the focused element's timeline row, or null. */
async function focusedRow(browser: Browser): Promise<number | null> {
  return browser.page.evaluate(() => {
    const row = document.activeElement?.closest('.row');
    return row ? Number(row.getAttribute('aria-posinset')) : null;
  });
}

describe.skipIf(skipBrowser)('the inspector page from the keyboard', () => {
  let fixture: InspectorFixture;
  beforeAll(async () => {
    fixture = await startInspectorFixture();
  }, 120_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it('has real controls, named fields and a drawn focus on every screen', async () => {
    const browser = await openBrowser();
    try {
      const { page } = browser;
      // The token form (the API answers 401 without one).
      await page.goto(`${fixture.url}/`);
      await page.getByLabel('Bearer token').fill(TOKEN_ALICE);
      expect(await unnamedFields(browser)).toEqual([]);
      await page.getByRole('button', { name: 'Use token' }).click();
      await page.locator('table.sessions tbody tr').first().waitFor();

      for (const hash of ['#/', hashOf(INCIDENT), `${hashOf(INCIDENT)}?view=next`, '#/replay']) {
        await page.goto(`${fixture.url}/${hash}`);
        await page.locator('main h1').waitFor();
        if (hash.includes('/sessions/')) await page.locator('.row[data-seq]').first().waitFor();
        expect(await bareClickables(browser), hash).toEqual([]);
        expect(await unnamedFields(browser), hash).toEqual([]);
        await page.evaluate(() => document.activeElement?.blur());
        const stops = await tabStops(browser, 14);
        expect(stops.filter((stop) => stop.element !== 'BODY.').length).toBeGreaterThan(5);
        expect(
          // Past the last stop the focus leaves the page (the body): nothing to draw.
          stops.filter((stop) => !stop.outline && stop.element !== 'BODY.'),
          `${hash}: ${JSON.stringify(stops)}`,
        ).toEqual([]);
      }
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 180_000);

  it('reaches every timeline row from the keyboard', async () => {
    const browser = await openBrowser({ token: TOKEN_ALICE });
    try {
      const { page } = browser;
      await page.goto(`${fixture.url}/${hashOf(INCIDENT)}`);
      await page.locator('.row[data-seq="1"]').waitFor();
      const rows = Number(await page.locator('.row').first().getAttribute('aria-setsize'));
      expect(rows).toBe(22);

      // Tab from the timeline region: the compaction spans, then the first row's Show button.
      await page.locator('.timeline-scroller').focus();
      let row: number | null = null;
      for (let step = 0; step < 10 && row === null; step++) {
        await page.keyboard.press('Tab');
        row = await focusedRow(browser);
      }
      expect(row).toBe(1);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      expect(await focusedRow(browser)).toBe(3);
      await page.keyboard.press('ArrowUp');
      expect(await focusedRow(browser)).toBe(2);
      await page.keyboard.press('End');
      expect(await focusedRow(browser)).toBe(rows);
      expect(await page.locator(`.row[aria-posinset="${rows}"]`).isVisible()).toBe(true);
      await page.keyboard.press('PageUp');
      const afterPageUp = await focusedRow(browser);
      expect(afterPageUp).toBeLessThan(rows);
      await page.keyboard.press('Home');
      expect(await focusedRow(browser)).toBe(1);

      // Enter on a row's button shows the whole event; the focus stays on that row.
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.locator('.row[aria-posinset="2"] .event-json').waitFor();
      expect(await focusedRow(browser)).toBe(2);
      expect(
        await page.locator('.row[aria-posinset="2"] button.expand').getAttribute('aria-expanded'),
      ).toBe('true');
      await page.keyboard.press('ArrowDown');
      expect(await focusedRow(browser)).toBe(3);

      // "Show in timeline" in the compactions list moves the focus to that compaction's row.
      const [first] = fixture.compactions;
      await page
        .locator(`.compaction[data-seq="${first!.seq}"]`)
        .getByRole('button', { name: 'Show in timeline' })
        .click();
      expect(await focusedRow(browser)).toBe(first!.seq);
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
