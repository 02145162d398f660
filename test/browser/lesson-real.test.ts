import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { check } from '../../sim/check/checker.js';
import { LESSONS_DIR, readCourse } from '../../sim/cli/lessons.js';
import { loadCourse } from '../../sim/lessons/index.js';
import { findingOf } from '../../sim/real/agreement.js';
import { lessonStoryScenario } from '../../sim/real/lesson-stories.js';
import type { RecordedEntry } from '../../sim/real/record.js';
import { runScenario } from '../../sim/run.js';
import { validateTrace } from '../../sim/trace/validate.js';
import { realParting } from '../../web/model/real-parting.js';
import { describeBrowser, openCode, REPO, SCREENSHOTS, startLab, type Lab } from './harness.js';

/*
 * A learner reading a lesson presses "Watch this on real servers" at a story
 * and sees the recorded real run above the simulated one, with where it was
 * recorded, its verdict, and whether it ends as the story does; a story that
 * cannot be made real says why instead.
 */

const course = loadCourse(readCourse(LESSONS_DIR).files, { replay: false });
const index = JSON.parse(readFileSync(join(REPO, 'recorded', 'index.json'), 'utf8')) as RecordedEntry[];
const lesson4 = course.lessons.find((l) => l.id === 'pause-past-expiry')!;
const gcPause = lesson4.stories.find((s) => s.id === 'gc-pause')!;

