import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS, normalizeScenario, runScenario } from '../../sim/index.js';
import { describeBrowser, ready, screenshot, startLab, type Lab } from './harness.js';

const nodeRun = (name: string) => runScenario(normalizeScenario(BUILTIN_SCENARIOS[name], name));

describeBrowser('the lab replays scenarios written as steps', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('auto-release-fork: the forked child gets a lane of its own, and the verdict is the one Node reaches', async () => {
    const page = await lab.page('#/lab?s=auto-release-fork');
    await ready(page);
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('unsafe');
    expect(await page.locator('text.lane-name', { hasText: 'A/child1' }).count()).toBe(1);
    await expect.poll(() => page.locator('[data-mark="double-ownership"]').count()).toBe(nodeRun('auto-release-fork').verdict.doubleOwnership.length);
    await screenshot(page, 'lab-auto-release-fork');
    expect(lab.errors).toEqual([]);
  });

  it('finally-after-exception and lock-expired-on-acquire: the exceptions read as sentences, the lock-out is in the verdict', async () => {
    const page = await lab.page('#/lab?s=finally-after-exception');
    await ready(page);
    await expect.poll(() => page.getByTestId('verdict').textContent()).toMatch(/B was locked out for 9\.\d+ s/);
    await screenshot(page, 'lab-finally-after-exception');
    const expired = await lab.page('#/lab?s=lock-expired-on-acquire');
    await ready(expired);
    // The last event: A's script ended by the exception nobody caught.
    await expired.keyboard.press('End');
    await expect.poll(() => expired.getByTestId('current-event').textContent()).toMatch(/A@app1 ends: uncaught LockAcquiringException/);
    await screenshot(expired, 'lab-lock-expired-on-acquire');
    expect(lab.errors).toEqual([]);
  });
});
