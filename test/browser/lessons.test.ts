import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadLessons } from '../../sim/cli/lessons.js';
import { optionOrder, storyAskKey } from '../../sim/lessons/option-order.js';
import { summaryOf } from '../../web/lessons/plugin.js';
import { axeViolations, describeBrowser, openCode, screenshot, SCREENSHOTS, startLab, type Lab } from './harness.js';

/*
 * A learner's way through lesson 4: the lessons page on a first visit, the
 * prediction, the story stop by stop (answering what it asks), fencing
 * flipped on, the quiz, a challenge solved, and the progress still there
 * after a reload. Deep links open a question; unreadable progress is reset
 * with a notice.
 */

const LESSON4 = '#/lesson/04-pause-past-expiry';

/** A screenshot of one part of the page (a story, a question, a challenge), as a learner sees it. */
async function shotOf(part: Locator, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await part.screenshot({ path: join(SCREENSHOTS, `${name}.png`), timeout: 10_000 });
}

async function waitStop(page: Page, stop: string): Promise<void> {
  await expect.poll(() => page.getByTestId('stop-panel').getAttribute('data-stop'), { timeout: 15_000 }).toBe(stop);
}

/** Stored progress in which the given lessons are finished (every question answered, every story played to its end), last in `last`. */
function finishedProgress(ids: readonly string[], last: string): string {
  const summaries = loadLessons(undefined, false).lessons.map(summaryOf);
  const answers: Record<string, Record<string, number[]>> = {};
  const stops: Record<string, string[]> = {};
  const solved: Record<string, string[]> = {};
  for (const id of ids) {
    const l = summaries.find((x) => x.id === id)!;
    answers[id] = Object.fromEntries(l.questions.map((q) => [q, [0]]));
    stops[id] = l.stories.map((st) => `${st.id}/${st.lastStop}`);
    solved[id] = [...l.challenges];
  }
  return JSON.stringify({ version: 1, answers, stops, solved, last: { lesson: last, anchor: null } });
}

/** Answers a question by ticking the given options of its section and pressing its check button. */
async function answer(page: Page, question: string, options: number[]): Promise<void> {
  const q = page.locator(`section[data-question="${question}"]`);
  for (const i of options) await q.locator(`li[data-option="${i}"] input`).check();
  await q.getByRole('button', { name: /Check my answer|Lock in my prediction/ }).click();
  await expect.poll(() => q.locator('fieldset').getAttribute('data-answered')).toBe('true');
}