describeBrowser("a lesson's story on real servers", () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  for (const client of ['node', 'symfony'] as const) {
    it(`opens the ${client} recording of lesson 4's GC pause above the simulated story, with where it was recorded and a verdict that agrees with the story's`, async () => {
      const entry = index.find((e) => e.lesson === lesson4.id && e.story === gcPause.id && e.client === client)!;
      expect(entry).toBeDefined();
      const recorded = validateTrace(JSON.parse(readFileSync(join(REPO, 'recorded', entry.file), 'utf8')), entry.file);
      const { scenario, seed } = lessonStoryScenario(lesson4, gcPause);
      const simulated = runScenario(scenario, seed);
      expect(findingOf(check(recorded.events))).toEqual(findingOf(check(simulated.events)));

      for (const [size, viewport] of [
        ['1440', { width: 1440, height: 900 }],
        ['1024', { width: 1024, height: 768 }],
      ] as const) {
        const page = await lab.page(`#/lesson/${lesson4.folder}`, viewport);
        const section = page.locator(`section[data-story="${gcPause.id}"]`);
        await section.getByTestId(`watch-real-${client}`).click();
        const timelines = section.locator('figure.timeline');
        await expect.poll(() => timelines.count(), { timeout: 15_000 }).toBe(2);
        // Upper: the real run, captioned with where it was recorded; lower: the story as simulated.
        await expect.poll(() => timelines.nth(0).locator('figcaption').textContent()).toContain(`${gcPause.title} · on real servers, ${entry.recordedOn}`);
        expect(await timelines.nth(1).locator('figcaption').textContent()).toContain(`${gcPause.title} · simulated`);
        expect(await timelines.nth(0).getAttribute('data-outcome')).toBe(simulated.verdict.outcome);
        expect(await timelines.nth(1).getAttribute('data-outcome')).toBe(simulated.verdict.outcome);
        // A's late write is on the real timeline as a stale write the resource accepted, as in the story.
        expect(await timelines.nth(0).locator('[data-mark="write"][data-outcome="stale-accepted"]').count()).toBe(1);
        const panel = section.getByTestId('real-panel');
        expect(await panel.getByTestId('verdict').getAttribute('data-outcome')).toBe(recorded.verdict.outcome);
        expect(await panel.getByTestId('real-recorded-on').textContent()).toMatch(
          client === 'symfony' ? /^Recorded on Redis 7\.\d+\.\d+ with Symfony Lock 5\.4/ : /^Recorded on Redis 7\.\d+\.\d+ with Locklab's own lock code\.$/,
        );
        const agreement = panel.getByTestId('real-agreement');
        expect(await agreement.getAttribute('data-agrees')).toBe('true');
        expect(await agreement.textContent()).toBe(
          `It ends as the story does: unsafe, a stale write was accepted; A and B both believed they held the lock. ${realParting(simulated, recorded).sentence}`,
        );
        expect(await section.getByTestId(`watch-real-${client}`).getAttribute('aria-pressed')).toBe('true');
        // Symfony's run has no fencing tokens where the story has 33 and 34, and the panel says why.
        expect(await panel.getByTestId('real-no-fences').count()).toBe(client === 'symfony' ? 1 : 0);
        // A story that is not racy says nothing of odds.
        expect(await panel.getByTestId('real-odds').count()).toBe(0);
        mkdirSync(SCREENSHOTS, { recursive: true });
        await section.screenshot({ path: join(SCREENSHOTS, `lesson-04-real-${client}-${size}.png`), timeout: 10_000 });
        await page.close();
      }
      expect(lab.errors).toEqual([]);
    });
  }

  it('keeps the real run beside the story as the learner goes from stop to stop', async () => {
    const page = await lab.page(`#/lesson/${lesson4.folder}`);
    const section = page.locator(`section[data-story="${gcPause.id}"]`);
    await section.getByTestId('watch-real-node').click();
    await expect.poll(() => section.locator('figure.timeline').count(), { timeout: 15_000 }).toBe(2);
    await section.getByTestId('stop-skip').click();
    await expect.poll(() => section.getByTestId('stop-panel').getAttribute('data-stop')).toBe(gcPause.stops[0]!.id);
    expect(await section.locator('figure.timeline').count()).toBe(2);
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it("marks in the clients' code where each process is in the simulation and on the real servers, at the same moment", async () => {
    const { scenario, seed } = lessonStoryScenario(lesson4, gcPause);
    const bTakes = runScenario(scenario, seed).events.find((e) => e.kind === 'acquire.ok' && e.actor === 'B')!;
    const page = await lab.page(`#/lesson/${lesson4.folder}`, { width: 1440, height: 900 });
    const section = page.locator(`section[data-story="${gcPause.id}"]`);
    await section.getByTestId('watch-real-node').click();
    await expect.poll(() => section.locator('figure.timeline').count(), { timeout: 15_000 }).toBe(2);
    const code = await openCode(page);
    await page.evaluate((seq) => window.__locklab!.ui.getState().seekSeq(seq), bTakes.seq);
    await expect.poll(() => code.locator('p.muted').first().textContent()).toContain('marked in the simulation and in the real run.');
    // At 11 s A is frozen in work(3) in both runs, its lease gone; B is on its own line in each.
    const a5 = code.locator(`section[aria-label="A's code"] .php-line.here[data-n="5"]`);
    await expect.poll(() => a5.locator('.php-here').textContent()).toBe(' ◀ A, paused, in both');
    expect([await a5.getAttribute('data-here'), await a5.getAttribute('data-here-run2')]).toEqual(['A', 'A']);
    expect(await code.locator(`section[aria-label="B's code"] .php-line.here[data-here-run2="B"]`).count()).toBe(1);
    await section.screenshot({ path: join(SCREENSHOTS, 'lesson-04-real-code.png'), timeout: 10_000 });
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it("goes back to the story's opening run when pressed at the stop that turned fencing on, so the real run is set beside the run it is a recording of", async () => {
    const last = gcPause.stops.at(-1)!;
    expect(last.set).toEqual({ 'resource.fencing': true });
    const page = await lab.page(`#/lesson/${lesson4.folder}?at=stop-${gcPause.id}-${last.id}`);
    const section = page.locator(`section[data-story="${gcPause.id}"]`);
    await expect.poll(() => section.getByTestId('stop-panel').getAttribute('data-stop'), { timeout: 15_000 }).toBe(last.id);
    expect(await section.locator('figure.timeline').first().getAttribute('data-outcome')).toBe('fenced');
    await section.getByTestId('watch-real-node').click();
    await expect.poll(() => section.locator('figure.timeline').count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => section.locator('figure.timeline').nth(1).getAttribute('data-outcome')).toBe('unsafe');
    expect(await section.getByTestId('real-agreement').getAttribute('data-agrees')).toBe('true');
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it("shows lesson 2's race on real servers as one of the runs that lost it, saying how many of the recorder's runs did", async () => {
    const lesson2 = course.lessons.find((l) => l.number === 2)!;
    const race = lesson2.stories.find((s) => s.racy !== undefined)!;
    const entry = index.find((e) => e.lesson === lesson2.id && e.story === race.id && e.client === 'node')!;
    expect(entry.realRuns!.ended).toBeGreaterThan(0);
    const page = await lab.page(`#/lesson/${lesson2.folder}`);
    const section = page.locator(`section[data-story="${race.id}"]`);
    await section.getByTestId('watch-real-node').click();
    await expect.poll(() => section.locator('figure.timeline').count(), { timeout: 15_000 }).toBe(2);
    const panel = section.getByTestId('real-panel');
    await expect
      .poll(() => panel.getByTestId('real-odds').textContent())
      .toBe(
        `${race.racy} It ended as the story does in ${entry.realRuns!.ended} of ${entry.realRuns!.of} runs on real servers; this recording is one of them.`,
      );
    expect(await panel.getByTestId('real-agreement').getAttribute('data-agrees')).toBe('true');
    // The overwrite that makes two holders happened on the real Redis too.
    expect(await section.locator('figure.timeline').nth(0).getAttribute('data-outcome')).toBe('unsafe');
    expect(await section.locator('.real-servers').textContent()).toContain(`Not with Symfony Lock: ${race.notOnSymfony}`);
    await section.screenshot({ path: join(SCREENSHOTS, 'lesson-02-real-race.png'), timeout: 10_000 });
    await page.setViewportSize({ width: 1024, height: 768 });
    await section.screenshot({ path: join(SCREENSHOTS, 'lesson-02-real-race-1024.png'), timeout: 10_000 });
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it('says why, in place of a button, at a story that cannot be made real, and why Symfony Lock is left out where it is', async () => {
    const lesson1 = course.lessons.find((l) => l.number === 1)!;
    const story = lesson1.stories[0]!;
    const page = await lab.page(`#/lesson/${lesson1.folder}`);
    const section = page.locator(`section[data-story="${story.id}"]`);
    await expect.poll(() => section.getByTestId('not-real').textContent(), { timeout: 15_000 }).toBe(`Not on real servers: ${story.notReal}`);
    expect(await section.locator('[data-testid^="watch-real-"]').count()).toBe(0);
    await page.close();

    const lesson5 = course.lessons.find((l) => l.number === 5)!;
    const fenced = lesson5.stories[0]!;
    const p5 = await lab.page(`#/lesson/${lesson5.folder}`);
    const s5 = p5.locator(`section[data-story="${fenced.id}"]`);
    await expect.poll(() => s5.getByTestId('watch-real-node').count(), { timeout: 15_000 }).toBe(1);
    expect(await s5.getByTestId('watch-real-symfony').count()).toBe(0);
    expect(await s5.locator('.real-servers').textContent()).toContain(`Not with Symfony Lock: ${fenced.notOnSymfony}`);
    expect(lab.errors).toEqual([]);
    await p5.close();
  });
});
