import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS, normalizeScenario, runScenario } from '../../sim/index.js';
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
    await expect
      .poll(() => page.getByTestId('verdict').textContent())
      .toMatch(/B waited 9\.\d+ s for the lock, 9\.\d+ s of it while nobody was using the lock \(its lock-out time\)/);
    await screenshot(page, 'lab-finally-after-exception');
    const expired = await lab.page('#/lab?s=lock-expired-on-acquire');
    await ready(expired);
    // The last event: A's script ended by the exception nobody caught.
    await expired.keyboard.press('End');
    await expect.poll(() => expired.getByTestId('current-event').textContent()).toMatch(/A@app1 ends: uncaught LockAcquiringException/);
    await screenshot(expired, 'lab-lock-expired-on-acquire');
    expect(lab.errors).toEqual([]);
  });

  it('auto-release-fork: the child’s lane says whose child it is, the fork is a mark on the parent’s lane, and the legend names both', async () => {
    const page = await lab.page('#/lab?s=auto-release-fork', { width: 1440, height: 900 });
    await ready(page);
    const child = page.locator('[data-lane="client:A/child1"]');
    expect(await child.locator('text.lane-machine').textContent()).toBe('child of A');
    expect(await child.locator('title').first().textContent()).toBe('A/child1 on app1, child of A (forked with a copy of its Lock)');
    const fork = page.locator('[data-mark="process.fork"]');
    expect(await fork.count()).toBe(1);
    expect(await fork.locator('title').textContent()).toMatch(/^forks A\/child1 at 0\.002/);
    // The fork is A's event: clicking it inspects it.
    await fork.click();
    await expect.poll(() => page.getByTestId('current-event').textContent()).toMatch(/A@app1 FORKS: child A\/child1 starts with a copy of its Lock/);
    const legend = page.getByTestId('legend');
    expect(await legend.locator('[data-legend="fork"]').textContent()).toContain('fork: the child gets a copy of the Lock');
    expect(await legend.locator('[data-legend="child"]').textContent()).toContain('child of A');
    expect(await legend.locator('[data-legend="exception"]').count()).toBe(0);
    expect(lab.errors).toEqual([]);
  });

  it('finally-after-exception: A’s exception is a mark that says what was thrown, and B’s lock-out is a finding, marked and listed', async () => {
    const page = await lab.page('#/lab?s=finally-after-exception', { width: 1440, height: 900 });
    await ready(page);
    const thrown = page.locator('[data-mark="exception.user"]');
    expect(await thrown.count()).toBe(1);
    const seq = await thrown.getAttribute('data-seq');
    expect(await page.locator(`text.mark-label[data-label-of="${seq}"]`).textContent()).toBe('throws RuntimeException');
    expect(await page.getByTestId('legend').locator('[data-legend="exception"]').textContent()).toContain('exception thrown');
    // The lock-out is the story: numbered on the timeline and in the verdict, while mutual exclusion still held.
    const verdict = page.getByTestId('verdict');
    expect(await verdict.getAttribute('data-outcome')).toBe('safe');
    expect(await verdict.textContent()).toContain('mutual exclusion held');
    const finding = verdict.locator('li[data-finding="lock-out"]');
    expect(await finding.textContent()).toMatch(
      /Locked out: B waited 9 s for nothing: the store kept it for A, which no longer used it \(an exception skipped its release\)/,
    );
    expect(await page.locator('[data-mark="finding"][data-finding="lock-out"]').count()).toBe(1);
    await finding.locator('button').click();
    await expect.poll(() => page.getByTestId('current-event').textContent()).toMatch(/B@app2 .*held by A:1/);
    // The summary's fix runs from its button, and the lock-out is gone.
    await page.locator('.fix-button', { hasText: 'clients.A.steps[0].finally' }).click();
    await expect.poll(() => page.locator('[data-mark="finding"][data-finding="lock-out"]').count()).toBe(0);
    expect(await page.locator('[data-mark="exception.user"]').count()).toBe(1);
    expect(await page.getByTestId('scenario-summary').textContent()).not.toContain('--set');
    await screenshot(page, 'lab-finally-after-exception-marks');
    expect(lab.errors).toEqual([]);
  });

  it('lock-expired-on-acquire: Symfony’s exception at the end of the run is labelled, on the side where there is room', async () => {
    const page = await lab.page('#/lab?s=lock-expired-on-acquire', { width: 1440, height: 900 });
    await ready(page);
    const mark = page.locator('[data-mark="exception.expired"]');
    expect(await mark.count()).toBe(1);
    const label = page.locator(`text.mark-label[data-label-of="${await mark.getAttribute('data-seq')}"]`);
    expect(await label.textContent()).toBe('acquire() throws LockAcquiringException');
    // It ends the run, so its words go to the left of the mark, inside the plot.
    const m = (await mark.locator('circle.glyph-bg').boundingBox())!;
    const l = (await label.boundingBox())!;
    const plot = (await page.locator('figure.timeline svg.timeline-svg').first().boundingBox())!;
    expect(l.x + l.width).toBeLessThanOrEqual(m.x);
    expect(l.x).toBeGreaterThan(plot.x + 150);
    expect(lab.errors).toEqual([]);
  });

  it('remaining-lifetime-refresh: each refresh is a mark on A’s belief, as many as the trace has', async () => {
    const page = await lab.page('#/lab?s=remaining-lifetime-refresh', { width: 1440, height: 900 });
    await ready(page);
    const refreshes = nodeRun('remaining-lifetime-refresh').events.filter((e) => e.kind === 'refresh.ok').length;
    expect(refreshes).toBeGreaterThan(1);
    expect(await page.locator('[data-mark="refresh.ok"]').count()).toBe(refreshes);
    expect(await page.getByTestId('legend').locator('[data-legend="refresh"]').textContent()).toContain('lease refreshed');
    expect(lab.errors).toEqual([]);
  });

  it('never-expiring-lock: B giving up is a mark on its lane, with the number of attempts, and the legend explains it', async () => {
    const page = await lab.page('#/lab?s=never-expiring-lock', { width: 1440, height: 900 });
    await ready(page);
    const giveup = nodeRun('never-expiring-lock').events.find((e) => e.kind === 'acquire.giveup')!;
    const mark = page.locator('[data-mark="acquire.giveup"]');
    expect(await mark.count()).toBe(1);
    expect(await mark.getAttribute('data-seq')).toBe(String(giveup.seq));
    expect(await mark.locator('title').textContent()).toMatch(new RegExp(`^gives up after ${String(giveup.data?.attempts)} attempts at 21\\.`));
    expect(await page.getByTestId('legend').locator('[data-legend="giveup"]').textContent()).toContain('gives up: stops trying to get the lock');
    expect(lab.errors).toEqual([]);
  });

  it('random-gc-pauses: nine windows of double ownership in a row are named once, with how many follow, not nine names over each other', async () => {
    const page = await lab.page('#/lab?s=random-gc-pauses', { width: 1440, height: 900 });
    await ready(page);
    const windows = nodeRun('random-gc-pauses').verdict.doubleOwnership.length;
    expect(windows).toBe(9);
    expect(await page.locator('[data-mark="double-ownership"]').count()).toBe(windows);
    expect(await page.locator('[data-mark="double-ownership"] text.band-label').allTextContents()).toEqual(['⚠ A & B both believe (+8 more windows)']);
    // Zoomed in on the first two windows, each has room for its own name.
    const first = nodeRun('random-gc-pauses').verdict.doubleOwnership[0]!;
    await page.evaluate(([from, to]) => window.__locklab!.ui.getState().set({ domain: [from!, to!] }), [first.fromUs - 200_000, first.toUs + 6_000_000]);
    await expect.poll(() => page.locator('[data-mark="double-ownership"] text.band-label').count()).toBeGreaterThan(1);
    expect(lab.errors).toEqual([]);
  });

  it('every glyph any built-in scenario draws is explained in the legend under it', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry', { width: 1440, height: 900 });
    await ready(page);
    const missing: string[] = [];
    for (const name of BUILTIN_NAMES) {
      await page.getByTestId('scenario-select').selectOption(name);
      await expect.poll(() => page.locator('figure.timeline .timeline-title > span').first().textContent()).toBe(name);
      const drawn = new Set(await page.locator('figure.timeline g[data-mark] > text.glyph').allTextContents());
      const explained = new Set(await page.getByTestId('legend').locator('text.legend-glyph').allTextContents());
      for (const g of drawn) if (!explained.has(g)) missing.push(`${name}: ${g}`);
    }
    expect(missing).toEqual([]);
    expect(lab.errors).toEqual([]);
  });
});
