import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, ready, screenshot, startLab, type Lab } from './harness.js';

describeBrowser('permalinks', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('a link restores the scenario, overrides, playhead, zoom and arrows exactly', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    await page.getByTestId('fencing-toggle').check();
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('fenced');
    await page.locator('main').click({ position: { x: 5, y: 5 } });
    for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('+');
    await page.keyboard.press('a');
    await expect.poll(() => page.url()).toContain('t=19');
    await expect.poll(() => page.url()).toContain('arrows=1');
    const url = page.url();
    expect(url).toContain('set=resource.fencing%3Dtrue');
    expect(url).toMatch(/z=\d+-\d+/);
    const before = await page.evaluate(() => ({ domain: window.__locklab!.ui.getState().domain, hash: window.__locklab!.primaryHash() }));
    const sentence = await page.getByTestId('current-event').textContent();

    const again = await lab.context.newPage();
    await again.goto(url);
    await ready(again);
    await expect.poll(() => again.getByTestId('current-event').textContent()).toBe(sentence);
    const after = await again.evaluate(() => ({ domain: window.__locklab!.ui.getState().domain, hash: window.__locklab!.primaryHash() }));
    expect(after).toEqual(before);
    expect(await again.getByTestId('fencing-toggle').isChecked()).toBe(true);
    expect(await again.locator('[data-mark="arrow"]').count()).toBeGreaterThan(0);
    expect(lab.errors).toEqual([]);
  });

  it('the address the lab writes for itself reloads cleanly on every view, before the first event too', async () => {
    for (const start of ['', '#/lab', '#/stores', '#/compare', '#/sandbox']) {
      const page = await lab.page(start);
      // The address settles once the first trace is shown (and, on Compare, its fencing variant).
      await expect.poll(() => page.evaluate(() => location.hash), { message: start }).toMatch(/^#\/\w+/);
      if (start === '#/compare') await expect.poll(() => page.evaluate(() => location.hash)).toContain('b=1');
      else await page.waitForTimeout(300);
      const written = await page.evaluate(() => location.hash);
      expect(written, start).not.toContain('t=-1');
      await page.reload();
      await page.waitForFunction(() => window.__locklab !== undefined);
      await page.waitForTimeout(300);
      expect(await page.getByTestId('notice').count(), `${start} → ${written}`).toBe(0);
      await page.close();
    }
    // Links written before this fix still open, at the start of the trace.
    const old = await lab.page('#/lab?s=pause-past-expiry&t=-1');
    await ready(old);
    await expect.poll(() => old.getByTestId('current-event').textContent()).toContain('Before the first event');
    expect(await old.getByTestId('notice').count()).toBe(0);
    expect(lab.errors).toEqual([]);
  });

  it('a damaged link says what is wrong and the lab still opens its first lesson', async () => {
    const page = await lab.page('#/lab?sc=this-is-not-deflate&t=3');
    await ready(page);
    const notice = page.getByTestId('notice');
    await expect.poll(() => notice.textContent()).toContain('This link is damaged');
    expect(await notice.textContent()).toContain('link: sc');
    await expect.poll(() => page.locator('[data-mark="double-ownership"]').count()).toBe(1);
    await screenshot(page, 'damaged-link');
    // The lab still works: stepping moves the playhead.
    await page.locator('main').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByTestId('current-event').textContent()).toContain('Event 1 of 32');
  });

  it('an unknown scenario, a bad number and an oversized link each get their own message', async () => {
    const unknown = await lab.page('#/lab?s=no-such-lesson');
    await ready(unknown);
    await expect.poll(() => unknown.getByTestId('notice').textContent()).toContain('no built-in scenario named "no-such-lesson"');

    const badNumber = await lab.page('#/lab?s=pause-past-expiry&t=soon');
    await ready(badNumber);
    await expect.poll(() => badNumber.getByTestId('notice').textContent()).toContain('link: t');

    const huge = await lab.page(`#/lab?s=pause-past-expiry&sc=${'A'.repeat(9000)}`);
    await ready(huge);
    await expect.poll(() => huge.getByTestId('notice').textContent()).toContain('the lab reads links of at most 8000');
  });

  it('a link cut short in the middle of a packed scenario is reported as damaged', async () => {
    const page = await lab.page('#/sandbox');
    await page.getByRole('button', { name: 'Share as link' }).waitFor();
    await page.getByRole('button', { name: 'Share as link' }).click();
    const link = (await page.getByTestId('sandbox-link').textContent()) ?? '';
    expect(link).toContain('sc=');
    const restored = await lab.context.newPage();
    await restored.goto(link);
    await ready(restored);
    await expect.poll(() => restored.locator('[data-testid="scenario-select"]').inputValue()).toBe('');
    expect(await restored.getByTestId('notice').count()).toBe(0);

    const cut = link.slice(0, link.indexOf('sc=') + 3 + Math.floor((link.length - link.indexOf('sc=')) / 2));
    const damaged = await lab.context.newPage();
    await damaged.goto(cut);
    await ready(damaged);
    await expect.poll(() => damaged.getByTestId('notice').textContent()).toMatch(/link: sc.*damaged/);
  });
});