describeBrowser('a learner goes through lesson 4', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('opens on the lessons page on a first visit, with the free lab one click away', async () => {
    const page = await lab.page('');
    await expect.poll(() => page.locator('.lesson-card').count()).toBe(12);
    expect(page.url()).toMatch(/#\/lessons$/);
    expect(await page.getByTestId('course-progress').textContent()).toContain('0 of 12 lessons finished');
    await screenshot(page, 'lessons-page');
    expect(await axeViolations(page, 'lessons page')).toEqual([]);
    await page.getByTestId('open-lab').click();
    await page.locator('figure.timeline').first().waitFor();
    await page.close();
  });

  it('reads, predicts, plays the story to each stop, flips fencing, answers the quiz and solves a challenge; a reload keeps it all', async () => {
    const page = await lab.page('#/lessons');
    await page.locator('.lesson-card[data-lesson="pause-past-expiry"] a').click();
    await expect.poll(() => page.locator('article.lesson').getAttribute('data-lesson')).toBe('pause-past-expiry');
    // The address follows the view a moment later (it is written once a burst of changes settles).
    await expect.poll(() => page.url()).toContain(LESSON4);
    await page.screenshot({ path: join(SCREENSHOTS, 'lesson-4.png') });

    // The options are shown in their drawn order, not as written (right answer first), and answered by their written index.
    const shownOrder = (q: Locator) => q.locator('li[data-option]').evaluateAll((li) => li.map((e) => Number(e.getAttribute('data-option'))));
    for (const [key, n] of [
      ['predict-pause', 3],
      ['gc-danger', 4],
      ['lease-buys', 4],
    ] as const)
      expect(await shownOrder(page.locator(`section[data-question="${key}"]`)), key).toEqual(optionOrder('pause-past-expiry', key, n));
    expect(await shownOrder(page.locator('section[data-question="predict-pause"]'))).not.toEqual([0, 1, 2]);

    // Predict, then watch the replayed run bear the prediction out.
    await answer(page, 'predict-pause', [0]);
    await expect.poll(() => page.getByTestId('prediction-result').getAttribute('data-happened')).toBe('0');
    expect(await page.locator('section[data-question="predict-pause"] .timeline-title > span').first().textContent()).toBe('The run you predicted');
    expect(await page.locator('section[data-question="predict-pause"] [data-testid="answer-result"]').textContent()).toContain('That is right');

    // The story, at 10× so its 16 s pass quickly; each Play stops at the next stop.
    await page.getByTestId('play-story-gc-pause').click();
    await page.getByTestId('stage').waitFor();
    await page.locator('.stage select').selectOption('10');
    const stops = ['a-takes', 'a-pauses', 'lease-expires', 'b-takes', 'b-writes', 'a-wakes', 'a-writes'];
    for (const stop of stops) {
      await page.getByTestId('stop-next').click();
      await waitStop(page, stop);
      if (stop === 'a-pauses' || stop === 'a-wakes') {
        // The stop asks first; going on waits for the answer.
        expect(await page.getByTestId('stop-next').isDisabled()).toBe(true);
        // The drawing would tell, so it is covered until the learner answers.
        expect(await page.locator('.stage [data-curtain="true"]').count()).toBe(1);
        const ask = page.getByTestId('stop-ask');
        expect(await shownOrder(ask)).toEqual(optionOrder('pause-past-expiry', storyAskKey('gc-pause', stop), 3));
        await ask.locator('li[data-option="0"] input').check();
        await ask.getByRole('button', { name: 'Check my answer' }).click();
        await page.getByTestId('stop-caption').waitFor();
        expect(await page.locator('.stage [data-curtain="true"]').count()).toBe(0);
      }
      if (stop === 'b-takes') await shotOf(page.locator('section[data-story="gc-pause"]'), 'lesson-4-stop');
    }
    expect(await page.getByTestId('stop-caption').textContent()).toContain('accepted on top of');
    // The side panel reads the same moment: A still believes.
    expect(await page.locator('[data-testid="belief-table"] tr[data-client="A"]').getAttribute('data-believes')).toBe('true');

    // The last stop runs the story again with fencing on and lands on the rejection.
    await page.getByTestId('stop-next').click();
    await waitStop(page, 'fenced');
    expect(await page.getByTestId('stop-caption').textContent()).toContain('33 < 34');
    expect(await page.locator('[data-mark="write"][data-outcome="rejected"]').count()).toBe(1);
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('fenced');

    // Step back to the previous stop, in the unfenced run again.
    await page.getByTestId('stop-back').click();
    await waitStop(page, 'a-writes');
    expect(await page.locator('[data-mark="write"][data-outcome="stale-accepted"]').count()).toBe(1);

    // "Try this": fencing on, with the statements it shows.
    await page.getByTestId('try-fencing-on').click();
    await expect.poll(() => page.getByTestId('try-result').textContent()).toContain("✓ the resource rejects A's write: 33 < 34");

    // The quiz: the right answers, one multi-select among them.
    await answer(page, 'gc-danger', [1]);
    await answer(page, 'no-error', [0]);
    await answer(page, 'other-causes', [0, 1, 2]);
    await answer(page, 'lease-buys', [0]);
    // And How often?'s: what none in 200 runs means.
    await answer(page, 'none-in-200', [1]);
    for (const q of ['gc-danger', 'no-error', 'other-causes', 'lease-buys', 'none-in-200'])
      expect(await page.locator(`section[data-question="${q}"] fieldset`).getAttribute('data-right')).toBe('true');
    await shotOf(page.locator('section[data-question="other-causes"]'), 'lesson-4-quiz');

    // A challenge: one fault that gives two owners. A crash does not; a long pause does.
    const ch = page.locator('section[data-challenge="break-it"]');
    await ch.getByTestId('knob-fault').selectOption('1');
    await ch.getByTestId('run-break-it').click();
    await expect.poll(() => ch.getByTestId('result-break-it').getAttribute('data-solved')).toBe('false');
    expect(await ch.getByTestId('result-break-it').textContent()).toContain('A and B both believe they hold the lock, but no double ownership');
    await ch.getByRole('button', { name: 'Give me a hint' }).click();
    expect(await ch.getByTestId('hints').locator('li').count()).toBe(1);
    // The reference solution is a button of the same row, in the words of the challenge's controls, and it hides again.
    const toggle = ch.getByTestId('solution-toggle-break-it');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    const rowOf = async (l: Locator) => (await l.boundingBox())!.y;
    expect(await rowOf(toggle)).toBe(await rowOf(ch.getByTestId('run-break-it')));
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await toggle.textContent()).toBe('Hide the reference solution');
    expect(await ch.getByTestId('solution').locator('p').first().textContent()).toBe(
      'Reference solution: Add “Pause A (GC stall)” at 1000 ms, lasting 8000 ms.',
    );
    expect(await ch.getByTestId('solution').getAttribute('id')).toBe(await toggle.getAttribute('aria-controls'));
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await ch.getByTestId('solution').count()).toBe(0);
    await ch.getByTestId('knob-fault').selectOption('0');
    await ch.getByTestId('knob-fault-durationMs').fill('8000');
    await ch.getByTestId('run-break-it').click();
    await expect.poll(() => ch.getByTestId('result-break-it').getAttribute('data-solved')).toBe('true');
    expect(await ch.getByTestId('result-break-it').textContent()).toContain('✓ A and B both believe they hold the lock');
    // The attempt is a fork: it shows beside the original run.
    expect(await ch.locator('figure.timeline').count()).toBe(2);
    await shotOf(ch, 'lesson-4-challenge');
    // Under them, the clients' code marks where each process is in the attempt and in the original run: at 3 s A is
    // frozen in work() in the attempt and done in the original; B is asking for the lock in both.
    const code = await openCode(page);
    await page.evaluate(() => window.__locklab!.ui.getState().seekTime(3_000_000));
    const here = (client: string) => code.locator(`section[aria-label="${client}'s code"] .php-line.here .php-here`);
    await expect.poll(() => here('A').allTextContents()).toEqual([' ◀ A, paused, in your attempt']);
    expect(await here('B').allTextContents()).toEqual([' ◀ B in both']);
    expect(await code.locator('p.muted').first().textContent()).toContain('marked in your attempt and in the original run.');
    // Closed again: the next pages share this one's storage, where the panel's state is remembered.
    await code.locator('summary').click();

    await expect
      .poll(() => page.getByTestId('lesson-status').textContent())
      .toBe('6/6 questions (6 right)\u00a0· 1/1 stories (2 of 2 guesses right)\u00a0· 1/2 challenges\u00a0· ✓ finished');
    await page.reload();
    await expect
      .poll(() => page.getByTestId('lesson-status').textContent(), { timeout: 15_000 })
      .toBe('6/6 questions (6 right)\u00a0· 1/1 stories (2 of 2 guesses right)\u00a0· 1/2 challenges\u00a0· ✓ finished');
    expect(await page.locator('section[data-question="gc-danger"] fieldset').getAttribute('data-right')).toBe('true');
    expect(await page.locator('section[data-challenge="break-it"]').getAttribute('data-solved')).toBe('true');
    // The outline marks the solved challenge, and only it.
    expect(await page.locator('nav [aria-label="Questions and challenges"] [aria-label="solved"]').count()).toBe(1);
    await page.goto(`${lab.url}#/lessons`);
    await expect.poll(() => page.locator('.lesson-card[data-lesson="pause-past-expiry"]').getAttribute('data-finished')).toBe('true');
    // The story's questions count on the course page too.
    expect(await page.locator('.lesson-card[data-lesson="pause-past-expiry"] .lesson-status').textContent()).toContain(
      '1/1 stories played (2 of 2 guesses right)',
    );
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it('marks each question in the outline right or wrong once answered, and counts the right ones there and on the course page', async () => {
    const page = await lab.page('#/lesson/05-fencing-tokens');
    await page.locator('article.lesson').waitFor();
    const status = page.getByTestId('lesson-status');
    expect(await status.textContent()).toMatch(/^0\/5 questions\u00a0· /);
    // The outline's marks, question by question, in page order.
    const marks = () =>
      page
        .locator('nav [aria-label="Questions and challenges"] li[data-question]')
        .evaluateAll((li) => li.map((l) => l.querySelector('[aria-label]')?.getAttribute('aria-label') ?? ''));
    await answer(page, 'what-token', [0]);
    await answer(page, 'who-checks', [1]);
    await expect.poll(() => status.textContent()).toMatch(/^2\/5 questions \(1 right\)\u00a0· /);
    const order = await page.locator('section[data-question]').evaluateAll((s) => s.map((e) => e.getAttribute('data-question')));
    const expected = order.map((q) => (q === 'what-token' ? 'answered right' : q === 'who-checks' ? 'answered wrong' : ''));
    expect((await marks()).slice(0, order.length)).toEqual(expected);
    expect(await page.locator('nav .mark-wrong').textContent()).toBe(' ✗');
    expect(await axeViolations(page, 'lesson with answers marked')).toEqual([]);
    // The course page counts them the same way.
    await page.goto(`${lab.url}#/lessons`);
    await expect
      .poll(() => page.locator('.lesson-card[data-lesson="fencing-tokens"] .lesson-status').textContent())
      .toMatch(/^in progress\u00a0· 2\/5 questions answered \(1 right\)\u00a0· /);
    await page.close();
  });

  it('loads the simulation while the learner reads: its worker starts with the page, before any run is asked for', async () => {
    const page = await lab.page('#/lessons');
    await expect.poll(() => page.locator('.lesson-card').count()).toBe(12);
    // Nothing on the lessons page runs a scenario, yet the worker's script is fetched, so a story's first Play does not wait for it.
    await expect
      .poll(() => page.evaluate(() => performance.getEntriesByType('resource').some((e) => /sim\.worker[^/]*\.js/.test(e.name))), { timeout: 10_000 })
      .toBe(true);
    expect(await page.evaluate(() => performance.getEntriesByName('locklab:trace-shown').length)).toBe(0);
    await page.close();
  });

  it("starts the worker from a small entry, and index.html preloads the page's own code and every chunk it imports", async () => {
    const html = await (await fetch(lab.url)).text();
    const entry = /<script type="module"[^>]* src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(entry).toBeDefined();
    const code = await (await fetch(`${lab.url}${entry}`)).text();
    // The entry holds the worker's start, not the page: the browser parses it at once, and the worker loads while the page's code is parsed.
    expect(code).toContain('new Worker(');
    expect(code.length).toBeLessThan(16_000);
    const preloaded = [...html.matchAll(/<link rel="modulepreload"[^>]* href="\.\/assets\/([^"]+)"/g)].map((m) => m[1]!);
    const app = preloaded.find((f) => /^app-[\w-]+\.js$/.test(f));
    expect(app).toBeDefined();
    const appCode = await (await fetch(`${lab.url}assets/${app}`)).text();
    const imports = [...appCode.matchAll(/(?:from|import)\s*"\.\/([\w-]+\.js)"/g)].map((m) => m[1]!);
    expect(imports.length).toBeGreaterThan(0);
    // The entry itself is among them (the worker's client lives there); the script tag loads it.
    for (const f of imports) if (`assets/${f}` !== entry) expect(preloaded).toContain(f);
  });

  it("leaves the scenario checker's validators out of the first load, which stays within its 250 KB gzipped", async () => {
    const html = await (await fetch(lab.url)).text();
    const first = [
      ...[...html.matchAll(/<script[^>]+src="\.\/([^"]+\.js)"/g)].map((m) => m[1]!),
      ...[...html.matchAll(/<link rel="modulepreload"[^>]* href="\.\/([^"]+\.js)"/g)].map((m) => m[1]!),
    ];
    expect(first.length).toBeGreaterThan(2);
    let gzipped = 0;
    for (const file of new Set(first)) {
      const code = await (await fetch(`${lab.url}${file}`)).text();
      // Ajv's generated checks name each value's place as instancePath: they come with the Odds view, the Sandbox's check or a lesson's sweep.
      expect(code, file).not.toContain('instancePath');
      gzipped += gzipSync(Buffer.from(code), { level: 9 }).length;
    }
    expect(gzipped / 1024).toBeLessThanOrEqual(250);
  });

  it("asks for a linked lesson's view and text from the entry, while the page's own code is still loading", async () => {
    const page = await lab.context.newPage();
    page.on('pageerror', (e) => lab.errors.push(`pageerror: ${e.message}`));
    const asked = new Set<string>();
    page.on('request', (r) => {
      const m = /\/assets\/(LessonView|lesson)-[\w-]+\.js$/.exec(r.url());
      if (m !== null) asked.add(m[1]!);
    });
    // The page's code is held back until both were asked for: only the entry can have asked.
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    await page.route(/\/assets\/app-[\w-]+\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${lab.url}${LESSON4}`, { waitUntil: 'commit' });
    await expect.poll(() => [...asked].sort(), { timeout: 10_000 }).toEqual(['LessonView', 'lesson']);
    release();
    await page.getByTestId('play-story-gc-pause').waitFor();
    expect(await page.locator('article.lesson').getAttribute('data-lesson')).toBe('pause-past-expiry');
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it('runs a story while the learner reads, and Play shows that run without asking the worker again', async () => {
    const page = await lab.context.newPage();
    page.on('pageerror', (e) => lab.errors.push(`pageerror: ${e.message}`));
    // Every run the page asks of the simulation's worker.
    await page.addInitScript(() => {
      const runs: unknown[] = [];
      (window as unknown as { __runs: unknown[] }).__runs = runs;
      const proto = Worker.prototype as unknown as { postMessage: (this: Worker, m: { type?: string }, ...rest: unknown[]) => void };
      const post = proto.postMessage;
      proto.postMessage = function (m, ...rest) {
        if (m?.type === 'run') runs.push(m);
        return post.call(this, m, ...rest);
      };
    });
    const runs = () => page.evaluate(() => (window as unknown as { __runs: unknown[] }).__runs.length);
    await page.goto(`${lab.url}${LESSON4}`);
    await page.getByTestId('play-story-gc-pause').waitFor();
    // Nothing was clicked, and the story's first run has been asked for.
    await expect.poll(runs).toBe(1);
    await page.getByTestId('play-story-gc-pause').click();
    await page.getByTestId('stage').waitFor();
    expect(await runs()).toBe(1);
    // What Play shows is the story's own run: the same trace a run asked for now gives.
    const shown = await page.evaluate(() => window.__locklab!.primaryHash());
    const fresh = await page.evaluate(() => {
      const m = (window as unknown as { __runs: Array<{ scenario: { raw: unknown }; seed: number | null; overrides: string[] }> }).__runs[0]!;
      return window.__locklab!.run({ raw: m.scenario.raw, sourceName: 'again' }, m.seed, m.overrides);
    });
    expect(shown).toBe(fresh.hash);
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it("asks for every story's first run as its lesson arrives, before drawing it, in the order the page shows them", async () => {
    const page = await lab.context.newPage();
    page.on('pageerror', (e) => lab.errors.push(`pageerror: ${e.message}`));
    // Each run the page asks of the worker: its scenario, and whether the lesson was on the page yet.
    await page.addInitScript(() => {
      const runs: { name: string; drawn: boolean }[] = [];
      (window as unknown as { __runs: typeof runs }).__runs = runs;
      const proto = Worker.prototype as unknown as {
        postMessage: (this: Worker, m: { type?: string; scenario?: { raw?: { name?: string } } }, ...rest: unknown[]) => void;
      };
      const post = proto.postMessage;
      proto.postMessage = function (m, ...rest) {
        if (m?.type === 'run') runs.push({ name: String(m.scenario?.raw?.name), drawn: document.querySelector('article.lesson') !== null });
        return post.call(this, m, ...rest);
      };
    });
    await page.goto(`${lab.url}#/lesson/07-long-work`);
    await page.getByTestId('play-story-late-grant').waitFor();
    const runs = await page.evaluate(() => (window as unknown as { __runs: { name: string; drawn: boolean }[] }).__runs);
    // Lesson 7 tells three stories: refresh, asked, late-grant, in that order on the page.
    expect(runs).toEqual([
      { name: 'refresh-loop', drawn: false },
      { name: 'is-acquired-then-pause', drawn: false },
      { name: 'lock-expired-on-acquire', drawn: false },
    ]);
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it('shows a story\'s clients as PHP, marks where each is at a stop, and the code changes with a "try this"', async () => {
    const page = await lab.page('#/lesson/06-releasing-safely');
    await page.getByTestId('play-story-plain-del').click();
    await page.getByTestId('stage').waitFor();
    const code = await openCode(page);
    const a = code.getByRole('region', { name: "A's code" }).locator('pre');
    await expect.poll(() => a.textContent()).toContain("$redis->del('job'); // a plain DEL, whoever holds the key");
    // Stop by stop, the code marks where each client is: at the fourth stop A deletes the key while B works under it.
    for (const stop of ['a-expires', 'b-takes', 'a-skips', 'a-deletes']) {
      await page.getByTestId('stop-skip').click();
      await expect.poll(() => page.getByTestId('stop-panel').getAttribute('data-stop')).toBe(stop);
      const ask = page.getByTestId('stop-ask');
      if ((await ask.count()) > 0) {
        // While a stop asks what happens next, the code cannot be used to go and look.
        expect(await code.locator('.php-go:not([disabled])').count()).toBe(0);
        expect(await code.locator('.php-go').count()).toBeGreaterThan(0);
        await ask.locator('li input').first().check();
        await ask.getByRole('button', { name: 'Check my answer' }).click();
      }
    }
    await expect.poll(() => a.locator('.php-line.here').textContent()).toBe("        $redis->del('job'); // a plain DEL, whoever holds the key ◀ A");
    expect(await code.getByRole('region', { name: "B's code" }).locator('.php-line.here').textContent()).toBe('        work(2.5); ◀ B');
    await page.getByTestId('try-token-checked').click();
    await expect.poll(() => a.textContent()).not.toContain('$redis->del');
    expect(await a.textContent()).toContain('} finally {\n        $lock->release();\n    }');
    expect(lab.errors).toEqual([]);
    // Closed, as every page here is: left open, its saves would overwrite the progress the next test's pages share.
    await page.close();
  });

  it('resumes a returning learner where they left off', async () => {
    const page = await lab.page(`${LESSON4}?at=step-what-a-lease-buys`);
    await page.locator('#step-what-a-lease-buys').waitFor();
    await page.goto(lab.url);
    await expect.poll(() => page.locator('article.lesson').getAttribute('data-lesson')).toBe('pause-past-expiry');
    await expect.poll(() => page.url()).toContain('at=step-what-a-lease-buys');
    await page.goto(`${lab.url}#/lessons`);
    // The tests above finished lesson 4: the course page's button goes on to lesson 5 rather than back into it.
    expect(await page.getByTestId('resume').textContent()).toBe('Go on to lesson 5: Fencing tokens, and when they cannot help');
    await page.close();
  });

  it('goes where the learner goes, even when the address changes just as the lab was about to write its own', async () => {
    const page = await lab.page(`${LESSON4}?at=step-what-a-lease-buys`);
    await page.locator('#step-what-a-lease-buys').waitFor();
    // A change the address will be written for (120 ms later), then the page busy while the learner follows a link to the
    // lessons page: when it is free again, the write is due and the new address is waiting to be opened.
    await page.evaluate(() => {
      const ui = window.__locklab!.ui.getState();
      ui.set({ arrows: !ui.arrows });
      setTimeout(() => {
        const t = performance.now();
        while (performance.now() - t < 400);
      }, 50);
    });
    await page.waitForTimeout(150);
    await page.goto(`${lab.url}#/lessons`);
    // Before, the due write put the lesson's address back and the link was lost.
    await expect.poll(() => page.locator('main').getAttribute('data-view')).toBe('lessons');
    await page.waitForTimeout(300);
    expect(new URL(page.url()).hash).toBe('#/lessons');
    expect(await page.locator('main').getAttribute('data-view')).toBe('lessons');
    await page.close();
  });

  it('opens a deep link to a question scrolled to it, and one to a stop with the story there', async () => {
    const page = await lab.page(`${LESSON4}?at=q-no-error`);
    const q = page.locator('#q-no-error');
    await q.waitFor();
    await expect.poll(() => q.evaluate((el) => el.getBoundingClientRect().top)).toBeLessThan(200);
    const stop = await lab.page(`${LESSON4}?at=stop-gc-pause-b-takes`);
    await waitStop(stop, 'b-takes');
    expect(await stop.getByTestId('stop-caption').textContent()).toContain('token 34');
    await page.close();
    await stop.close();
  });

  it("shows lesson 4's sweep as a card saying what it sweeps, whose link opens the Odds view with that form filled in and runs nothing", async () => {
    const page = await lab.page(`${LESSON4}?at=sweep-ttl-odds`, { width: 1440, height: 900 });
    const card = page.locator('section[data-sweep="ttl-odds"]');
    await card.waitFor();
    // Its step is in the lesson's outline, and the link to it scrolls to the card.
    expect(await page.locator('nav.lesson-nav ol a').allTextContents()).toContain('How often?');
    await expect.poll(() => card.evaluate((el) => el.getBoundingClientRect().top)).toBeLessThan(200);
    expect(await card.getByRole('heading', { level: 3 }).textContent()).toBe('How often, for three leases');
    const form = (await card.getByTestId('sweep-form').innerText()).replace(/\s+/g, ' ');
    expect(form).toBe(
      'Scenario random-gc-pauses Varied TTL of every client (ms): 10,000, 30,000 and 60,000 Runs 200 for each value (seeds 1 to 200), 600 in all',
    );
    expect(await axeViolations(page, 'lesson-sweep')).toEqual([]);
    await shotOf(card, 'lesson-sweep-card');

    // By the keyboard, as a link: the link to the sweep's place puts the focus on it, Enter follows it.
    const link = card.getByRole('link', { name: 'Open this sweep in the Odds view' });
    const href = (await link.getAttribute('href'))!;
    await expect.poll(() => link.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('odds-scenario').inputValue(), { timeout: 15_000 }).toBe('random-gc-pauses');
    expect(await page.getByTestId('vary-select').inputValue()).toBe('clients[*].ttlMs');
    expect(await page.getByTestId('vary-spec').inputValue()).toBe('10000,30000,60000');
    expect(await page.getByTestId('and-optionally-a-second-parameter-select').inputValue()).toBe('');
    expect(await page.getByTestId('odds-runs').inputValue()).toBe('200');
    // The address the Odds view writes for that form is the card's own: an edit and its undoing bring it back.
    await page.getByTestId('odds-runs').fill('201');
    await expect.poll(() => page.evaluate(() => location.hash)).toContain('runs=201');
    await page.getByTestId('odds-runs').fill('200');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(href);
    expect(decodeURIComponent(href)).toBe('#/odds?s=random-gc-pauses&vary=clients[*].ttlMs=10000,30000,60000&runs=200');
    // Nothing was run: the sweep waits for Run sweep.
    expect(await page.getByTestId('odds-run').textContent()).toBe('Run sweep');
    expect(await page.getByTestId('odds-status').textContent()).toBe('');
    expect(await page.getByTestId('odds-plot').count()).toBe(0);
    // Back returns to the lesson.
    await page.goBack();
    await card.waitFor();
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it('opens the lessons list at its top from deep in a lesson, by its link or by the address, and a question’s link still scrolls to it', async () => {
    const page = await lab.page(LESSON4, { width: 1280, height: 800 });
    await page.locator('article.lesson').waitFor();
    const deep = async () => {
      await page.evaluate(() => window.scrollTo(0, 3000));
      await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(1000);
    };
    await deep();
    await page.getByRole('link', { name: '← All lessons' }).click();
    await page.getByTestId('course-progress').waitFor();
    // Before, the list opened at the lesson's height (scrollY 627 here): lessons 4–12 and no header.
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    expect(await page.locator('.lessons-intro h1').isVisible()).toBe(true);
    await page.locator('.lesson-card[data-lesson="pause-past-expiry"] a').click();
    await page.locator('article.lesson').waitFor();
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    // The lab writes the lesson's address a moment later; until then the address is still the list's, and setting it again would change nothing.
    await expect.poll(() => page.url()).toContain(LESSON4);
    await deep();
    await page.evaluate(() => (location.hash = '#/lessons'));
    await page.getByTestId('course-progress').waitFor();
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    // An anchor is a place in a page, not a new page: it is still scrolled to.
    await page.evaluate((h) => (location.hash = h), `${LESSON4}?at=q-no-error`);
    await page.locator('#q-no-error').waitFor();
    await expect.poll(() => page.evaluate(() => document.getElementById('q-no-error')!.getBoundingClientRect().top)).toBeLessThan(50);
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(500);
    await page.close();
  });

  it('goes Back and Forward between the pages the learner opened, each scrolled where they left it, and never out of the lab', async () => {
    const page = await lab.page('#/lessons', { width: 1280, height: 800 });
    await page.getByTestId('course-progress').waitFor();
    const scrollY = () => page.evaluate(() => window.scrollY);
    const entries = () => page.evaluate(() => history.length);
    const start = await entries();
    // Scrolled down the list to lesson 4's card, and into lesson 4 from it.
    const card = page.locator('.lesson-card[data-lesson="pause-past-expiry"] a');
    await page.evaluate(() => window.scrollTo(0, 400));
    await card.scrollIntoViewIfNeeded();
    const inList = await scrollY();
    expect(inList).toBeGreaterThan(100);
    await card.click();
    await page.locator('article.lesson[data-lesson="pause-past-expiry"]').waitFor();
    expect(await scrollY()).toBe(0);
    // Read to the end of lesson 4, and on to lesson 5.
    const next = page.getByTestId('next-lesson');
    await next.scrollIntoViewIfNeeded();
    const atEnd = await scrollY();
    expect(atEnd).toBeGreaterThan(1000);
    await next.click();
    await expect.poll(() => page.locator('article.lesson').getAttribute('data-lesson')).not.toBe('pause-past-expiry');
    expect(await scrollY()).toBe(0);
    // Then the lab, where moving about (the arrows on) changes the address but makes no new entry.
    await page.getByRole('button', { name: 'Lab', exact: true }).click();
    await expect.poll(() => page.url()).toContain('#/lab');
    await expect.poll(entries).toBe(start + 3);
    await page.getByRole('checkbox', { name: 'Arrows' }).check();
    await expect.poll(() => page.url()).toMatch(/arrows/);
    expect(await entries()).toBe(start + 3);

    // Before, the lab wrote every address in place of the last: Back left Locklab for the page before it.
    await page.goBack();
    await expect.poll(() => page.locator('main').getAttribute('data-view')).toBe('lesson');
    expect(await page.locator('article.lesson').getAttribute('data-lesson')).not.toBe('pause-past-expiry');
    expect(await scrollY()).toBe(0);
    await page.goBack();
    await expect.poll(() => page.locator('article.lesson').getAttribute('data-lesson')).toBe('pause-past-expiry');
    expect(page.url()).toContain(LESSON4);
    await expect.poll(scrollY).toBe(atEnd);
    await page.goBack();
    await page.getByTestId('course-progress').waitFor();
    await expect.poll(scrollY).toBe(inList);
    await page.goForward();
    await expect.poll(() => page.locator('article.lesson').getAttribute('data-lesson')).toBe('pause-past-expiry');
    await expect.poll(scrollY).toBe(atEnd);
    // A reload keeps the place too.
    await page.reload();
    await page.locator('article.lesson[data-lesson="pause-past-expiry"]').waitFor();
    await expect.poll(scrollY).toBe(atEnd);
    // A lesson's own link to the list is one step, however many changes of state it takes: Back from the list is the lesson.
    await page.getByRole('link', { name: '← All lessons' }).click();
    await page.getByTestId('course-progress').waitFor();
    await page.goBack();
    await expect.poll(() => page.locator('main').getAttribute('data-view')).toBe('lesson');
    expect(page.url()).toContain(LESSON4);
    // Two pages opened faster than the lab writes an address (120 ms) are still two steps back.
    await page.evaluate(async () => {
      const ui = window.__locklab!.ui.getState();
      ui.set({ view: 'stores' });
      await new Promise((r) => setTimeout(r, 20));
      ui.set({ view: 'odds' });
    });
    await expect.poll(() => page.url()).toContain('#/odds');
    await page.goBack();
    await expect.poll(() => page.locator('main').getAttribute('data-view')).toBe('stores');
    await page.goBack();
    await expect.poll(() => page.locator('main').getAttribute('data-view')).toBe('lesson');
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it('after a finished lesson, the course page goes on to the next unfinished one, and says when all are finished', async () => {
    const page = await lab.page('#/lessons');
    // The learner's progress from the tests above is put back at the end, for the tests after this one.
    const before = await page.evaluate(() => localStorage.getItem('locklab.progress'));
    await page.evaluate((p) => localStorage.setItem('locklab.progress', p), finishedProgress(['leases'], 'leases'));
    await page.reload();
    expect(await page.getByTestId('course-progress').textContent()).toContain('1 of 12 lessons finished');
    expect(await page.getByTestId('resume').textContent()).toBe('Go on to lesson 4: Pause past expiry');
    await page.getByTestId('resume').click();
    await expect.poll(() => page.locator('article.lesson').getAttribute('data-lesson')).toBe('pause-past-expiry');
    const all = loadLessons(undefined, false).lessons.map((l) => l.id);
    await page.evaluate((p) => localStorage.setItem('locklab.progress', p), finishedProgress(all, 'leases'));
    await page.goto(`${lab.url}#/lessons`);
    await page.reload();
    expect(await page.getByTestId('course-progress').textContent()).toContain('12 of 12 lessons finished');
    expect(await page.getByTestId('all-finished').textContent()).toBe('You have finished all 12 lessons.');
    expect(await page.getByTestId('resume').count()).toBe(0);
    await page.evaluate((p) => (p === null ? localStorage.removeItem('locklab.progress') : localStorage.setItem('locklab.progress', p)), before);
    await page.close();
  });

  it('discards stored progress it cannot read, says so, and carries on', async () => {
    const page = await lab.page('#/lessons');
    await page.evaluate(() => localStorage.setItem('locklab.progress', '{"version":1,"answers":"no"'));
    await page.reload();
    await expect.poll(() => page.locator('.notice').textContent()).toContain('could not be read, so it was reset');
    expect(await page.getByTestId('course-progress').textContent()).toContain('0 of 12 lessons finished');
    expect(await page.evaluate(() => localStorage.getItem('locklab.progress'))).toBeNull();
    await page.locator('.lesson-card[data-lesson="one-machine"] a').click();
    await page.locator('article.lesson').waitFor();
    await page.close();
  });

  it('says so when the lesson view cannot be fetched, and keeps the rest of the lab working', async () => {
    // A page of its own: the failed fetch logs an error that is this test's, not the lab's.
    const page = await lab.context.newPage();
    await page.route(/\/assets\/LessonView-[^/]*\.js$/, (r) => r.abort('internetdisconnected'));
    await page.goto(`${lab.url}${LESSON4}`);
    await expect.poll(() => page.locator('main').textContent()).toMatch(/^This view could not be loaded \(.+\)\. Reload the page to try again\.$/);
    await page.getByRole('button', { name: 'Lab', exact: true }).click();
    await page.getByTestId('verdict').waitFor();
    await page.close();
  });

  it("says so when the page's own code cannot be fetched, instead of a blank page", async () => {
    const page = await lab.context.newPage();
    await page.route(/\/assets\/app-[\w-]+\.js$/, (r) => r.abort('internetdisconnected'));
    await page.goto(`${lab.url}#/lessons`);
    await expect.poll(() => page.locator('#root p.warn').textContent()).toMatch(/^Locklab could not load its code \(.+\)\. Reload the page to try again\.$/);
    await page.close();
  });

  /** Opens the lessons page with the page's code held back, once the page says it is loading; resolves to what lets the code through. */
  async function openWithCodeHeld(page: Page): Promise<() => void> {
    let deliver!: () => void;
    const held = new Promise<void>((resolve) => (deliver = resolve));
    await page.route(/\/assets\/app-[\w-]+\.js$/, async (r) => {
      await held;
      await r.continue();
    });
    await page.goto(`${lab.url}#/lessons`, { waitUntil: 'commit' });
    await expect.poll(() => page.locator('#root .loading').isVisible()).toBe(true);
    return deliver;
  }

  it("says it is loading while the page's code is on its way, and then shows the page in its place", async () => {
    const page = await lab.context.newPage();
    const deliver = await openWithCodeHeld(page);
    expect(await page.locator('#root .loading').textContent()).toBe('Loading Locklab…');
    deliver();
    await page.getByTestId('course-progress').waitFor();
    expect(await page.locator('#root .loading').count()).toBe(0);
    await page.close();
  });

  it('is dark while loading where the system asks for dark, not a white flash before the dark page', async () => {
    const context = await lab.browser.newContext({ colorScheme: 'dark' });
    const page = await context.newPage();
    const deliver = await openWithCodeHeld(page);
    const background = () => page.evaluate('getComputedStyle(document.documentElement).backgroundColor');
    expect(await background()).toBe('rgb(21, 23, 27)');
    deliver();
    await page.getByTestId('course-progress').waitFor();
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    expect(await background()).toBe('rgb(21, 23, 27)');
    await context.close();
  });

  /** A context whose storage holds the theme a learner chose on an earlier visit, under a system colour scheme. */
  function contextWithTheme(chosen: 'light' | 'dark', system: 'light' | 'dark') {
    const origin = new URL(lab.url).origin;
    return lab.browser.newContext({
      colorScheme: system,
      storageState: { cookies: [], origins: [{ origin, localStorage: [{ name: 'locklab.theme', value: chosen }] }] },
    });
  }

  it('is dark while loading where the learner chose dark on an earlier visit, though the system asks for light', async () => {
    const context = await contextWithTheme('dark', 'light');
    const page = await context.newPage();
    const deliver = await openWithCodeHeld(page);
    const background = () => page.evaluate('getComputedStyle(document.documentElement).backgroundColor');
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    expect(await background()).toBe('rgb(21, 23, 27)');
    expect(await page.evaluate("getComputedStyle(document.querySelector('#root .loading')).color")).toBe('rgb(170, 177, 189)');
    deliver();
    await page.getByTestId('course-progress').waitFor();
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    expect(await background()).toBe('rgb(21, 23, 27)');
    await context.close();
  });

  it('is not dark while loading where the learner chose light, though the system asks for dark', async () => {
    const context = await contextWithTheme('light', 'dark');
    const page = await context.newPage();
    const deliver = await openWithCodeHeld(page);
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('light');
    // The browser's own white, or the light theme's once the entry's styles have come (they are not held back).
    expect(['rgba(0, 0, 0, 0)', 'rgb(255, 255, 255)']).toContain(await page.evaluate('getComputedStyle(document.documentElement).backgroundColor'));
    deliver();
    await page.getByTestId('course-progress').waitFor();
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('light');
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).not.toBe('rgb(21, 23, 27)');
    await context.close();
  });

  it('says without JavaScript what it needs, and how to run the scenarios from a terminal instead', async () => {
    const context = await lab.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${lab.url}#/lessons`);
    expect(await page.locator('#root .loading').isVisible()).toBe(false);
    expect(await page.locator('#root').innerText()).toMatch(/needs JavaScript for that\. .*npx locklab run pause-past-expiry/s);
    await context.close();
  });

  it("wraps the lessons' status lines between their parts, never starting a line with a separating dot", async () => {
    for (const width of [1440, 1024, 390]) {
      const page = await lab.page('#/lessons', { width, height: 900 });
      await page.locator('.lesson-card .lesson-status').first().waitFor();
      // The first character of each line a status is laid out on, found from where each character is drawn.
      const starts = await page.locator('.lesson-card .lesson-status').evaluateAll((els) =>
        els.map((el) => {
          const found: string[] = [];
          const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
          const range = document.createRange();
          let lastTop = -Infinity;
          for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
            const text = node.textContent ?? '';
            for (let i = 0; i < text.length; i++) {
              if (text[i] === ' ') continue;
              range.setStart(node, i);
              range.setEnd(node, i + 1);
              const top = range.getBoundingClientRect().top;
              if (top > lastTop + 2) found.push(text[i]!);
              lastTop = Math.max(lastTop, top);
            }
          }
          return found.join('');
        }),
      );
      expect(starts.length, `${width} px`).toBe(12);
      // The statuses do wrap at some width, or the test would prove nothing.
      if (width === 1440) expect(starts.some((s) => s.length > 1)).toBe(true);
      for (const s of starts) expect(s, `${width} px`).not.toContain('·');
      await page.close();
    }
    expect(lab.errors).toEqual([]);
  });

  it('names an unknown lesson in a notice and shows the list instead', async () => {
    const page = await lab.page('#/lesson/99-nothing');
    await expect.poll(() => page.locator('.notice').textContent()).toContain('no lesson "99-nothing"');
    expect(await page.locator('.lesson-card').count()).toBe(12);
    await page.close();
  });

  it("lets an answered question be answered again: Try again forgets the answer, its mark in the outline and a prediction's run", async () => {
    const page = await lab.page(`${LESSON4}?at=q-no-error`);
    // From no answers at all: the tests before this one answered lesson 4's quiz in the same browser.
    const before = await page.evaluate(() => localStorage.getItem('locklab.progress'));
    await page.evaluate(() => localStorage.removeItem('locklab.progress'));
    await page.reload();
    const q = page.locator('section[data-question="no-error"]');
    const mark = page.locator('nav.lesson-nav .anchors li[data-question="no-error"] [role="img"]');
    await q.locator('label', { hasText: 'A, when it writes' }).click();
    await q.getByRole('button', { name: 'Check my answer' }).click();
    expect(await q.getByTestId('answer-result').textContent()).toBe('✗ Not quite: the right answer is marked above, and every option says why.');
    expect(await mark.getAttribute('aria-label')).toBe('answered wrong');
    await q.getByTestId('try-again').click();
    expect(await q.locator('input:checked').count()).toBe(0);
    expect(await q.locator('input:disabled').count()).toBe(0);
    expect(await q.locator('.why').count()).toBe(0);
    expect(await mark.count()).toBe(0);
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('radio');
    await q.locator('label', { hasText: 'Neither.' }).click();
    await q.getByRole('button', { name: 'Check my answer' }).click();
    expect(await q.getByTestId('answer-result').textContent()).toBe('✓ That is right.');
    expect(await mark.getAttribute('aria-label')).toBe('answered right');

    // A question with several right options says so when missed.
    const multi = page.locator('section[data-question="other-causes"]');
    await multi.locator('label', { hasText: 'container' }).click();
    await multi.getByRole('button', { name: 'Check my answer' }).click();
    expect(await multi.getByTestId('answer-result').textContent()).toBe('✗ Not quite: the right answers are marked above, and every option says why.');
    // Each right option left unticked says it was missed, not only that it is right.
    expect(await multi.locator('li', { hasText: 'container' }).locator('.why strong').textContent()).toBe('Right (your answer):');
    expect(await multi.locator('li', { hasText: 'network partition' }).locator('.why strong').textContent()).toBe('Right (you missed it):');

    // A prediction's replayed run goes with the answer, or it would give the next try away.
    const predict = page.locator('section[data-question="predict-pause"]');
    await predict.locator('label', { hasText: 'B waits until A wakes' }).click();
    await predict.getByRole('button', { name: 'Lock in my prediction and run it' }).click();
    await predict.getByTestId('prediction-result').waitFor();
    // The run shown is the one that happened, not the learner's prediction.
    expect(await predict.locator('.timeline-title > span').first().textContent()).toBe('The run that happened, not the one you predicted');
    await predict.getByTestId('try-again').click();
    expect(await predict.getByTestId('stage').count()).toBe(0);
    expect(await predict.getByTestId('replay-predict-pause').count()).toBe(0);
    expect(await predict.getByRole('button', { name: 'Lock in my prediction and run it' }).isDisabled()).toBe(true);
    await page.evaluate((p) => (p === null ? localStorage.removeItem('locklab.progress') : localStorage.setItem('locklab.progress', p)), before);
    await page.close();
    expect(lab.errors).toEqual([]);
  });

  it("lets a story's stop question be answered again, like the quiz's: Try again forgets the guess, its count in the outline, and covers the stop again", async () => {
    const page = await lab.page(`${LESSON4}?at=stop-gc-pause-a-pauses`);
    const before = await page.evaluate(() => localStorage.getItem('locklab.progress'));
    await page.evaluate(() => localStorage.removeItem('locklab.progress'));
    await page.reload();
    await waitStop(page, 'a-pauses');
    const status = page.getByTestId('lesson-status');
    await page.getByTestId('stop-ask').locator('label', { hasText: 'It is frozen too' }).click();
    await page.getByTestId('stop-ask').getByRole('button', { name: 'Check my answer' }).click();
    const caption = page.getByTestId('stop-caption');
    expect(await caption.getByTestId('answer-result').textContent()).toContain('Not quite');
    expect(await status.textContent()).toContain('(0 of 1 guess right)');
    await caption.getByTestId('try-again').click();
    const ask = page.getByTestId('stop-ask');
    await ask.waitFor();
    expect(await ask.locator('input:checked').count()).toBe(0);
    expect(await page.locator('.stage [data-curtain="true"]').count()).toBe(1);
    expect(await page.getByTestId('stop-next').isDisabled()).toBe(true);
    expect(await status.textContent()).not.toContain('guess');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('radio');
    await ask.locator('label', { hasText: 'It keeps running out' }).click();
    await ask.getByRole('button', { name: 'Check my answer' }).click();
    expect(await caption.getByTestId('answer-result').textContent()).toBe('✓ That is right.');
    expect(await status.textContent()).toContain('(1 of 1 guess right)');
    expect(await page.locator('.stage [data-curtain="true"]').count()).toBe(0);
    await page.evaluate((p) => (p === null ? localStorage.removeItem('locklab.progress') : localStorage.setItem('locklab.progress', p)), before);
    await page.close();
    expect(lab.errors).toEqual([]);
  });

  it("marks a story's stop questions in the lesson's outline, at the story's place among the questions, as the quiz's are marked: Try again and Reset progress take the marks away", async () => {
    const LESSON5 = '#/lesson/05-fencing-tokens';
    const page = await lab.page(LESSON5, { width: 1440, height: 900 });
    const before = await page.evaluate(() => localStorage.getItem('locklab.progress'));
    await page.evaluate(() => localStorage.removeItem('locklab.progress'));
    await page.reload();
    const outline = page.locator('nav [aria-label="Questions and challenges"]');
    const entry = outline.locator('li[data-story="fenced"]');
    // The story comes before the first question in the text, and asks at its fourth stop.
    expect(await outline.locator('li').first().getAttribute('data-story')).toBe('fenced');
    expect((await entry.textContent())?.trim()).toBe('▶ The zombie is turned away: stop 4');
    const mark = entry.locator('[data-stop="a-wakes"] [role="img"]');
    expect(await mark.count()).toBe(0);

    // Its link opens the story at that stop, with the question.
    await entry.getByRole('link', { name: 'stop 4' }).click();
    await waitStop(page, 'a-wakes');
    const ask = page.getByTestId('stop-ask');
    await ask.locator('label', { hasText: "Accepts it, because A's token is valid." }).click();
    await ask.getByRole('button', { name: 'Check my answer' }).click();
    await expect.poll(() => mark.getAttribute('aria-label')).toBe('answered wrong');
    expect(await mark.textContent()).toBe(' ✗');
    await page.getByTestId('stop-caption').getByTestId('try-again').click();
    await ask.waitFor();
    expect(await mark.count()).toBe(0);
    await ask.locator('label', { hasText: 'Rejects the write, because 33 is lower than 34.' }).click();
    await ask.getByRole('button', { name: 'Check my answer' }).click();
    await expect.poll(() => mark.getAttribute('aria-label')).toBe('answered right');
    // Counted as the story's guesses, beside the quiz's questions, in the outline and on the course page.
    expect(await page.getByTestId('lesson-status').textContent()).toMatch(/^0\/5 questions\u00a0· 0\/1 stories \(1 of 1 guess right\)/);
    expect(await axeViolations(page, 'lesson with a stop question marked')).toEqual([]);
    await screenshot(page, 'lesson-stop-marked-1440');
    await page.goto(`${lab.url}#/lessons`);
    const card = page.locator('.lesson-card[data-lesson="fencing-tokens"] .lesson-status');
    await expect.poll(() => card.textContent()).toContain('0/1 stories played (1 of 1 guess right)');
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('reset-progress').click();
    await expect.poll(() => card.textContent()).not.toContain('guess');
    await page.goto(`${lab.url}${LESSON5}`);
    await entry.waitFor();
    expect(await entry.locator('[role="img"]').count()).toBe(0);
    await page.evaluate((p) => (p === null ? localStorage.removeItem('locklab.progress') : localStorage.setItem('locklab.progress', p)), before);
    await page.close();
    expect(lab.errors).toEqual([]);
  });

  it("names a place the lesson does not have in a notice, with the lesson's steps, and opens the lesson at its top", async () => {
    // A step's anchor is its title: a link made before the step was renamed names a step that is gone.
    const page = await lab.page(`${LESSON4}?at=step-the-gap`);
    const notice = page.getByTestId('notice');
    await expect.poll(() => notice.textContent()).toContain('This link names a place lesson 4 does not have');
    expect(await notice.textContent()).toContain('"The story", "Why nobody notices"');
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    // Every place the lesson has opens with no notice: a step, a stop, a question and a challenge.
    for (const at of ['step-why-nobody-notices', 'stop-gc-pause-b-takes', 'q-no-error', 'challenge-break-it']) {
      const good = await lab.page(`${LESSON4}?at=${at}`);
      await good.locator(`[id="${at}"]`).waitFor();
      await good.waitForTimeout(300);
      expect(await good.getByTestId('notice').count(), at).toBe(0);
      await good.close();
    }
    await page.close();
    expect(lab.errors).toEqual([]);
  });

  it("takes a lesson link's notice away once the learner moves to another place, and keeps it while they stay", async () => {
    const page = await lab.page(`${LESSON4}?at=step-x`);
    const notice = page.getByTestId('notice');
    await expect.poll(() => notice.textContent()).toContain('This link names a place lesson 4 does not have');
    // The address is written back a moment later: still the same place, so the notice stays.
    await page.waitForTimeout(500);
    expect(await notice.count()).toBe(1);
    await page.locator('nav.lesson-nav ol a', { hasText: 'Why nobody notices' }).click();
    await expect.poll(() => page.url()).toContain('at=step-why-nobody-notices');
    expect(await notice.count()).toBe(0);
    await page.close();

    // A lesson the lab does not have: its notice goes when a lesson is opened from the list.
    const list = await lab.page('#/lesson/99-nothing');
    const listNotice = list.getByTestId('notice');
    await expect.poll(() => listNotice.textContent()).toContain('no lesson "99-nothing"');
    await list.waitForTimeout(500);
    expect(await listNotice.count()).toBe(1);
    await list.locator('.lesson-card[data-lesson="leases"] a').click();
    await expect.poll(() => list.locator('article.lesson').getAttribute('data-lesson')).toBe('leases');
    expect(await listNotice.count()).toBe(0);
    await list.close();

    // Another view is another place too.
    const away = await lab.page(`${LESSON4}?at=step-x`);
    await expect.poll(() => away.getByTestId('notice').count()).toBe(1);
    await away.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Lab' }).click();
    await away.locator('figure.timeline').first().waitFor();
    expect(await away.getByTestId('notice').count()).toBe(0);
    await away.close();
    expect(lab.errors).toEqual([]);
  });
});
