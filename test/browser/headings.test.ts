import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LESSONS_DIR, readCourse } from '../../sim/cli/lessons.js';
import { loadCourse } from '../../sim/lessons/index.js';
import { describeBrowser, openCode, ready, screenshot, startLab, type Lab } from './harness.js';

/*
 * The headings of the lessons page and of every lesson, as a screen reader
 * lists them: one h1, the page's title, first; steps at h2, the stories,
 * questions and challenges in them at h3, and the lab's panels an embed
 * draws (what happens at the playhead, belief beside truth, the clients'
 * code) at h4 inside it. No level is skipped going down, and no heading
 * inside a section is at its title's level or above. The lab's views
 * (Lab, Compare, Sandbox, Stores, Odds) likewise open with one h1 naming
 * the view and what it shows, their panels below it, and the document's
 * title says the same. A closed dialog's headings are not on the page.
 */

const course = loadCourse(readCourse(LESSONS_DIR).files, { replay: false });

interface Outline {
  /** Each heading in document order, as "h2 Its text". */
  readonly headings: string[];
  /** What is wrong with the outline, in words; empty when it is right. */
  readonly problems: string[];
}

async function outlineOf(page: Page): Promise<Outline> {
  return page.evaluate(() => {
    const SECTIONS = 'section, article, aside, nav, details, [role="region"], [role="group"]';
    const named = (h: Element) => `${h.tagName.toLowerCase()} ${h.textContent?.trim().replace(/\s+/g, ' ').slice(0, 100)}`;
    const levelOf = (h: Element) => Number(h.tagName.slice(1));
    const all = Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6')).filter(
      (h) => h.closest('[hidden], [aria-hidden="true"], dialog:not([open])') === null,
    );
    const problems: string[] = [];
    const ones = all.filter((h) => levelOf(h) === 1);
    if (ones.length !== 1 || all[0] !== ones[0])
      problems.push(
        `the page should open with its one h1, not ${all
          .filter((h) => levelOf(h) === 1 || h === all[0])
          .map(named)
          .join(', ')}`,
      );
    all.forEach((h, i) => {
      const before = all[i - 1];
      if (before !== undefined && levelOf(h) > levelOf(before) + 1) problems.push(`${named(h)} skips a level after ${named(before)}`);
      // A heading inside a section must be below the section's own title: its first heading not in a section of its own.
      for (let box = h.parentElement?.closest(SECTIONS); box !== null && box !== undefined; box = box.parentElement?.closest(SECTIONS)) {
        const title = all.find((t) => t.parentElement?.closest(SECTIONS) === box);
        if (title !== undefined && title !== h && levelOf(h) <= levelOf(title)) problems.push(`${named(h)} is inside ${named(title)}`);
      }
    });
    return { headings: all.map(named), problems };
  });
}

