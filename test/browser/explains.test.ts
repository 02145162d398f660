import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, ready, screenshot, startLab, type Lab } from './harness.js';

/* What a newcomer needs to read the picture without the help dialog: the flag on the stale write, the legend, the findings. */

const STALE = "stale write accepted: A's lease ended 6 s ago, and B has since held token 34";

describeBrowser('the lab explains itself', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('the stale write is flagged in words and in colour wherever it appears', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry&t=27', { width: 1440, height: 900 });
    await ready(page);
    const colour = (sel: ReturnType<typeof page.locator>) => sel.evaluate((el) => getComputedStyle(el).color);
    const body = await page.locator('body').evaluate((el) => getComputedStyle(el).color);
    // The side panel, at the playhead.
    const now = page.getByTestId('current-event').locator('.flag-damage');
    await expect.poll(() => now.textContent()).toContain(STALE);
    expect(await colour(now)).not.toBe(body);
    // The event log, on the write's own line.
    const row = page.locator('.event-log li[data-seq="27"]');
    expect(await row.getAttribute('class')).toContain('flagged-damage');
    expect(await row.locator('.flag-damage').textContent()).toContain(STALE);
    expect(await page.locator('.event-log li.flagged').count()).toBe(1);
    // The verdict's findings, numbered.
    const finding = page.locator('[data-testid="verdict"] li[data-finding="stale-accepted"]');
    expect(await finding.textContent()).toContain("Stale write accepted: A's lease ended 6 s ago, and B has since held token 34");
    expect(await colour(finding.locator('strong'))).not.toBe(body);
    // The timeline: the triangle's words in the resource lane.
    const mark = page.locator('[data-mark="write"][data-outcome="stale-accepted"] .write-label');
    expect(await mark.textContent()).toBe('A:1 #33 STALE, accepted');
    expect(await mark.evaluate((el) => getComputedStyle(el).fill)).not.toBe(
      await page.locator('[data-outcome="accepted"] .write-label').evaluate((el) => getComputedStyle(el).fill),
    );
    // Every finding is marked on its event under the axis, numbered as in the list.
    const badges = page.locator('[data-mark="finding"]');
    expect(await badges.evaluateAll((gs) => gs.map((g) => [g.getAttribute('data-finding'), g.getAttribute('data-seq')]))).toEqual([
      ['lost-lock', '13'],
      ['double-ownership', '16'],
      ['stale-accepted', '27'],
    ]);
    expect(await badges.locator('.finding-number').allTextContents()).toEqual(['1', '2', '3']);
    await screenshot(page, 'explains-stale-flag');
    expect(lab.errors).toEqual([]);
  });

  it('a legend on the page, above the fold, names the marks this trace draws and only those', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry', { width: 1440, height: 900 });
    await ready(page);
    const legend = page.getByTestId('legend');
    await legend.waitFor();
    const box = (await legend.boundingBox())!;
    expect(box.y + box.height).toBeLessThan(900);
    const keys = await legend.locator('li').evaluateAll((lis) => lis.map((l) => l.getAttribute('data-legend')));
    for (const k of ['belief', 'truth', 'owner', 'pause', 'refused', 'double', 'findings', 'write-ok', 'write-stale', 'highest']) expect(keys).toContain(k);
    expect(keys).not.toContain('partition');
    expect(await legend.locator('[data-legend="owner"]').textContent()).toContain('A’s 1st acquisition, fencing token 33');
    expect(await page.getByTestId('help').isVisible()).toBe(false);

    const redlock = await lab.page('#/lab?s=redlock-clock-jump');
    await ready(redlock);
    const rk = await redlock
      .getByTestId('legend')
      .locator('li')
      .evaluateAll((lis) => lis.map((l) => l.getAttribute('data-legend')));
    expect(rk).toContain('partition');
    expect(rk).toContain('clock.jump');
    expect(rk).not.toContain('pause');
    // Its A to E are Redis nodes: the example of a bar's label is its first client's, and Redlock hands out no token.
    expect(await redlock.getByTestId('legend').locator('[data-legend="owner"]').textContent()).toBe('client1:1 client1’s 1st acquisition');
    await redlock.close();
  });

  it('at the first finding, the details say what A believes in the same words and figures as the table beside them', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    await page.keyboard.press('n');
    const inspector = page.getByTestId('inspector');
    await inspector.waitFor();
    const belief = (await inspector.getByTestId('inspect-belief').textContent())!;
    const table = (await page.locator('[data-testid="belief-table"] tr[data-client="A"] td').first().textContent())!;
    const ranOut = /ran out ([\d.]+ m?s) ago/.exec(table)?.[1];
    expect(ranOut).toBeDefined();
    // Before, the details gave the time left A's last belief recorded ("9 s left") beside "its lease has run out".
    expect(belief).toBe(`holds A:1 #33 while paused, though by its own clock its lease ran out ${ranOut} ago`);
    await page.close();
  });

  it('clicking a mark shows its event in the side panel: what happened, the belief, the store’s truth, the message it answers', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    await page.locator('[data-mark="write"][data-outcome="stale-accepted"] path').click();
    const inspector = page.getByTestId('inspector');
    await inspector.waitFor();
    await expect.poll(() => page.getByTestId('current-event').textContent()).toContain('Event 28 of 32');
    expect(await inspector.getByTestId('inspect-belief').textContent()).toContain('holds A:1 #33');
    expect(await inspector.getByTestId('inspect-belief').textContent()).toContain('though by its own clock its lease ran out');
    expect(await inspector.getByTestId('inspect-belief').textContent()).not.toContain(' left');
    expect(await inspector.getByTestId('inspect-truth').textContent()).toBe('nothing for A: A:1 #33 ended at 10.001 s (lock.expired)');
    const message = inspector.getByTestId('inspect-message');
    expect(await message.textContent()).toContain('A writes to the resource with fencing token 33');
    expect(await message.textContent()).toContain('A hears its write was accepted');
    // Following the message inspects the request, and the playhead goes with it.
    await message.getByRole('button', { name: /writes to the resource/ }).click();
    await expect.poll(() => page.getByTestId('current-event').textContent()).toContain('Event 27 of 32');

    // A refused attempt, and a belief bar, are marks like any other.
    await page.locator('[data-mark="refused"] .refused-box').nth(1).click();
    await expect.poll(() => page.getByTestId('current-event').textContent()).toContain('is refused: job is held by A:1');
    expect(await inspector.getByTestId('inspect-truth').textContent()).toBe('nothing for B');
    await page.locator('[data-mark="belief"][data-client="B"] rect').click();
    await expect.poll(() => page.getByTestId('current-event').textContent()).toContain('acquires job as B:1, fencing token 34');
    await screenshot(page, 'explains-inspect');
    await inspector.getByRole('button', { name: 'Close' }).click();
    expect(await page.getByTestId('inspector').count()).toBe(0);
  });

  it('the event log finds events by their words, and choosing one inspects it', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    const search = page.getByTestId('event-search');
    // The count is a live region that is there, empty, before the search, so a screen reader reads out its first count as well as the next ones.
    const count = page.getByTestId('event-search-count');
    expect(await count.getAttribute('role')).toBe('status');
    expect(await count.textContent()).toBe('');
    await count.evaluate((el) => ((window as unknown as { countBefore: Element }).countBefore = el));
    await search.fill('B refused');
    await expect.poll(() => page.getByTestId('event-search-count').textContent()).toBe('3 events match');
    expect(await count.evaluate((el) => (window as unknown as { countBefore: Element }).countBefore === el)).toBe(true);
    expect(await page.locator('.event-log li').count()).toBe(3);
    // Typing in the search box is typing, not shortcuts.
    await search.fill('stale');
    await expect.poll(() => page.getByTestId('event-search-count').textContent()).toBe('1 event matches');
    expect(await page.evaluate(() => window.__locklab!.ui.getState().view)).toBe('lab');
    await page.locator('.event-log li button').first().click();
    await expect.poll(() => page.getByTestId('current-event').textContent()).toContain('Event 28 of 32');
    await search.fill('nothing like this');
    await expect.poll(() => page.getByTestId('event-search-count').textContent()).toBe('no event matches');
  });

  it('playback stops on every finding and holds there, even at a speed that crosses the story in one frame', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    for (const speed of [2, 1000]) {
      // Record the cursor on every frame of a play-through: the whole story at 1000×, its last part at 2×.
      const samples = (await page.evaluate(`(async () => {
        const ui = window.__locklab.ui;
        ui.getState().set({ speed: ${speed} });
        ui.getState().seekSeq(${speed === 2 ? 24 : -1});
        ui.getState().togglePlay();
        const out = [];
        await new Promise((resolve) => {
          const tick = (now) => {
            const s = ui.getState();
            out.push([now, s.cursor]);
            if (!s.playing) return resolve();
            requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
        });
        return out;
      })()`)) as [number, number][];
      const flagged = speed === 2 ? [27] : [13, 16, 27];
      for (const seq of flagged) {
        const at = samples.filter(([, c]) => c === seq).map(([t]) => t);
        expect(at.length, `speed ${speed}: the playhead stopped on event ${seq}`).toBeGreaterThan(0);
        // It held there for a good part of a second of wall time.
        expect(at[at.length - 1]! - at[0]!, `speed ${speed}: held on event ${seq}`).toBeGreaterThan(speed === 2 ? 900 : 250);
      }
      expect(samples[samples.length - 1]![1]).toBe(31);
    }
  });

  it('the findings list seeks to each finding, and n and Shift+N jump between them', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    const now = page.getByTestId('current-event');
    await page.locator('[data-testid="verdict"] li[data-finding="double-ownership"] button').click();
    await expect.poll(() => now.textContent()).toContain('Event 17 of 32');
    expect(await page.getByTestId('inspector').count()).toBe(1);
    expect(await now.locator('.flag-warning').textContent()).toContain('A and B both believe they hold job for 1 s');
    await page.keyboard.press('n');
    await expect.poll(() => now.textContent()).toContain('Event 28 of 32');
    await page.keyboard.press('n');
    await expect.poll(() => now.textContent()).toContain('Event 28 of 32');
    await page.keyboard.press('Shift+N');
    await page.keyboard.press('Shift+N');
    await expect.poll(() => now.textContent()).toContain('Event 14 of 32');
    expect(await now.textContent()).toContain('EXPIRES job held by A:1');
    await page.keyboard.press('Home');
    await page.keyboard.press('n');
    await expect.poll(() => now.textContent()).toContain('Event 14 of 32');
  });
});
