import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS, normalizeScenario, runScenario, serializeTrace } from '../../sim/index.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedEntry } from '../../sim/real/recording.js';
import { storyScenario } from '../../sim/real/stories.js';
import { validateTrace } from '../../sim/trace/validate.js';
import { realParting } from '../../web/model/real-parting.js';
import { describeBrowser, ready, REPO, screenshot, SCREENSHOTS, startLab, type Lab } from './harness.js';

describeBrowser('fork and compare', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('forks from the playhead with a pause added there, and shows both runs on one axis, parting where they differ', async () => {
    const page = await lab.page('#/lab?s=crash-without-release&t=4');
    await ready(page);
    await expect.poll(() => page.getByTestId('current-event').textContent()).toContain('Event 5 of');
    await page.getByTestId('fork-open').click();
    const dialog = page.getByTestId('fork-dialog');
    await dialog.getByLabel(/Add a fault at/).check();
    await dialog.getByLabel('Fault', { exact: true }).selectOption('store-restart');
    await dialog.getByTestId('fork-run').click();
    await expect.poll(() => page.locator('figure.timeline').count()).toBe(2);
    await expect.poll(() => page.getByTestId('divergence').textContent()).toContain('The runs part at');
    expect(await page.locator('[data-mark="divergence"]').count()).toBe(2);
    // The dashed line is explained in the legend under the runs.
    expect(await page.getByTestId('legend').locator('[data-legend="divergence"]').textContent()).toContain('where the two runs first differ');
    expect(await page.locator('figure.timeline').nth(1).locator('figcaption').textContent()).toMatch(
      /^Run 2 · the same run with a store restart added at \d+\.\d{3} s/,
    );
    expect(await page.locator('figure.timeline').nth(0).locator('figcaption').textContent()).toMatch(/^Run 1 · /);
    expect(await page.locator('figure.timeline').nth(1).locator('[data-mark="store-down"]').count()).toBe(1);
    await screenshot(page, 'fork-store-restart');
    // The fork is the same scenario plus overrides, so it has a link too.
    await expect.poll(() => page.url()).toContain('b=1');
    expect(page.url()).toContain('bset=faults');
    expect(lab.errors).toEqual([]);
  });

  it('compares fencing off with fencing on, one time axis, one playhead', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    await page.getByRole('button', { name: 'Compare' }).click();
    await expect.poll(() => page.locator('figure.timeline').count()).toBe(2);
    const [a, b] = [page.locator('figure.timeline').nth(0), page.locator('figure.timeline').nth(1)];
    await expect.poll(() => b.getAttribute('data-outcome')).toBe('fenced');
    expect(await a.getAttribute('data-outcome')).toBe('unsafe');
    expect(await a.locator('[data-mark="write"][data-outcome="stale-accepted"]').count()).toBe(1);
    expect(await b.locator('[data-mark="write"][data-outcome="rejected"]').count()).toBe(1);
    // Before the first event neither run marks an event: the other run's events at 0 s are not yet "now" either.
    expect(await a.locator('[data-mark="current-event"]').count()).toBe(0);
    expect(await b.locator('[data-mark="current-event"]').count()).toBe(0);
    const panelB = page.getByRole('complementary', { name: /^At the playhead in / });
    expect(await panelB.getByTestId('current-event').textContent()).toContain('Before the first event');
    await page.locator('main').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => a.locator('[data-mark="current-event"]').count()).toBe(1);
    expect(await b.locator('[data-mark="current-event"]').count()).toBe(1);
    expect(await panelB.getByTestId('current-event').textContent()).not.toContain('Before the first event');
    await page.keyboard.press('End');
    const pa = await a.locator('[data-mark="playhead"]').getAttribute('data-us');
    const pb = await b.locator('[data-mark="playhead"]').getAttribute('data-us');
    expect(pa).toBe(pb);
    await screenshot(page, 'compare-fencing');
  });

  it('compares with a trace recorded on real servers, loaded from a file', async () => {
    const doc = runScenario(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'x'), 9);
    const real = serializeTrace({ ...doc, source: 'real' });
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    await page.getByRole('button', { name: 'Compare' }).click();
    await expect.poll(() => page.locator('figure.timeline').count()).toBe(2);
    await page.getByTestId('compare-file').setInputFiles({ name: 'redis-real.trace.json', mimeType: 'application/json', buffer: Buffer.from(real) });
    const b = page.locator('figure.timeline').nth(1);
    await expect.poll(() => b.locator('figcaption').textContent()).toContain('recorded on real servers');
    expect(await b.locator('figcaption').textContent()).toContain('redis-real.trace.json');
  });

  it('sets the trace recorded on real servers with Symfony Lock beside the simulated run, saying where it was recorded', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    await page.getByRole('button', { name: 'Compare' }).click();
    await expect.poll(() => page.locator('figure.timeline').count()).toBe(2);
    await page.getByRole('button', { name: 'Compare with real servers (Symfony Lock)' }).click();
    const b = page.locator('figure.timeline').nth(1);
    await expect.poll(() => b.locator('figcaption').textContent()).toMatch(/recorded on Redis 7\.\d+\.\d+ with Symfony Lock 5\.4/);
    expect(await b.getAttribute('data-outcome')).toBe('unsafe');
    // The real run has the story's marks: A's stale write accepted after its lease ran out on the server.
    expect(await b.locator('[data-mark="write"][data-outcome="stale-accepted"]').count()).toBe(1);
    expect(await b.locator('[data-mark="double-ownership"]').count()).toBeGreaterThan(0);
    // Where the runs part is told by what the clients were answered, not by timestamps, which never match a real run's.
    const scenario = storyScenario('pause-past-expiry');
    const recorded = validateTrace(JSON.parse(readFileSync(join(REPO, 'recorded', 'pause-past-expiry-symfony.json'), 'utf8')), 'recorded');
    const parting = realParting(runScenario(scenario, scenario.seed), recorded);
    await expect.poll(() => page.getByTestId('divergence').textContent()).toBe(parting.sentence);
    expect(parting.sentence).not.toContain('part at 0.000 s');
    expect(await page.locator('[data-mark="divergence"]').count()).toBe(parting.divergeUs === null ? 0 : 2);
    await screenshot(page, 'compare-real-symfony');
    expect(lab.errors).toEqual([]);
  });

  it("offers a lesson's own real recording beside that lesson's scenario, imported and run, and not the built-in's of the same name", async () => {
    const file = join(REPO, 'lessons', '08-when-the-store-forgets', 'redis-restart.json');
    const page = await lab.page('#/sandbox');
    await page.getByTestId('import-scenario').setInputFiles(file);
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('file:redis-restart.json');
    await page.getByTestId('sandbox-run').click();
    await page.getByRole('button', { name: 'Open in the Lab to step through it' }).click();
    await page.getByRole('button', { name: 'Compare' }).click();
    await expect.poll(() => page.locator('figure.timeline').count()).toBe(2);
    // The lesson's scenario is not the built-in redis-restart-without-persistence, so only the lesson's recording fits it.
    const offered = page.getByTestId('compare-recorded');
    await expect.poll(() => offered.count()).toBe(1);
    await offered.click();
    const b = page.locator('figure.timeline').nth(1);
    await expect.poll(() => b.locator('figcaption').textContent()).toMatch(/recorded on Redis 7\.\d+\.\d+ with Locklab's own lock code/);
    const entry = (JSON.parse(readFileSync(join(REPO, 'recorded', 'index.json'), 'utf8')) as RecordedEntry[]).find(
      (e) => e.file === 'lesson-08-when-the-store-forgets--redis-restart-node.json',
    )!;
    expect(await b.getAttribute('data-outcome')).toBe(entry.outcome);
    await screenshot(page, 'compare-lesson-recording');
    expect(lab.errors).toEqual([]);
  });

  it('says, beside a recording of a race, how many of its real runs ended as the simulation does', async () => {
    const entry = (JSON.parse(readFileSync(join(REPO, 'recorded', 'index.json'), 'utf8')) as RecordedEntry[]).find((e) => e.realRuns !== undefined)!;
    expect(entry.file).toBe('lesson-02-atomic-acquire--race-node.json');
    const page = await lab.page('#/sandbox');
    await page.getByTestId('import-scenario').setInputFiles(join(REPO, 'lessons', '02-atomic-acquire', 'race.json'));
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('file:race.json');
    await page.getByTestId('sandbox-run').click();
    await page.getByRole('button', { name: 'Open in the Lab to step through it' }).click();
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByTestId('compare-recorded').click();
    await expect
      .poll(() => page.getByTestId('real-odds').textContent())
      .toBe(
        `A race on real servers: of the ${entry.realRuns!.of} real runs recorded, ${entry.realRuns!.ended} ended as the simulation does; Run 2 is one of them.`,
      );
    await screenshot(page, 'compare-real-race');
    // Fencing on beside the same run is no recording, and says nothing of odds.
    await page.getByRole('button', { name: 'Compare with fencing on' }).click();
    await expect.poll(() => page.getByTestId('real-odds').count()).toBe(0);
    expect(lab.errors).toEqual([]);
  });

  it('refuses a damaged trace file with the path of what is wrong, rendering nothing from it', async () => {
    const doc = runScenario(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'x'), 7);
    const events = doc.events.map((e, i) => (i === 3 ? { ...e, seq: 99, kind: '<script>window.__pwned=1</script>' } : e));
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    await page
      .getByTestId('open-trace')
      .setInputFiles({ name: 'broken.trace.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ ...doc, events })) });
    const notice = page.getByTestId('notice');
    await expect.poll(() => notice.textContent()).toContain('broken.trace.json: events[3].kind');
    expect(await page.locator('main script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // The lab keeps the trace it had.
    expect(await page.locator('[data-mark="double-ownership"]').count()).toBe(1);
  });
  it("marks in the clients' code where each process is in each run, and shows each run's code where the two differ", async () => {
    // Run 2 gives A a 20 s lease: A's code differs between the runs (createLock's TTL), B's does not.
    const page = await lab.page('#/compare?s=pause-past-expiry&b=1&bset=clients.A.ttlMs%3D20000&code=1&t=18');
    await ready(page);
    const code = page.getByTestId('clients-code');
    await expect
      .poll(() => code.locator('section').evaluateAll((ss) => ss.map((s) => s.getAttribute('aria-label'))), { timeout: 15_000 })
      .toEqual(["A's code in run 1", "A's code in run 2", "B's code"]);
    expect(await code.locator('section[data-run="1"] h2').textContent()).toBe('A on app1 · run 1');
    expect(await code.locator('section[data-run="2"] .php-line[data-n="1"]').textContent()).toContain("createLock('job', 20)");
    // At B's write in run 1 (A's 10 s lease ran out), run 2's B is still being refused: A's 20 s lease has not.
    const b = code.locator(`section[aria-label="B's code"]`);
    const here = (line: number) => b.locator(`.php-line.here[data-n="${line}"]`);
    await expect.poll(() => here(6).locator('.php-here').textContent()).toBe(' ◀ B in run 1');
    expect(await here(6).getAttribute('data-here')).toBe('B');
    expect(await here(6).getAttribute('data-here-run2')).toBeNull();
    expect(await here(3).locator('.php-here').textContent()).toBe(' ◀ B in run 2');
    expect(await here(3).getAttribute('data-here-run2')).toBe('B');
    expect(await b.locator('.php-line.here').count()).toBe(2);
    // Each block of one run's code is marked for that run alone, its heading saying which.
    for (const run of [1, 2]) expect(await code.locator(`section[data-run="${run}"] .php-line.here[data-n="5"] .php-here`).textContent()).toBe(' ◀ A, paused');
    await code.screenshot({ path: join(SCREENSHOTS, 'compare-code-ttl.png'), timeout: 10_000 });
    await page.close();

    // Fencing on changes no line of code: one block per client, each process marked once for both runs where they agree.
    const fenced = await lab.page('#/compare?s=pause-past-expiry&b=1&bset=resource.fencing%3Dtrue&code=1&t=14');
    await ready(fenced);
    const both = fenced.getByTestId('clients-code');
    await expect
      .poll(() => both.locator('section').evaluateAll((ss) => ss.map((s) => s.getAttribute('aria-label'))), { timeout: 15_000 })
      .toEqual(["A's code", "B's code"]);
    const a5 = both.locator(`section[aria-label="A's code"] .php-line.here[data-n="5"]`);
    await expect.poll(() => a5.locator('.php-here').textContent()).toBe(' ◀ A, paused, in both runs');
    expect([await a5.getAttribute('data-here'), await a5.getAttribute('data-here-run2')]).toEqual(['A', 'A']);
    expect(await both.locator('p.muted').first().textContent()).toContain('marked in run 1 and in run 2.');

    // A recording from real servers keeps its marks beside it: at 11 s A is frozen in work(3) on the real servers too.
    await fenced.getByTestId('compare-recorded').first().click();
    await expect.poll(() => fenced.locator('figure.timeline').nth(1).locator('figcaption').textContent(), { timeout: 15_000 }).toContain('recorded on Redis');
    await expect.poll(() => a5.locator('.php-here').textContent()).toBe(' ◀ A, paused, in both runs');
    expect(await a5.getAttribute('data-here-run2')).toBe('A');
    await screenshot(fenced, 'compare-code-real');
    // A trace from a file (one recorded before marks were kept, say) says nothing of lines: only run 1 is marked, and the panel says why.
    const doc = runScenario(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'x'), 9);
    await fenced
      .getByTestId('compare-file')
      .setInputFiles({ name: 'redis-real.trace.json', mimeType: 'application/json', buffer: Buffer.from(serializeTrace({ ...doc, source: 'real' })) });
    await expect.poll(() => both.locator('p.muted').first().textContent(), { timeout: 15_000 }).toContain('run 2 does not say which line made its events');
    expect(await both.locator('.php-line.here[data-here-run2]').count()).toBe(0);
    await expect.poll(() => a5.locator('.php-here').textContent()).toBe(' ◀ A, paused, in run 1');
    expect(lab.errors).toEqual([]);
    await fenced.close();
  });
});
