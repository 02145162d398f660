import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, ready, screenshot, startLab, type Lab } from './harness.js';

describeBrowser('keyboard-only use', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('every transport verb has a key: play, pause, speed, zoom, pan, arrows, help', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    const state = () =>
      page.evaluate(() => {
        const s = window.__locklab!.ui.getState();
        return { playing: s.playing, speed: s.speed, domain: s.domain, arrows: s.arrows, cursor: s.cursor, helpOpen: s.helpOpen, theme: s.theme };
      });
    await page.locator('main').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press(']');
    await page.keyboard.press(']');
    expect((await state()).speed).toBe(10);
    await page.keyboard.press('[');
    expect((await state()).speed).toBe(5);
    await page.keyboard.press('+');
    const zoomed = (await state()).domain;
    expect(zoomed).not.toBeNull();
    await page.keyboard.press('.');
    expect((await state()).domain![0]).toBeGreaterThan(zoomed![0]);
    await page.keyboard.press('0');
    expect((await state()).domain).toBeNull();
    await page.keyboard.press('a');
    expect((await state()).arrows).toBe(true);
    await expect.poll(() => page.locator('[data-mark="arrow"]').count()).toBeGreaterThan(5);

    // Play at a high speed runs to the end and stops by itself.
    for (let i = 0; i < 3; i++) await page.keyboard.press(']');
    // At that speed the story may be over before the state is read, so only its end is asserted.
    await page.keyboard.press(' ');
    await expect.poll(() => state().then((s) => [s.playing, s.cursor]), { timeout: 10_000 }).toEqual([false, 31]);
    // Back to the slowest speed, so the 16 s story cannot play to its end between two key presses on a busy machine.
    for (let i = 0; i < 8; i++) await page.keyboard.press('[');
    await page.keyboard.press('Home');
    await page.keyboard.press(' ');
    expect((await state()).playing).toBe(true);
    await page.keyboard.press(' ');
    expect((await state()).playing).toBe(false);

    await page.keyboard.press('?');
    await page.getByTestId('help').waitFor({ state: 'visible' });
    expect(await page.getByTestId('help').textContent()).toContain('Step one event forward');
    await page.keyboard.press('Escape');
    await expect.poll(() => state().then((s) => s.helpOpen)).toBe(false);
    await page.keyboard.press('t');
    expect((await state()).theme).toBe('dark');
    await page.keyboard.press('2');
    await page.locator('[data-client-card]').first().waitFor();
    await page.keyboard.press('1');
    await ready(page);
  });

  it('→ on the focused scenario choice steps the playhead, as the side panel says, and keeps the scenario', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    const select = page.getByTestId('scenario-select');
    await select.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByTestId('current-event').textContent()).toContain('Event 2 of 32');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.getByTestId('current-event').textContent()).toContain('Event 1 of 32');
    expect(await select.inputValue()).toBe('pause-past-expiry');
    expect(await page.evaluate(() => window.__locklab!.ui.getState().view)).toBe('lab');
  });

  it('no shortcut reaches the lab behind an open dialog, wherever the focus is', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry&t=3');
    await ready(page);
    await page.keyboard.press('?');
    await page.getByTestId('help').waitFor({ state: 'visible' });
    const before = await page.evaluate(() => {
      const s = window.__locklab!.ui.getState();
      return { cursor: s.cursor, view: s.view, arrows: s.arrows, theme: s.theme, playing: s.playing };
    });
    // Focus can leave the dialog's controls (a click on its text); the keys must still not reach the lab.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    for (const key of ['ArrowRight', 'End', 'a', 't', '2', ' ', 'x']) await page.keyboard.press(key);
    const after = await page.evaluate(() => {
      const s = window.__locklab!.ui.getState();
      return { cursor: s.cursor, view: s.view, arrows: s.arrows, theme: s.theme, playing: s.playing };
    });
    expect(after).toEqual(before);
    expect(await page.getByTestId('fork-dialog').isVisible()).toBe(false);
    await page.keyboard.press('?');
    await expect.poll(() => page.getByTestId('help').isVisible()).toBe(false);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.evaluate(() => window.__locklab!.ui.getState().cursor)).toBe(before.cursor + 1);
  });

  it('Tab reaches the views and the controls, and Enter uses them', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    await page.keyboard.press('Tab'); // the skip link
    await page.keyboard.press('Tab'); // Lessons
    await page.keyboard.press('Tab'); // Lab
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Sandbox');
    await page.keyboard.press('Enter');
    await page.locator('[data-client-card]').first().waitFor();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await ready(page);
    // The fencing checkbox toggles with Space, and arrow keys still step afterwards.
    await page.getByTestId('fencing-toggle').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('fenced');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByTestId('current-event').textContent()).toContain('Event 1 of 33');
  });

  it("checking an answer from the keyboard moves the focus to its verdict, so it is read out, for a quiz question and a story's question", async () => {
    const page = await lab.page('#/lesson/01-one-machine?at=q-load-balancer');
    const q = page.locator('section[data-question="load-balancer"]');
    // A wrong answer (option 0: "too slow"), chosen with the keyboard.
    await q.locator('li[data-option="0"] input').focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Check my answer');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('answer-result');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain('Not quite');
    expect(await page.evaluate(() => document.activeElement?.closest('[data-question]')?.getAttribute('data-question'))).toBe('load-balancer');
    await screenshot(page, 'keyboard-answer-verdict');
    // Tab goes on from the question, not from the top of the page: to its Try again, then past it.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('try-again');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('[data-question]')?.getAttribute('data-question') ?? null)).not.toBe('load-balancer');
    expect(await page.evaluate(() => document.activeElement?.closest('header, nav') === null)).toBe(true);

    // A story's question is drawn again in the caption once answered; its verdict there takes the focus. (Not the stop the story test below answers: the progress is kept.)
    const story = await lab.page('#/lesson/04-pause-past-expiry?at=stop-gc-pause-a-wakes');
    const ask = story.getByTestId('stop-ask');
    await ask.locator('li[data-option="0"] input').focus();
    await story.keyboard.press('Space');
    await story.keyboard.press('Tab');
    await story.keyboard.press('Enter');
    await story.getByTestId('stop-caption').waitFor();
    await expect
      .poll(() =>
        story.evaluate(() => document.activeElement?.closest('[data-testid="stop-caption"]') !== null && document.activeElement?.getAttribute('data-testid')),
      )
      .toBe('answer-result');
    await page.close();
    await story.close();
    expect(lab.errors).toEqual([]);
  });

  it('a page opened from a control on the page it leaves gets the focus on its heading, not the body: a lesson from the list, the next lesson, the list again, the lab', async () => {
    const page = await lab.page('#/lessons');
    await page.locator('.lesson-card').first().waitFor();
    const focused = () =>
      page.evaluate(() => {
        const e = document.activeElement;
        return e === null || e === document.body ? 'body' : `${e.tagName.toLowerCase()}${e.id === '' ? '' : `#${e.id}`} ${e.textContent?.trim().slice(0, 40)}`;
      });
    // The first page of a visit keeps the browser's own start.
    expect(await focused()).toBe('body');
    await page.locator('.lesson-card[data-lesson="one-machine"] a').focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('h1 One machine is not the world');
    // Focused to be announced, not operated: no ring around the heading.
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('none');
    await screenshot(page, 'keyboard-lesson-heading');
    // Tab goes on into the lesson, not back to the top of the page.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('.lesson-text') !== null)).toBe(true);

    await page.getByTestId('next-lesson').focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('h1 Atomic acquire');
    await page.getByRole('link', { name: '← All lessons' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('h1 Learn distributed locks by breaking them');
    await page.getByTestId('open-lab').focus();
    await page.keyboard.press('Enter');
    await ready(page);
    // The Lab's heading names it and its scenario, for a screen reader to say.
    await expect.poll(focused).toBe('h1 Lab: pause-past-expiry');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('scenario-select');
    // A view's tab keeps the focus the learner gave it.
    await page.getByRole('button', { name: 'Sandbox', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-client-card]').first().waitFor();
    expect(await focused()).toBe('button Sandbox');
    await page.close();
    expect(lab.errors).toEqual([]);
  });

  it('a story played from the keyboard keeps the focus in it: Play the story leads to the next stop, and a stop that asks first to its question', async () => {
    const page = await lab.page('#/lesson/04-pause-past-expiry');
    const testid = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName.toLowerCase());
    await page.getByTestId('play-story-gc-pause').focus();
    await page.keyboard.press('Enter');
    await expect.poll(testid).toBe('stop-next');
    await page.locator('.stage select').selectOption('10');
    await page.getByTestId('stop-next').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('stop-panel').getAttribute('data-stop'), { timeout: 15_000 }).toBe('a-takes');
    expect(await testid()).toBe('stop-next');
    // A screen reader hears the stop and its caption from a region that is always there, not the whole panel with its buttons.
    expect(await page.getByTestId('stop-panel').getAttribute('aria-live')).toBeNull();
    const said = page.getByTestId('stop-said');
    expect(await said.getAttribute('aria-live')).toBe('polite');
    expect(await said.textContent()).toBe(`Stop 1 of 8. ${await page.getByTestId('stop-caption').locator('.caption').textContent()}`);
    // The next stop asks first, so its button is disabled when the story gets there: the question takes the focus.
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('stop-panel').getAttribute('data-stop'), { timeout: 15_000 }).toBe('a-pauses');
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('[data-testid="stop-ask"]') !== null)).toBe(true);
    // The question is read from the focus; the live region says nothing over it.
    expect(await said.textContent()).toBe('');
    await screenshot(page, 'keyboard-story-ask');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(testid).toBe('answer-result');
    // A "try this", and back to the story from the keyboard.
    await page.getByTestId('try-fencing-on').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('try-result').waitFor();
    await page.getByRole('button', { name: 'Back to the story' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(testid).toBe('stop-next');
    await page.close();
    expect(lab.errors).toEqual([]);
  });

  it("closing an event's details from the keyboard puts the focus back on the event's line in the log", async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry&t=5');
    await ready(page);
    const row = page.locator('.event-log li[data-seq="3"] button');
    await row.focus();
    await page.keyboard.press('Enter');
    const details = page.getByTestId('inspector');
    await details.waitFor();
    await details.getByRole('button', { name: 'Close' }).focus();
    await page.keyboard.press('Enter');
    await details.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.closest('li')?.getAttribute('data-seq') ?? document.activeElement?.tagName)).toBe('3');
    await screenshot(page, 'keyboard-details-closed');
    await page.close();
    expect(lab.errors).toEqual([]);
  });

  it("a challenge run from the keyboard gives the focus to the checker's verdict when it comes, wrong and then right", async () => {
    const page = await lab.page('#/lesson/01-one-machine?at=challenge-safe-rolling-update');
    const challenge = page.locator('section[data-challenge="safe-rolling-update"]');
    const verdict = () => page.evaluate(() => (document.activeElement?.closest('[data-challenge]') === null ? null : document.activeElement?.textContent));
    await challenge.getByTestId('run-safe-rolling-update').focus();
    await page.keyboard.press('Enter');
    await expect.poll(verdict, { timeout: 15_000 }).toMatch(/^✗ Not yet/);
    // The linked challenge's first control is its knob: change it from the keyboard and run again.
    await challenge.locator('input[type="number"]').first().focus();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('5500');
    await challenge.getByTestId('run-safe-rolling-update').focus();
    await page.keyboard.press('Enter');
    await expect.poll(verdict, { timeout: 15_000 }).toMatch(/^✓ Solved/);
    await screenshot(page, 'keyboard-challenge-verdict');
    await page.close();
    expect(lab.errors).toEqual([]);
  });

  it('each hint asked for from the keyboard takes the focus, so it is read out, the last one too though its button is then disabled', async () => {
    const page = await lab.page('#/lesson/01-one-machine?at=challenge-safe-rolling-update');
    const challenge = page.locator('section[data-challenge="safe-rolling-update"]');
    const focused = () => page.evaluate(() => (document.activeElement === document.body ? 'body' : (document.activeElement?.textContent ?? '')));
    await challenge.getByRole('button', { name: 'Give me a hint' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe("Look at when the old pod's job ends on the timeline.");
    for (const name of ['Another hint (2 of 3)', 'Another hint (3 of 3)']) {
      await challenge.getByRole('button', { name }).focus();
      await page.keyboard.press('Enter');
    }
    await expect.poll(focused).toBe("Start the new pod's job only after the old pod has released.");
    expect(await challenge.getByRole('button', { name: 'No more hints' }).isDisabled()).toBe(true);
    await page.close();
    expect(lab.errors).toEqual([]);
  });
});