describeBrowser('the headings of the lessons and the lab’s views read as an outline', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('the lessons page has its title as the one h1', async () => {
    const page = await lab.page('#/lessons');
    await page.locator('.lesson-card').first().waitFor();
    const outline = await outlineOf(page);
    expect(outline.headings[0]).toBe('h1 Learn distributed locks by breaking them');
    expect(await page.title()).toBe('Learn distributed locks by breaking them — Locklab');
    expect(outline.problems).toEqual([]);
    await page.close();
    expect(lab.errors).toEqual([]);
  });

  for (const lesson of course.lessons)
    it(`lesson ${lesson.number} (${lesson.id}): its title the h1, its steps h2, its embeds h3 and the panels of a story on the stage h4 inside it`, async () => {
      const story = lesson.stories[0];
      const at = story === undefined ? '' : `?at=stop-${story.id}-${story.stops[0]!.id}`;
      const page = await lab.page(`#/lesson/${lesson.folder}${at}`);
      await expect.poll(() => page.locator('article.lesson').getAttribute('data-lesson'), { timeout: 15_000 }).toBe(lesson.id);
      if (story !== undefined) {
        await page.getByTestId('stage').waitFor({ timeout: 15_000 });
        await openCode(page);
        await page.locator('.clients-code .code-title').first().waitFor();
        // The details of an event, as a click on the timeline opens them.
        await page.evaluate(() => window.__locklab!.ui.getState().set({ selected: 1 }));
        await page.getByTestId('inspector').waitFor();
      }
      const outline = await outlineOf(page);
      expect(outline.headings[0]).toBe(`h1 ${lesson.title}`);
      expect(await page.title()).toBe(`${lesson.title} — Locklab`);
      for (const step of lesson.steps) expect(outline.headings).toContain(`h2 ${step.title}`);
      if (story !== undefined) {
        const title = outline.headings.indexOf(`h3 ▶ Story: ${story.title}`);
        expect(title).toBeGreaterThan(0);
        expect(outline.headings[title + 1]).toMatch(/^h4 /);
      }
      expect(outline.problems).toEqual([]);
      await page.close();
      expect(lab.errors).toEqual([]);
    });
  /** Opens the details of an event, as a click on the timeline does. */
  const inspect = async (page: Page) => {
    await page.evaluate(() => window.__locklab!.ui.getState().set({ selected: 1 }));
    await page.getByTestId('inspector').waitFor();
  };

  const views: { view: string; hash: string; h1: string; open: (page: Page) => Promise<void>; then?: string[] }[] = [
    {
      view: 'Lab',
      hash: '#/lab?s=pause-past-expiry',
      h1: 'Lab: pause-past-expiry',
      open: async (page) => {
        await ready(page);
        await openCode(page);
        await inspect(page);
      },
    },
    {
      view: 'Compare',
      hash: '#/compare?s=pause-past-expiry',
      h1: 'Compare: pause-past-expiry',
      open: async (page) => {
        await expect.poll(() => page.locator('figure.timeline').count()).toBe(2);
        await openCode(page);
      },
      // Each run's panels under its own heading.
      then: ['h2 Run 1', 'h3 Before the first event · true time 0.000 s'],
    },
    {
      view: 'Sandbox',
      hash: '#/sandbox?s=pause-past-expiry',
      h1: 'Sandbox: pause-past-expiry',
      open: async (page) => {
        await page.getByTestId('sandbox-run').click();
        await page.getByTestId('verdict').waitFor();
      },
      // The verdict one heading away: a screen reader's list of headings goes from the page's name to the result.
      then: ['h1 Sandbox: pause-past-expiry', 'h2 Result'],
    },
    { view: 'Stores', hash: '#/stores', h1: 'Stores', open: (page) => page.getByTestId('stores-table').waitFor() },
    {
      view: 'Odds',
      hash: '#/odds',
      h1: 'Odds',
      open: async (page) => {
        await page.getByTestId('odds-runs').fill('20');
        await page.getByTestId('odds-run').click();
        await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 60_000 }).toContain('done');
        await page.getByTestId('odds-table').getByRole('button', { name: '9,000', exact: true }).click();
        await page.getByTestId('odds-details').waitFor();
      },
    },
  ];
  for (const v of views)
    it(`the ${v.view} view opens with one h1 naming it, its panels below it with no level skipped, and the document's title says the same`, async () => {
      const page = await lab.page(v.hash, { width: 1440, height: 900 });
      await v.open(page);
      const outline = await outlineOf(page);
      expect(outline.headings[0]).toBe(`h1 ${v.h1}`);
      if (v.then !== undefined) {
        const at = outline.headings.indexOf(v.then[0]!);
        expect(outline.headings.slice(at, at + v.then.length)).toEqual(v.then);
      }
      expect(outline.problems).toEqual([]);
      expect(await page.title()).toBe(`${v.h1} — Locklab`);
      await screenshot(page, `headings-${v.view.toLowerCase()}-1440`);
      await page.close();
      expect(lab.errors).toEqual([]);
    });
});
