import { afterAll, beforeAll, expect, it } from 'vitest';
import { axeViolations, describeBrowser, ready, screenshot, startLab, type Lab } from './harness.js';

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
      const page = await lab.page('#/lab?s=pause-past-expiry&t=27&arrows=1');
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
});
