import { afterAll, beforeAll, expect, it } from 'vitest';
import { axeViolations, describeBrowser, ready, screenshot, SCREENSHOTS, startLab, type Lab } from './harness.js';

describeBrowser('accessibility and layout', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('axe-core finds no serious or critical violation on the main views, light and dark', async () => {
    const found: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      // The clients' code open, in the lab and then in Compare, so its marked lines are checked too.
      const page = await lab.page('#/lab?s=pause-past-expiry&t=27&arrows=1&code=1');
      await ready(page);
      await page.evaluate((t) => window.__locklab!.ui.getState().set({ theme: t }), theme);
      found.push(...(await axeViolations(page, `lab (${theme})`)));
      if (theme === 'dark') await screenshot(page, 'lab-dark');
      await page.getByRole('button', { name: 'Help (?)' }).click();
      await page.getByTestId('help').waitFor({ state: 'visible' });
      found.push(...(await axeViolations(page, `help (${theme})`)));
      await screenshot(page, `help-${theme}`);
      await page.keyboard.press('Escape');
      for (const view of ['Sandbox', 'Compare', 'Stores']) {
        await page.getByRole('button', { name: view, exact: true }).click();
        if (view === 'Compare') await page.locator('figure.timeline').nth(1).waitFor();
        if (view === 'Sandbox') await page.locator('[data-client-card]').first().waitFor();
        found.push(...(await axeViolations(page, `${view} (${theme})`)));
      }
      await page.close();
    }
    expect(found).toEqual([]);
  });

  it("a story's stops are named for a screen reader, the one on screen marked as the current step and those before it as seen", async () => {
    const page = await lab.page('#/lesson/04-pause-past-expiry?at=stop-gc-pause-b-takes');
    const stops = page.locator('section[data-story="gc-pause"]').getByRole('list', { name: 'Stops of the story' });
    await expect.poll(() => stops.locator('[aria-current="step"]').count(), { timeout: 15_000 }).toBe(1);
    const names = await stops
      .getByRole('link')
      .evaluateAll((as) => as.map((a) => `${a.getAttribute('aria-label')}${a.getAttribute('aria-current') === 'step' ? ' (current)' : ''}`));
    expect(names.slice(0, 5)).toEqual(['Stop 1, seen', 'Stop 2, seen', 'Stop 3, seen', 'Stop 4 (current)', 'Stop 5']);
    expect(await stops.ariaSnapshot()).toContain('link "Stop 4"');
    await stops.screenshot({ path: `${SCREENSHOTS}/story-stops-current.png` });
    await page.close();
  });

  it('works at tablet width: nothing wider than the window, the side panel below the timeline', async () => {
    const page = await lab.page('#/lab?s=release-by-plain-del&t=30', { width: 768, height: 1024 });
    await ready(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const timeline = await page.locator('figure.timeline').boundingBox();
    const panel = await page.locator('aside.side-panel').boundingBox();
    expect(panel!.y).toBeGreaterThan(timeline!.y + timeline!.height - 1);
    await screenshot(page, 'lab-tablet');
  });

  it('keeps belief beside truth in view: the side panel beside the timeline down to 1024 px, a sticky summary below that', async () => {
    const wide = await lab.page('#/lab?s=pause-past-expiry&t=27', { width: 1024, height: 768 });
    await ready(wide);
    const timeline = (await wide.locator('figure.timeline').boundingBox())!;
    const table = (await wide.getByTestId('belief-table').boundingBox())!;
    expect(table.x).toBeGreaterThan(timeline.x + timeline.width);
    expect(table.y + 60).toBeLessThan(768);
    expect(await wide.getByTestId('sticky-summary').isVisible()).toBe(false);
    await transportOnOneRow(wide, '1024');
    await screenshot(wide, 'lab-1024');

    const narrow = await lab.page('#/lab?s=pause-past-expiry&t=27', { width: 800, height: 900 });
    await ready(narrow);
    const summary = narrow.getByTestId('sticky-summary');
    await summary.waitFor();
    const at = async () => (await summary.boundingBox())!;
    expect((await at()).y + (await at()).height).toBeLessThanOrEqual(900);
    expect(await summary.locator('li[data-client="A"]').textContent()).toBe('A believes ● A:1 · store □ nothing ⚠');
    expect(await summary.textContent()).toContain('Stale write accepted');
    // Scrolled down to the event log, the summary is still on screen.
    await narrow.locator('.event-log').scrollIntoViewIfNeeded();
    await narrow.mouse.wheel(0, 600);
    await narrow.waitForTimeout(200);
    const scrolled = await at();
    expect(scrolled.y).toBeGreaterThanOrEqual(0);
    expect(scrolled.y + scrolled.height).toBeLessThanOrEqual(901);
    await transportOnOneRow(narrow, '800');
    await screenshot(narrow, 'lab-800');
  });

  it('nothing scrolls sideways on a 390 px phone, on any view', async () => {
    for (const hash of [
      '#/lab?s=pause-past-expiry&t=27',
      '#/sandbox',
      '#/compare?s=pause-past-expiry&b=1&bset=clients.A.ttlMs%3D20000&code=1&t=18',
      '#/stores',
    ]) {
      const page = await lab.page(hash, { width: 390, height: 844 });
      await page.locator('main').waitFor();
      await page.waitForTimeout(600);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, hash).toBeLessThanOrEqual(0);
      await screenshot(page, `phone-${hash.split('?')[0]!.replace(/\W/g, '')}`);
      await page.close();
    }
  });

  it('on a 390 px phone the header takes two rows with every view in reach, and the timeline starts on the first screen', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry&t=27', { width: 390, height: 844 });
    await ready(page);
    const tabs = await page
      .getByRole('navigation', { name: 'Views' })
      .getByRole('button')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
    expect(tabs).toHaveLength(6);
    expect(Math.max(...tabs)).toBeLessThanOrEqual(390);
    const header = (await page.locator('header.top').boundingBox())!;
    expect(header.height).toBeLessThanOrEqual(90);
    const lane = (await page.locator('[data-lane="client:A"]').first().boundingBox())!;
    expect(lane.y).toBeLessThan(500);
    await screenshot(page, 'phone-lab-first-screen');
  });
});

/** All the transport's controls share one row (their vertical centres agree). */
async function transportOnOneRow(page: import('playwright-core').Page, label: string): Promise<void> {
  const centres = await page.locator('.transport > *').evaluateAll((els) =>
    els.map((e) => {
      const b = e.getBoundingClientRect();
      return Math.round((b.top + b.bottom) / 2);
    }),
  );
  expect(Math.max(...centres) - Math.min(...centres), `${label}: the transport is one row`).toBeLessThanOrEqual(4);
  const t = (await page.locator('.transport').boundingBox())!;
  for (const b of await page.locator('.transport > *').all()) {
    const box = (await b.boundingBox())!;
    expect(box.x + box.width, `${label}: inside the transport`).toBeLessThanOrEqual(t.x + t.width + 1);
  }
}
