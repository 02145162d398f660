import { afterAll, beforeAll, expect, it } from 'vitest';
import { STORE_TABLE } from '../../sim/index.js';
import { describeBrowser, ready, screenshot, startLab, type Lab } from './harness.js';

describeBrowser('the stores page', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('lists every row of the capability table, and each hazard link opens its scenario in the lab', async () => {
    const page = await lab.page('#/stores');
    const rows = page.locator('[data-testid="stores-table"] tbody tr');
    await expect.poll(() => rows.count()).toBe(STORE_TABLE.length);
    for (const row of STORE_TABLE) {
      const tr = page.locator(`tr[data-store-row="${row.name}"]`);
      expect(await tr.locator('th').textContent()).toBe(row.title);
      const words =
        row.hazardSets.length === 0 ? row.hazardScenario : `${row.hazardScenario}, with ${row.hazardSets.map((o) => o.replace('=', ' = ')).join(' and ')}`;
      expect(await tr.getByRole('link').textContent()).toBe(words);
      expect(await tr.textContent()).not.toContain('--set');
    }
    await screenshot(page, 'stores');
    const first = STORE_TABLE[0]!;
    await page.locator(`tr[data-store-row="${first.name}"]`).getByRole('link').click();
    await ready(page);
    await expect.poll(() => page.getByTestId('scenario-select').inputValue()).toBe(first.hazardScenario);
    // A row whose hazard runs on a sibling's scenario opens it with its overrides: the recipe, fencing on.
    const recipe = STORE_TABLE.find((r) => r.hazardSets.length > 0)!;
    await page.goto(`${page.url().split('#')[0]}#/stores`);
    await page.locator(`tr[data-store-row="${recipe.name}"]`).getByRole('link').click();
    await ready(page);
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('fenced');
    expect(lab.errors).toEqual([]);
  });
});
