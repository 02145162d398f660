import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LESSONS_DIR, readCourse } from '../../sim/cli/lessons.js';
import { fillCaption, findEvent, judge, loadCourse, scenarioOf, type Json, type Lesson, type Story } from '../../sim/lessons/index.js';
import { describeBrowser, screenshot, SCREENSHOTS, startLab, type Lab } from './harness.js';

/*
 * Every lesson as a newcomer opens it, on a desktop and on a phone: each
 * story, question and challenge of its data is on the page, nothing is wider
 * than the screen, and a story's first stop shows its caption; then every
 * story walked stop by stop, each caption the one Node's replay fills. The
 * screenshots (lesson-NN-wide, -narrow, -stop-narrow, -story-ID) are kept to
 * be looked at.
 */

const course = loadCourse(readCourse(LESSONS_DIR).files, { replay: false });

const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 390, height: 844 };

/** How far the page, or any one element on it, reaches past the right edge of the screen. */
async function overflowPx(page: Page): Promise<{ px: number; what: string }> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    let worst = { px: document.documentElement.scrollWidth - width, what: 'the page' };
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      // Content that scrolls inside its own box (code, wide tables, the timeline) is allowed to.
      if (el.closest('pre, .table-scroll, figure.timeline, [data-scrolls]') !== null) continue;
      const over = el.getBoundingClientRect().right - width;
      if (over >= worst.px && over > 1) worst = { px: Math.round(over), what: `${el.tagName.toLowerCase()}.${el.className}` };
    }
    return worst;
  });
}

/** Each stop's caption as Node's replay of the story fills it: the browser must show the same words. */
function captionsOf(lesson: Lesson, story: Story): string[] {
  let set: Record<string, Json> = {};
  return story.stops.map((stop) => {
    if (stop.set !== undefined) set = { ...set, ...stop.set };
    const scenario = lesson.scenarios[story.scenario]!;
    const { judged } = judge(scenarioOf(scenario, { scenario: story.scenario, set }), scenario.seed);
    return fillCaption(stop.text, findEvent(judged.events, stop.at)!).text;
  });
}

describeBrowser('every lesson reads on a desktop and on a phone', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  for (const lesson of course.lessons) {
    const nn = String(lesson.number).padStart(2, '0');
    it(`lesson ${lesson.number} (${lesson.id}) shows every story, question and challenge, and fits a 390 px screen`, async () => {
      for (const [size, viewport] of [
        ['wide', WIDE],
        ['narrow', NARROW],
      ] as const) {
        const page = await lab.page(`#/lesson/${lesson.folder}`, viewport);
        await expect.poll(() => page.locator('article.lesson').getAttribute('data-lesson'), { timeout: 15_000 }).toBe(lesson.id);
        expect(await page.locator('article.lesson .lesson-heading').textContent()).toContain(lesson.title);
        for (const s of lesson.stories) expect(await page.locator(`section[data-story="${s.id}"]`).count(), s.id).toBe(1);
        for (const q of lesson.quiz) expect(await page.locator(`section[data-question="${q.id}"]`).count(), q.id).toBe(1);
        for (const c of lesson.challenges) expect(await page.locator(`section[data-challenge="${c.id}"]`).count(), c.id).toBe(1);
        // Questions are numbered in the order the page shows them, wherever the text places them.
        const titles = await page.locator('section[data-question] .embed-title').allTextContents();
        expect(titles.map((t) => Number(/^Question (\d+)/.exec(t)?.[1]))).toEqual(lesson.quiz.map((_, i) => i + 1));
        // Raw directives would mean an embed that did not render.
        expect(await page.locator('article.lesson').textContent()).not.toMatch(/::(story|question|challenge|quiz)\b/);
        // Nor Markdown drawn as it was typed: a backtick left in the page is a code span of a question or an option that did not render.
        expect(await page.locator('article.lesson').textContent()).not.toContain('`');
        if (size === 'narrow') {
          const over = await overflowPx(page);
          expect(over.px, `${over.what} reaches ${over.px} px past the screen`).toBeLessThanOrEqual(1);
        }
        await screenshot(page, `lesson-${nn}-${size}`);
        await page.close();
      }
      // The first story plays to its first stop, whose caption is the lesson's own text.
      const first = lesson.stories[0];
      if (first !== undefined) {
        const page = await lab.page(`#/lesson/${lesson.folder}?at=stop-${first.id}-${first.stops[0]!.id}`, NARROW);
        await expect.poll(() => page.getByTestId('stop-panel').getAttribute('data-stop'), { timeout: 15_000 }).toBe(first.stops[0]!.id);
        if (first.stops[0]!.ask === undefined) await expect.poll(() => page.getByTestId('stop-caption').isVisible()).toBe(true);
        else expect(await page.getByTestId('stop-ask').isVisible()).toBe(true);
        expect((await overflowPx(page)).px).toBeLessThanOrEqual(1);
        await screenshot(page, `lesson-${nn}-stop-narrow`);
        await page.close();
      }
      expect(lab.errors).toEqual([]);
    });
  }

  for (const lesson of course.lessons)
    for (const story of lesson.stories)
      it(`lesson ${lesson.number}'s story ${story.id} walks stop by stop in the browser, each caption the one Node's replay fills`, async () => {
        const want = captionsOf(lesson, story);
        const page = await lab.page(`#/lesson/${lesson.folder}?at=stop-${story.id}-${story.stops[0]!.id}`);
        const section = page.locator(`section[data-story="${story.id}"]`);
        for (const [i, stop] of story.stops.entries()) {
          await expect.poll(() => section.getByTestId('stop-panel').getAttribute('data-stop'), { timeout: 15_000 }).toBe(stop.id);
          if (stop.ask !== undefined) {
            const ask = section.getByTestId('stop-ask');
            for (const [k, o] of stop.ask.options.entries()) if (o.correct) await ask.locator(`li[data-option="${k}"] input`).check();
            await ask.getByRole('button', { name: 'Check my answer' }).click();
          }
          await expect.poll(() => section.locator('[data-testid="stop-caption"] .caption').textContent()).toBe(want[i]);
          if (i + 1 < story.stops.length) await section.getByTestId('stop-skip').click();
        }
        expect(await section.locator('.story-end').count()).toBe(1);
        mkdirSync(SCREENSHOTS, { recursive: true });
        await section.screenshot({ path: join(SCREENSHOTS, `lesson-${String(lesson.number).padStart(2, '0')}-story-${story.id}.png`), timeout: 10_000 });
        expect(lab.errors).toEqual([]);
        await page.close();
      });
});
