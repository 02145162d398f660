import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS, normalizeScenario, runScenario } from '../../sim/index.js';
import { lockCyclesIn, lockCyclesLine } from '../../sim/check/summary.js';
import { describeBrowser, openCode, ready, screenshot, startLab, type Lab } from './harness.js';

/** The same run under Node, to compare the page with. */
const nodeRun = (name: string) => runScenario(normalizeScenario(BUILTIN_SCENARIOS[name], name));

describeBrowser('the lab replays pause-past-expiry', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it("says the run's lock cycles and how many were double-owned, as the command line counts them", async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    await expect.poll(() => page.getByTestId('lock-cycles').textContent()).toBe('2 lock cycles, both double-owned.');
    // Seed 4 of random-gc-pauses: some of its 60 cycles double-owned, not all; the page counts what Node's run counts.
    const other = await lab.page('#/lab?s=random-gc-pauses&seed=4');
    await ready(other);
    const expected = lockCyclesLine(lockCyclesIn(runScenario(normalizeScenario(BUILTIN_SCENARIOS['random-gc-pauses'], 'random-gc-pauses'), 4).events));
    expect(expected).toMatch(/^60 lock cycles, [1-9]\d* of them double-owned/);
    await expect.poll(() => other.getByTestId('lock-cycles').textContent()).toBe(expected);
    expect(lab.errors).toEqual([]);
  });

  it('offers to sweep a scenario of random faults in the Odds view, with Fencing as it is ticked; a scripted story gets no such link', async () => {
    const page = await lab.page('#/lab?s=random-gc-pauses&seed=4');
    await ready(page);
    const link = page.getByTestId('sweep-link');
    await expect.poll(() => link.count()).toBe(1);
    await page.getByTestId('fencing-toggle').check();
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).not.toBe('unsafe');
    await expect.poll(() => link.getAttribute('href')).toBe('#/odds?s=random-gc-pauses&vary=resource.fencing%3Dtrue');
    await link.click();
    await expect.poll(() => page.getByTestId('odds-scenario').inputValue()).toBe('random-gc-pauses');
    await expect.poll(() => page.getByTestId('vary-select').inputValue()).toBe('resource.fencing');
    expect(await page.getByTestId('vary-spec').inputValue()).toBe('true');
    // Nothing runs until asked.
    expect(await page.getByTestId('odds-status').textContent()).toBe('');
    const story = await lab.page('#/lab?s=pause-past-expiry');
    await ready(story);
    await expect.poll(() => story.getByTestId('verdict').count()).toBe(1);
    expect(await story.getByTestId('sweep-link').count()).toBe(0);
    expect(lab.errors).toEqual([]);
  });

  it('shows the double-ownership band and the accepted stale write, then the rejected one with fencing on', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    const band = page.locator('[data-mark="double-ownership"]');
    await expect.poll(() => band.count()).toBe(1);
    expect(await band.getAttribute('data-from')).toBe(String(nodeRun('pause-past-expiry').verdict.doubleOwnership[0]!.fromUs));
    const stale = page.locator('[data-mark="write"][data-outcome="stale-accepted"]');
    await expect.poll(() => stale.count()).toBe(1);
    expect(await stale.getAttribute('data-fence')).toBe('33');
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('unsafe');
    await screenshot(page, 'lab-pause-past-expiry');

    await page.getByTestId('fencing-toggle').check();
    const rejected = page.locator('[data-mark="write"][data-lane="resource"][data-outcome="rejected"]');
    await expect.poll(() => rejected.count()).toBe(1);
    expect(await rejected.getAttribute('data-fence')).toBe('33');
    // The rejection reads as the comparison the resource made, against the highest token it had seen.
    expect(await rejected.locator('.write-label').textContent()).toBe('A:1 #33 rejected: 33 < 34');
    expect(await page.locator('[data-mark="highest-token"]').first().getAttribute('data-token')).toBe('34');
    expect(await page.locator('[data-mark="write"][data-lane="resource"][data-outcome="stale-accepted"]').count()).toBe(0);
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('fenced');
    // The band is still there: fencing does not stop two clients believing, it stops the damage.
    expect(await page.locator('[data-mark="double-ownership"]').count()).toBe(1);
    // Fencing is shown beside the run without it, not instead of it: the same run's resource, unfenced, lies beneath.
    const unfenced = page.locator('[data-mark="write"][data-lane="resource-pair"][data-outcome="stale-accepted"]');
    await expect.poll(() => unfenced.count()).toBe(1);
    expect(await unfenced.getAttribute('data-fence')).toBe('33');
    expect(await page.locator('[data-lane="resource-pair"] .lane-name').textContent()).toBe('without fencing');
    await expect.poll(() => page.getByTestId('pair-note').textContent()).toContain('Without fencing, the same run is unsafe');
    await screenshot(page, 'lab-pause-past-expiry-fenced');
    await page.getByTestId('fencing-toggle').uncheck();
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('unsafe');
    expect(await page.locator('[data-lane="resource-pair"]').count()).toBe(0);
    expect(lab.errors).toEqual([]);
  });

  it('on a 390 px phone, the timeline’s clocks, names, band label and last write all fit, none over another or past the edge', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry', { width: 390, height: 844 });
    await ready(page);
    const fig = page.locator('figure.timeline').first();
    const box = async (sel: string) => (await fig.locator(sel).first().boundingBox())!;
    const plot = await box('rect.plot-bg');
    // A's clock and the row name "store" on the same line: the clock ends before the name begins.
    const clock = await box('[data-clock="app1"]');
    const store = fig.locator('g[data-lane="client:A"] text.row-name', { hasText: 'store' });
    expect(clock.x + clock.width).toBeLessThan((await store.boundingBox())!.x);
    // The resource's name and machine whole, not "resource @…".
    const resource = await fig.locator('g.lane-labels g[data-lane="resource"]').textContent();
    expect(resource).not.toContain('…');
    expect(resource).toContain('@db');
    // The band's name whole, inside the plot.
    const band = fig.locator('text.band-label');
    expect(await band.textContent()).toBe('⚠ A & B both believe');
    const b = (await band.boundingBox())!;
    expect(b.x).toBeGreaterThanOrEqual(plot.x);
    expect(b.x + b.width).toBeLessThanOrEqual(plot.x + plot.width);
    // The stale write at 16 s, halo and all, inside the plot.
    const stale = (await fig.locator('[data-mark="write"][data-outcome="stale-accepted"] .write-stale-halo').boundingBox())!;
    expect(stale.x + stale.width).toBeLessThanOrEqual(plot.x + plot.width);
    await screenshot(page, 'lab-390');
    await page.close();
  });

  it('keeps the trace file buttons on one row at any width, and the event search’s example whole on a phone', async () => {
    for (const width of [1440, 1280, 1024, 390]) {
      const page = await lab.page('#/lab?s=pause-past-expiry', { width, height: 900 });
      await ready(page);
      // "Export for Perfetto" never wraps alone under the rest of the toolbar: the three file buttons share a row.
      const tops = await page
        .getByTestId('trace-file-tools')
        .locator('button, .button-like')
        .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
      expect(tops, `at ${width} px`).toHaveLength(3);
      expect(new Set(tops).size, `at ${width} px: ${tops.join(', ')}`).toBe(1);
      // The search box's example is not cut mid-word: its text fits inside the box.
      const fit = await page.getByTestId('event-search').evaluate((el) => {
        const input = el as HTMLInputElement;
        const css = getComputedStyle(input);
        const ctx = document.createElement('canvas').getContext('2d')!;
        ctx.font = `${css.fontStyle} ${css.fontWeight} ${css.fontSize} ${css.fontFamily}`;
        return { text: ctx.measureText(input.placeholder).width, room: input.clientWidth - parseFloat(css.paddingLeft) - parseFloat(css.paddingRight) };
      });
      expect(fit.text, `at ${width} px`).toBeLessThanOrEqual(fit.room);
      if (width === 390) await screenshot(page, 'lab-390-toolbar');
      await page.close();
    }
    expect(lab.errors).toEqual([]);
  });

  it('marks the line of PHP each client is on at the playhead: A frozen in work() while B takes the lock', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    const code = await openCode(page);
    const here = (client: string) => code.getByRole('region', { name: `${client}'s code` }).locator('.php-line.here');
    // Before the first event no process is anywhere.
    await page.keyboard.press('Home');
    expect(await code.locator('.php-line.here').count()).toBe(0);
    // Event 18 (seq 17): B starts its work while A is still paused inside its own.
    for (let i = 0; i < 18; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => here('B').textContent()).toBe('        work(1); ◀ B');
    expect(await here('A').textContent()).toBe('        work(3); ◀ A, paused');
    expect(await here('A').getAttribute('class')).toContain('paused');
    // Numbered as `locklab run --code` numbers it (its timeline puts A's pause on line 5); the numbers are drawn, not part of the code's text.
    expect(await here('A').getAttribute('data-n')).toBe('5');
    const aCode = code.getByRole('region', { name: "A's code" }).locator('pre');
    expect(await aCode.locator('.php-line').evaluateAll((ls) => ls.map((l) => getComputedStyle(l, '::before').content))).toEqual(
      Array.from({ length: 12 }, (_, i) => `"${i + 1}"`),
    );
    expect(await aCode.textContent()).toMatch(/^\$lock = \$factory->createLock\('job', 10\);\ntry \{\n/);
    await screenshot(page, 'lab-clients-code-playhead');
    // A step on: B writes.
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => here('B').textContent()).toBe('        write(); ◀ B');
    // At the end both scripts are over: no line is marked.
    await page.keyboard.press('End');
    await expect.poll(() => code.locator('.php-line.here').count()).toBe(0);
    // A line's button goes to the next time its client is there, round from the start when it is behind the playhead.
    await code.getByRole('button', { name: 'Go to the next time A is on line 6: write();' }).click();
    await expect.poll(() => here('A').textContent()).toBe('        write(); ◀ A');
    expect(await page.getByRole('complementary', { name: 'At the playhead' }).textContent()).toContain('Event 27 of 32');
    await code.getByRole('button', { name: 'Go to the next time B is on line 3: if (!$lock->acquire()) return; // tried 11 times, 2 s apart' }).click();
    await expect.poll(() => here('B').textContent()).toBe('    if (!$lock->acquire()) return; // tried 11 times, 2 s apart ◀ B');
    // No button where a client never comes: the closing braces, the catch.
    expect(await code.getByRole('region', { name: "A's code" }).locator('.php-go').count()).toBe(4);
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it('shows the code behind the run: each client as the PHP it stands for, following a change of setting', async () => {
    const page = await lab.page('#/lab?s=release-by-plain-del');
    await ready(page);
    const code = page.getByTestId('clients-code');
    const a = code.getByRole('region', { name: "A's code" });
    // Folded until asked for, and remembered: closed here, it opens closed next time.
    if ((await code.getAttribute('open')) !== null) await code.locator('summary').click();
    expect(await a.isVisible()).toBe(false);
    const again = await lab.page('#/lab?s=release-by-plain-del');
    await ready(again);
    expect(await again.getByTestId('clients-code').getAttribute('open')).toBeNull();
    await again.close();
    await code.getByText('What the clients run, as PHP').click();
    // A's mistake is there to read: its finally deletes the key whoever holds it.
    expect(await a.locator('pre').textContent()).toContain("} finally {\n        $redis->del('job'); // a plain DEL, whoever holds the key\n    }");
    expect(await code.getByRole('region', { name: "B's code" }).locator('pre').textContent()).toContain('$lock->release();');
    expect(await code.locator('section').count()).toBe(3);
    await screenshot(page, 'lab-clients-code');
    // Another run's clients replace them.
    await page.getByTestId('scenario-select').selectOption('auto-release-fork');
    await ready(page);
    await expect.poll(() => code.locator('section').count()).toBe(2);
    expect(await code.getByRole('region', { name: "A's code" }).locator('pre').textContent()).toContain('if (pcntl_fork() === 0) {');
    // Opened once, the code stays open for the next run and the next visit.
    const later = await lab.page('#/lab?s=pause-past-expiry');
    await ready(later);
    expect(await later.getByTestId('clients-code').getAttribute('open')).toBe('');
    expect(await later.getByTestId('clients-code').getByRole('region', { name: "B's code" }).isVisible()).toBe(true);
    await later.close();
    // The address carries it: someone who opens the link, on a browser that never opened the code, sees it open.
    await expect.poll(() => page.url()).toContain('code=1');
    const elsewhere = await lab.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const shared = await elsewhere.newPage();
    await shared.goto(page.url());
    await ready(shared);
    await expect.poll(() => shared.getByTestId('clients-code').getAttribute('open')).toBe('');
    expect(await shared.getByTestId('clients-code').getByRole('region', { name: "A's code" }).locator('pre').textContent()).toContain('pcntl_fork');
    await elsewhere.close();
    expect(lab.errors).toEqual([]);
  });

  it('says above the verdict when a run stopped at its budget, which budget and which field lets it go on', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry&set=budget.maxEvents%3D20');
    await ready(page);
    const note = page.getByTestId('stopped-early');
    await expect.poll(() => note.textContent()).toContain('Run stopped at its event budget (20 events) after 20 kernel events');
    expect(await note.textContent()).toContain('Raise budget.maxEvents or budget.maxTimeMs');
    expect(await note.textContent()).toContain('This verdict covers the run up to there.');
    await screenshot(page, 'lab-stopped-early');
    // A run that finished says nothing of the kind.
    const whole = await lab.page('#/lab?s=pause-past-expiry');
    await ready(whole);
    expect(await whole.getByTestId('stopped-early').count()).toBe(0);
  });

  it('steps forward and back one event at a time, by key and by button, and the side panel follows', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    const now = page.getByTestId('current-event');
    await expect.poll(() => now.textContent()).toContain('Before the first event');
    await page.locator('main').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => now.textContent()).toContain('Event 1 of 32');
    expect(await now.textContent()).toContain('A@app1 starts');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => now.textContent()).toContain('Event 4 of 32');
    expect(await now.textContent()).toContain('acquires job as A:1, fencing token 33');
    const rowA = page.locator('[data-testid="belief-table"] tr[data-client="A"]');
    expect(await rowA.getAttribute('data-believes')).toBe('true');
    expect(await rowA.getAttribute('data-holds')).toBe('true');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => now.textContent()).toContain('Event 3 of 32');
    expect(await rowA.getAttribute('data-believes')).toBe('false');
    await page.getByRole('button', { name: 'Step one event forward (→)' }).click();
    await expect.poll(() => now.textContent()).toContain('Event 4 of 32');
    await page.getByRole('button', { name: 'Step one event back (←)' }).click();
    await expect.poll(() => now.textContent()).toContain('Event 3 of 32');

    // At the stale write (event 28) A believes, with its TTL long gone by its own clock, while the store holds nothing for it.
    await page.keyboard.press('End');
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowLeft');
    await expect.poll(() => now.textContent()).toContain('Event 28 of 32');
    expect(await now.textContent()).toContain('accepts the write from A:1 (token 33)');
    expect(await now.locator('.flag-damage').textContent()).toContain("stale write accepted: A's lease ended 6 s ago, and B has since held token 34");
    expect(await rowA.getAttribute('data-believes')).toBe('true');
    expect(await rowA.getAttribute('data-holds')).toBe('false');
    expect(await rowA.textContent()).toContain('ran out 6.001 s ago');
    await screenshot(page, 'lab-at-stale-write');
    expect(lab.errors).toEqual([]);
  });
});
