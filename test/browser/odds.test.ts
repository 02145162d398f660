import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { SweepAggregate } from '../../sim/odds/aggregate.js';
import { runBatch } from '../../sim/odds/batch.js';
import { planSweep } from '../../sim/odds/plan.js';
import { parseSeedRange, parseVary } from '../../sim/odds/range.js';
import { formatCycles, formatCyclesShort, formatShare, reportCsv, sweepReport, type SweepReport } from '../../sim/odds/report.js';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides, parseOverride } from '../../sim/scenario/set.js';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { traceHash } from '../../sim/index.js';
import { axeViolations, describeBrowser, ready, REPO, screenshot, startLab, type Lab } from './harness.js';

/** A sweep of a scenario computed under Node with the same modules as the lab's workers, as `locklab sweep <ref>` runs it. */
/** A row of the Odds view's table as Node's report gives it: the point's value, its runs, then each share in the table's order. */
function tableRow(value: string, runs: string, c: SweepReport['combinations'][number]): string[] {
  return [
    value,
    runs,
    formatShare(c.doubleOwnership),
    formatCyclesShort(c.doubleOwnedCycles),
    formatShare(c.unsafe),
    formatShare(c.fenced),
    formatShare(c.lostLock),
  ];
}

function sweepInNode(ref: string, raw: unknown, vary: string, runs: number): SweepReport {
  const base = normalizeScenario(raw, ref);
  const plan = planSweep({
    scenarioRef: ref,
    base,
    sets: [],
    varies: [parseVary(vary)],
    seeds: parseSeedRange(`1..${runs}`),
    codeVersion: 'lab',
    batchSize: runs,
  });
  const agg = new SweepAggregate(plan);
  for (const b of plan.batches) agg.accept(b.key, runBatch(plan.combinations[b.combo]!.scenario, b.from, b.to));
  return sweepReport(agg, base.name);
}

/** The Odds view's default sweep. */
function nodeReport(): SweepReport {
  return sweepInNode('pause-past-expiry', BUILTIN_SCENARIOS['pause-past-expiry'], 'faults[0].durationMs=7000..17000:1000', 1000);
}

describeBrowser('the Odds view', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('says once, beside the odds, that a lease ends before the work it covers at the TTLs swept', async () => {
    const page = await lab.page('#/odds', { width: 1440, height: 900 });
    await page.getByTestId('odds-scenario').selectOption('release-by-plain-del');
    await page.getByTestId('odds-runs').fill('20');
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 60_000 }).toContain('done');
    // The story's 2 s lease under 3 s of work is meant: a note without a suggested unit, once for the whole sweep over A's TTL.
    expect(await page.getByTestId('short-lease').allTextContents()).toEqual([
      'Note: A\'s lease ("ttlMs": 1000 to 2800, 1 s to 2.8 s) ends before its work (3 s) does, so it works on past its lock with no fault at all, in 10 of the 11 combinations swept.',
    ]);
    expect(lab.errors).toEqual([]);
  });

  it('sweeps in Web Workers and plots the same counts Node computes, with the scenario’s own value marked', async () => {
    const page = await lab.page('#/odds', { width: 1440, height: 900 });
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 60_000 }).toMatch(/11,000 of 11,000 runs .* done$/);
    const expected = nodeReport();
    const points = page.locator('[data-testid="odds-plot"] g.odds-point[data-metric="unsafe"]');
    expect(await points.count()).toBe(11);
    for (let i = 0; i < 11; i++) {
      const label = await page.locator(`g.odds-point[data-metric="unsafe"][data-combo="${i}"]`).getAttribute('aria-label');
      expect(label).toContain(`stale write accepted ${formatShare(expected.combinations[i]!.unsafe)} of 1,000 runs`);
      const dbl = await page.locator(`g.odds-point[data-metric="doubleOwnership"][data-combo="${i}"]`).getAttribute('aria-label');
      expect(dbl).toContain(`double ownership ${formatShare(expected.combinations[i]!.doubleOwnership)} of 1,000 runs`);
    }
    // The built-in story pauses A for 15 s: that value is marked on the axis.
    expect(await page.getByTestId('odds-chosen').textContent()).toBe('scenario: 15,000');
    // Each series has its interval drawn as a band.
    expect(await page.locator('path.odds-band').count()).toBe(2);
    // Beside the plot, every point as figures, as `locklab sweep` prints them, without hovering.
    const table = page.getByTestId('odds-table');
    expect(await table.locator('thead th').allTextContents()).toEqual([
      'pause of A at 1 s (ms)',
      'runs',
      'double ownership',
      'double-owned lock cycles (of all cycles)',
      'stale write accepted',
      'fenced (stale writes refused)',
      'lost a lock',
    ]);
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    expect(rows).toEqual(expected.combinations.map((c, i) => tableRow((7000 + 1000 * i).toLocaleString('en-US'), '1,000', c)));
    await screenshot(page, 'odds-1440');
    expect(await axeViolations(page, 'odds')).toEqual([]);

    // A value in the table selects its point, as clicking the point does.
    await table.getByRole('button', { name: '9,000', exact: true }).click();
    const details = page.getByTestId('odds-details');
    await expect.poll(() => details.locator('h2').textContent()).toMatch(/^pause of A at 1 s \(ms\) = 9,000/);
    expect(await table.getByRole('button', { name: '9,000', exact: true }).getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('g.odds-point.selected').first().getAttribute('data-combo')).toBe('2');

    // A point with failures opens one of its failing runs on the timeline: an 11 s pause, A waking after B was granted the lock.
    await page.locator('g.odds-point[data-metric="unsafe"][data-combo="4"]').click();
    await expect.poll(() => details.locator('h2').textContent()).toMatch(/^pause of A at 1 s \(ms\) = 11,000/);
    await screenshot(page, 'odds-details-1440');
    const firstSeed = expected.combinations[4]!.failing[0]!.seed;
    await details.getByTestId('odds-open-run').first().click();
    await ready(page);
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('unsafe');
    expect(await page.locator('.seed-input').inputValue()).toBe(String(firstSeed));
    expect(lab.errors).toEqual([]);
  });

  it('keeps its workers for the next sweep, and a stopped sweep’s are replaced', async () => {
    const page = await lab.context.newPage();
    page.on('pageerror', (e) => lab.errors.push(`pageerror: ${e.message}`));
    // Every odds worker the page starts, and whether it has gone.
    const workers: Array<{ closed: boolean }> = [];
    page.on('worker', (w) => {
      if (!w.url().includes('odds.worker')) return;
      const entry = { closed: false };
      workers.push(entry);
      w.on('close', () => (entry.closed = true));
    });
    await page.goto(`${lab.url}#/odds`);
    const cores = await page.evaluate(() => Math.max(1, Math.min(8, navigator.hardwareConcurrency || 2)));
    // The workers start with the view, before any sweep.
    await expect.poll(() => workers.length).toBe(cores);
    const expected = nodeReport();
    for (let sweep = 1; sweep <= 2; sweep++) {
      await page.getByTestId('odds-run').click();
      await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 60_000 }).toMatch(/11,000 of 11,000 runs .* done$/);
      // The same workers ran both sweeps, and counted what Node counts.
      expect(workers.length).toBe(cores);
      expect(workers.every((w) => !w.closed)).toBe(true);
      const label = await page.locator('g.odds-point[data-metric="unsafe"][data-combo="4"]').getAttribute('aria-label');
      expect(label).toContain(`stale write accepted ${formatShare(expected.combinations[4]!.unsafe)} of 1,000 runs`);
    }
    // A stop ends the workers mid-batch; the next sweep starts new ones, and its counts are whole.
    await page.getByTestId('odds-runs').fill('20000');
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent()).toMatch(/^[\d,]+ of 220,000 runs/);
    await page.getByTestId('odds-run').click();
    await expect.poll(() => workers.filter((w) => w.closed).length).toBe(cores);
    await page.getByTestId('odds-runs').fill('1000');
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 60_000 }).toMatch(/11,000 of 11,000 runs .* done$/);
    expect(workers.length).toBe(2 * cores);
    const label = await page.locator('g.odds-point[data-metric="unsafe"][data-combo="4"]').getAttribute('aria-label');
    expect(label).toContain(`stale write accepted ${formatShare(expected.combinations[4]!.unsafe)} of 1,000 runs`);
    // Leaving the view lets the idle workers go.
    await page.evaluate(() => (location.hash = '#/lab'));
    await expect.poll(() => workers.filter((w) => w.closed).length).toBe(2 * cores);
    expect(lab.errors).toEqual([]);
  });

  it('shows the smallest run that breaks it beside the original in Compare', async () => {
    const page = await lab.page('#/odds', { width: 1280, height: 900 });
    await page.getByTestId('odds-runs').fill('200');
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 60_000 }).toMatch(/done$/);
    await page.locator('g.odds-point[data-metric="unsafe"][data-combo="8"]').click();
    await page.getByTestId('odds-smallest').click();
    await expect.poll(() => page.locator('main').getAttribute('data-view'), { timeout: 30_000 }).toBe('compare');
    await expect.poll(() => page.locator('main').textContent()).toContain('smallest run that breaks it: ');
    await expect.poll(() => page.locator('main').textContent()).toMatch(/pause of A at 1000 ms: durationMs 15000 → \d+/);
    await screenshot(page, 'odds-smallest-compare');
    expect(lab.errors).toEqual([]);
  });

  it('reads well on a phone: the form stacks and the plot fits the screen', async () => {
    const page = await lab.page('#/odds', { width: 390, height: 844 });
    await page.getByTestId('odds-runs').fill('300');
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 60_000 }).toMatch(/done$/);
    const box = await page.getByTestId('odds-plot').boundingBox();
    expect(box!.width).toBeLessThanOrEqual(390);
    await screenshot(page, 'odds-390');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(lab.errors).toEqual([]);
  });

  it('sweeps two parameters: a line per value of the second, for each odds', async () => {
    const page = await lab.page('#/odds', { width: 1440, height: 900 });
    await page.getByTestId('odds-runs').fill('100');
    await page.getByTestId('vary-spec').fill('9000..15000:3000');
    await page.getByTestId('and-optionally-a-second-parameter-select').selectOption('resource.fencing');
    expect(await page.getByTestId('and-optionally-a-second-parameter-spec').inputValue()).toBe('false,true');
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 60_000 }).toMatch(/600 of 600 runs .* done$/);
    const series = await page.locator('[data-testid="odds-plot"] g[data-series]').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-series')));
    expect(series).toEqual([
      'double ownership, fencing = false',
      'stale write accepted, fencing = false',
      'double ownership, fencing = true',
      'stale write accepted, fencing = true',
    ]);
    // With a 15 s pause B writes before A wakes, and fencing turns A's late write away; with 9 s A writes before B is even
    // granted the lock, an unprotected write rather than a stale one.
    expect(await page.locator('g.odds-point[data-metric="unsafe"][data-combo="5"]').getAttribute('aria-label')).toContain(
      'stale write accepted 0 % (0–3.7) of 100 runs',
    );
    expect(await page.locator('g.odds-point[data-metric="unsafe"][data-combo="4"]').getAttribute('aria-label')).toContain(
      'stale write accepted 100 % (96.3–100) of 100 runs',
    );
    // There every stale write reached the resource and was refused: the intro names the plotted line by what it counts, an accepted
    // stale write, and says what one run is.
    const fencedAt15s = await page.getByTestId('odds-table').locator('tbody tr').nth(5).locator('td').nth(5).textContent();
    expect(fencedAt15s).toBe('100 % (96.3–100)');
    const intro = await page.locator('.odds-intro').textContent();
    expect(intro).toContain('in which the resource accepted a stale write (fencing refuses most of them)');
    expect(intro).not.toContain('reached the resource');
    expect(intro).toContain('A run is the whole scenario, every lock cycle of every client, and counts once however often it broke.');
    await screenshot(page, 'odds-two-parameters');
    expect(lab.errors).toEqual([]);
  });

  it('random-gc-pauses: varies the TTL every worker shares, and the odds fall as the lease grows', async () => {
    const page = await lab.page('#/odds', { width: 1440, height: 900 });
    await page.getByTestId('odds-scenario').selectOption('random-gc-pauses');
    const param = page.getByTestId('vary-select');
    await expect.poll(() => param.inputValue()).toBe('clients[*].ttlMs');
    expect(await param.locator('option:checked').textContent()).toBe('TTL of every client (ms)');
    expect(await param.locator('option[value="clients[*].pauseAfterAcquire.probability"]').textContent()).toBe(
      'chance of a GC pause after each acquisition, every client',
    );
    expect(await param.locator('option[value="clients[*].pauseAfterAcquire.duration.maxMs"]').textContent()).toBe('longest GC pause of every client (ms)');
    // The work time is drawn from workTime, so the workMs it does not read is not offered.
    expect(await param.locator('option[value$=".workMs"]').count()).toBe(0);
    await page.getByTestId('vary-spec').fill('10000,30000,60000');
    await page.getByTestId('odds-runs').fill('100');
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 90_000 }).toMatch(/300 of 300 runs .* done$/);
    const share = async (combo: number) =>
      Number(
        /stale write accepted ([\d.]+) %/.exec(
          (await page.locator(`g.odds-point[data-metric="unsafe"][data-combo="${combo}"]`).getAttribute('aria-label'))!,
        )![1],
      );
    const [ten, thirty, sixty] = [await share(0), await share(1), await share(2)];
    expect(ten).toBeGreaterThan(thirty);
    expect(thirty).toBeGreaterThan(sixty);
    expect(await page.getByTestId('odds-chosen').textContent()).toBe('scenario: 30,000');
    // The share axis ends at a round value just past the highest interval, not at 100 %, so odds of a few percent do not lie flat on the bottom.
    const top = Math.max(
      ...(await page.locator('[data-testid="odds-plot"] text.tick-label[data-share]').evaluateAll((ts) => ts.map((t) => Number(t.getAttribute('data-share'))))),
    );
    const highest = Math.max(
      ...(await page
        .locator('g.odds-point')
        .evaluateAll((gs) => gs.map((g) => Number(/–([\d.]+)\)/.exec(g.getAttribute('aria-label') ?? '')?.[1] ?? NaN) / 100))),
    );
    expect(highest).toBeGreaterThan(0);
    expect(highest).toBeLessThan(0.8);
    expect(top).toBeGreaterThanOrEqual(highest);
    expect(top).toBeLessThan(Math.min(1, highest * 2 + 0.05));
    // The table gives, beside each share of runs, the share of the 6,000 jobs (lock cycles) that were double-owned, as Node counts them.
    const expected = sweepInNode('random-gc-pauses', BUILTIN_SCENARIOS['random-gc-pauses'], 'clients[*].ttlMs=10000,30000,60000', 100);
    const rows = await page
      .getByTestId('odds-table')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    expect(rows.map((r) => r.slice(0, 4))).toEqual(expected.combinations.map((c, i) => tableRow(['10,000', '30,000', '60,000'][i]!, '100', c).slice(0, 4)));
    expect(expected.combinations.map((c) => c.doubleOwnedCycles.n)).toEqual([6000, 6000, 6000]);
    expect(expected.combinations[0]!.doubleOwnedCycles.k).toBeGreaterThan(0);
    // The share of jobs can be plotted too, each point naming its figure as `locklab sweep` prints it.
    await page.getByRole('group', { name: 'What to plot' }).getByLabel('double-owned lock cycles').check();
    for (let i = 0; i < 3; i++)
      expect(await page.locator(`g.odds-point[data-metric="doubleOwnedCycles"][data-combo="${i}"]`).getAttribute('aria-label')).toContain(
        `double-owned lock cycles ${formatCycles(expected.combinations[i]!.doubleOwnedCycles)} in 100 runs`,
      );
    expect(await page.locator('path.odds-band').count()).toBe(3);
    await page.getByTestId('odds-table').getByRole('button', { name: '30,000', exact: true }).click();
    expect(await page.getByTestId('odds-details').textContent()).toContain(formatCycles(expected.combinations[1]!.doubleOwnedCycles));
    await screenshot(page, 'odds-random-gc-pauses');
    // ZooKeeper reads no TTL: another scenario starts from the fault its story turns on, within the values its store allows.
    await page.getByTestId('odds-scenario').selectOption('zookeeper-session-expiry');
    await expect.poll(() => param.inputValue()).toBe('faults[0].durationMs');
    expect(await param.locator('option[value$="ttlMs"]').count()).toBe(0);
    await param.selectOption('store.sessionTimeoutMs');
    expect(await page.getByTestId('vary-spec').inputValue()).toBe('4000..9000:500');
    expect(lab.errors).toEqual([]);
  });

  it('sweeps one value of a parameter against a second, and its axis names that value alone', async () => {
    const page = await lab.page('#/odds', { width: 1440, height: 900 });
    await page.getByTestId('odds-scenario').selectOption('random-gc-pauses');
    await page.getByTestId('vary-select').selectOption('clients[*].pauseAfterAcquire.duration.maxMs');
    await page.getByTestId('vary-spec').fill('40000');
    await page.getByTestId('and-optionally-a-second-parameter-select').selectOption('resource.fencing');
    await page.getByTestId('odds-runs').fill('20');
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 90_000 }).toMatch(/40 of 40 runs .* done$/);
    const xLabels = await page
      .locator('[data-testid="odds-plot"] text.tick-label')
      .evaluateAll((ts) => ts.map((t) => t.textContent ?? '').filter((t) => !t.endsWith(' %')));
    expect(xLabels).toEqual(['40,000']);
    // Every point stands on that one value.
    const xs = await page.locator('g.odds-point circle.odds-hit').evaluateAll((cs) => [...new Set(cs.map((c) => c.getAttribute('cx')))]);
    expect(xs).toHaveLength(1);
    const tick = await page.locator('[data-testid="odds-plot"] text.tick-label', { hasText: '40,000' }).getAttribute('x');
    expect(Number(tick)).toBeCloseTo(Number(xs[0]), 3);
    // A point names its values as the form and the table do, not by the scenario path with a grouped number no --set takes.
    expect(await page.locator('g.odds-point[data-metric="unsafe"][data-combo="1"]').getAttribute('aria-label')).toMatch(
      /^longest GC pause of every client \(ms\) = 40,000, fencing = true: stale write accepted \d/,
    );
    await screenshot(page, 'odds-one-value');
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it('opens a sweep shared by its address, keeps the address equal to the form as it is edited, and names what a damaged one gets wrong', async () => {
    const vary = encodeURIComponent('clients[*].ttlMs=10000,30000');
    const page = await lab.page(`#/odds?s=random-gc-pauses&vary=${vary}&vary=resource.fencing%3Dfalse%2Ctrue&runs=50`, { width: 1440, height: 900 });
    await expect.poll(() => page.getByTestId('odds-scenario').inputValue()).toBe('random-gc-pauses');
    expect(await page.getByTestId('vary-select').inputValue()).toBe('clients[*].ttlMs');
    expect(await page.getByTestId('vary-spec').inputValue()).toBe('10000,30000');
    expect(await page.getByTestId('and-optionally-a-second-parameter-select').inputValue()).toBe('resource.fencing');
    expect(await page.getByTestId('odds-runs').inputValue()).toBe('50');
    expect(await page.getByTestId('notice').count()).toBe(0);
    // An edit rewrites the address, so copying it at any moment shares the sweep as it stands.
    await page.getByTestId('odds-runs').fill('60');
    await page.getByTestId('and-optionally-a-second-parameter-select').selectOption('');
    await expect.poll(() => page.evaluate(() => decodeURIComponent(location.hash))).toBe('#/odds?s=random-gc-pauses&vary=clients[*].ttlMs=10000,30000&runs=60');
    const shared = await page.evaluate(() => location.hash);
    // Runs the link could not open again are left out of it, not written as a damaged link.
    await page.getByTestId('odds-runs').fill('0');
    await expect.poll(() => page.evaluate(() => decodeURIComponent(location.hash))).toBe('#/odds?s=random-gc-pauses&vary=clients[*].ttlMs=10000,30000');
    const again = await lab.page(shared);
    await expect.poll(() => again.getByTestId('odds-scenario').inputValue()).toBe('random-gc-pauses');
    expect(await again.getByTestId('vary-spec').inputValue()).toBe('10000,30000');
    expect(await again.getByTestId('and-optionally-a-second-parameter-select').inputValue()).toBe('');
    expect(await again.getByTestId('odds-runs').inputValue()).toBe('60');
    // The README's example address, as typed there.
    const typed = /`(#\/odds\?[^`]+)`/.exec(readFileSync(join(REPO, 'README.md'), 'utf8'))![1]!;
    const readme = await lab.page(typed);
    await expect.poll(() => readme.getByTestId('odds-scenario').inputValue()).toBe('random-gc-pauses');
    expect(await readme.getByTestId('vary-select').inputValue()).toBe('clients[*].ttlMs');
    expect(await readme.getByTestId('vary-spec').inputValue()).toBe('10000,30000,60000');
    expect(await readme.getByTestId('notice').count()).toBe(0);
    await readme.close();
    // A link naming only the scenario opens it with the list's own first choice, as picking it there does.
    const named = await lab.page('#/odds?s=random-gc-pauses');
    await expect.poll(() => named.getByTestId('odds-scenario').inputValue()).toBe('random-gc-pauses');
    const damaged = await lab.page('#/odds?s=random-gc-pauses&vary=oops&runs=0');
    const notice = damaged.getByTestId('notice');
    await expect.poll(() => notice.textContent()).toContain('This link is damaged');
    expect(await notice.textContent()).toContain('vary expected a field and its values, as in clients[*].ttlMs=10000,30000, got "oops"');
    expect(await notice.textContent()).toContain('runs expected a whole number of runs per point, at least 1, got 0');
    expect(lab.errors).toEqual([]);
    for (const p of [page, again, named, damaged]) await p.close();
  });

  it('refuses a range with a step of zero in one line naming the field', async () => {
    const page = await lab.page('#/odds');
    await page.getByTestId('vary-spec').fill('7000..17000:0');
    await page.getByTestId('odds-run').click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('pause of A at 1 s (ms): the step of 7000..17000:0 is zero: give a step above zero (e.g. 7000..17000:1)');
    await page.close();
  });

  it('refuses a sweep too big for the lab, with its figures grouped and the command that runs it from a terminal', async () => {
    const page = await lab.page('#/odds');
    await page.getByTestId('odds-runs').fill('3000000');
    await page.getByTestId('and-optionally-a-second-parameter-select').selectOption('resource.fencing');
    await page.getByTestId('odds-run').click();
    const said =
      "sweep: 22 points × 3,000,000 runs is 66,000,000 runs, more than the lab takes (2,000,000); the same sweep from a terminal, on every core: npx locklab sweep pause-past-expiry --seeds 1..3000000 --vary 'faults[0].durationMs=7000..17000:1000' --vary resource.fencing=false,true";
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(said);
    // The command is one the CLI takes: the same plan, with fewer seeds.
    const command = /npx locklab (sweep .*)$/.exec(said)![1]!.replace('1..3000000', '1..2');
    const r = await cli(...(command.match(/'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^'|'$/g, '')));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('pause-past-expiry · seeds 1..2 · 22 combinations · 44 runs');
    await page.close();
  });

  it('refuses a mistyped range by the label the learner picked and the syntax it takes, and takes the last sweep’s results away', async () => {
    const page = await lab.page('#/odds', { width: 1280, height: 800 });
    await page.getByTestId('odds-runs').fill('20');
    await page.getByTestId('vary-spec').fill('7000..17000:5000');
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 60_000 }).toMatch(/60 of 60 runs .* done$/);
    await page.getByTestId('odds-table').waitFor();
    await page.getByTestId('vary-spec').fill('17000..7000:abc');
    await page.getByTestId('odds-run').click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('pause of A at 1 s (ms): expected a range from..to:step of numbers (e.g. 7000..17000:1000), or a list v1,v2, got "17000..7000:abc"');
    // The sweep before is not this one's answer: its plot, table and "done" go with the error.
    expect(await page.getByTestId('odds-status').textContent()).toBe('');
    expect(await page.getByTestId('odds-plot').count()).toBe(0);
    expect(await page.getByTestId('odds-table').count()).toBe(0);
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it('lists the first 100 points of a long sweep in its table, and says the CSV has them all', async () => {
    const page = await lab.page('#/odds', { width: 1440, height: 900 });
    await page.getByTestId('odds-runs').fill('2');
    await page.getByTestId('vary-spec').fill('1000..20000:100');
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 60_000 }).toMatch(/382 of 382 runs .* done$/);
    const table = page.getByTestId('odds-table');
    expect(await table.locator('tbody tr').count()).toBe(100);
    expect(await table.locator('tbody tr').last().locator('th').textContent()).toBe('10,900');
    expect(await page.locator('.odds-figures p').textContent()).toBe('The first 100 of 191 points; Download CSV has them all.');
    expect(lab.errors).toEqual([]);
  });

  it('sweeps the scenario built in the Sandbox, names the file it is exported as, and opens the very run a point counted', async () => {
    const page = await lab.page('#/sandbox', { width: 1440, height: 900 });
    await page.getByRole('button', { name: 'Blank scenario' }).click();
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('blank');
    // A job queue: A's job takes 1 to 5 s under a 3 s lease, and B retries for the job meanwhile.
    const a = page.locator('[data-client-card="A"]');
    await a.getByLabel('TTL (ms)').fill('3000');
    await a.getByLabel('Work time').selectOption('uniform');
    await a.getByLabel('Work per write, shortest (ms)').fill('1000');
    await a.getByLabel('Work per write, longest (ms)').fill('5000');
    await page.getByRole('button', { name: 'Add a client' }).click();
    const b = page.locator('[data-client-card="B"]');
    await b.getByLabel('Machine').selectOption('app2');
    await b.getByLabel('Retries', { exact: true }).fill('10');
    await b.getByLabel('Retry delay (ms)').fill('500');
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export scenario' }).click()]);
    expect(file.suggestedFilename()).toBe('my-scenario.json');
    const exported = JSON.parse(readFileSync((await file.path())!, 'utf8')) as unknown;

    await screenshot(page, 'sandbox-odds-1440');
    await page.setViewportSize({ width: 1024, height: 768 });
    await screenshot(page, 'sandbox-odds-1024');
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('sandbox-odds').click();
    const scenario = page.getByTestId('odds-scenario');
    await expect.poll(() => scenario.locator('option:checked').textContent()).toBe('my-scenario (Sandbox)');
    // The parameters offered are this scenario's: the TTL both workers share first, then each one's own.
    expect(await page.getByTestId('vary-select').inputValue()).toBe('clients[*].ttlMs');
    const offered = await page.getByTestId('vary-select').locator('option').allTextContents();
    expect(offered).toEqual(expect.arrayContaining(['TTL of every client (ms)', 'TTL of A (ms)', 'longest work time of A (ms)', 'TTL of B (ms)']));
    await page.getByTestId('vary-spec').fill('2000..4000:1000');
    await page.getByTestId('odds-runs').fill('20');
    // From a terminal it is the exported file that is swept, never a built-in.
    const command = "npx locklab sweep my-scenario.json --seeds 1..20 --vary 'clients[*].ttlMs=2000..4000:1000'";
    expect(await page.getByTestId('odds-command').textContent()).toBe(command);
    expect(BUILTIN_NAMES).not.toContain(command.split(' ')[3]);
    expect(await page.getByTestId('odds-sandbox-note').textContent()).toContain('This page’s address does not hold the Sandbox’s scenario');
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 60_000 }).toMatch(/60 of 60 runs .* done$/);

    const expected = sweepInNode('my-scenario.json', exported, 'clients[*].ttlMs=2000..4000:1000', 20);
    const rows = await page
      .getByTestId('odds-table')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    expect(rows).toEqual(expected.combinations.map((c, i) => tableRow((2000 + 1000 * i).toLocaleString('en-US'), '20', c)));
    // It breaks sometimes, not always: a sweep worth running.
    expect(expected.combinations.some((c) => c.doubleOwnership.k > 0 && c.doubleOwnership.k < 20)).toBe(true);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(csv.suggestedFilename()).toBe('my-scenario-odds.csv');
    expect(readFileSync((await csv.path())!, 'utf8')).toBe(reportCsv(expected));
    await screenshot(page, 'odds-sandbox-1440');
    await page.setViewportSize({ width: 1024, height: 768 });
    await screenshot(page, 'odds-sandbox-1024');

    // A failing run of the 2 s point opens on the timeline as that seed with that TTL: the run Node gives.
    await page.getByTestId('odds-table').getByRole('button', { name: '2,000', exact: true }).click();
    const details = page.getByTestId('odds-details');
    const failing = expected.combinations[0]!.failing[0]!;
    expect(await details.locator('code.odds-command').first().textContent()).toBe(
      `locklab run my-scenario.json --seed ${failing.seed} --set 'clients[*].ttlMs=2000'`,
    );
    // Shrinking starts from the same run, and shows it beside the smallest one that still breaks.
    await details.getByTestId('odds-smallest').click();
    await expect.poll(() => page.locator('main').getAttribute('data-view'), { timeout: 30_000 }).toBe('compare');
    await expect.poll(() => page.locator('main').textContent()).toContain('smallest run that breaks it: ');
    await screenshot(page, 'odds-sandbox-smallest');
    await page.getByRole('button', { name: 'Odds', exact: true }).click();
    await details.getByTestId('odds-open-run').first().click();
    await ready(page);
    const point = applyOverrides(normalizeScenario(exported, 'my-scenario.json'), [parseOverride('clients[*].ttlMs=2000')]);
    await expect.poll(() => page.getByTestId('trace-hash').textContent()).toBe(traceHash(runScenario(point, failing.seed)));
    expect(await page.locator('.seed-input').inputValue()).toBe(String(failing.seed));
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it('offers a scenario file imported into the Sandbox under its own name, with its own parameters, to choose in Odds', async () => {
    const page = await lab.page('#/sandbox', { width: 1440, height: 900 });
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('builtin:pause-past-expiry|');
    const queue = {
      name: 'job-queue',
      machines: [{ name: 'w1' }, { name: 'w2' }, { name: 'db' }],
      store: { kind: 'redis', machine: 'db' },
      clients: [
        { name: 'W1', machine: 'w1', ttlMs: 30000, workMs: 20000 },
        { name: 'W2', machine: 'w2', ttlMs: 30000, workMs: 20000, startMs: 1000, acquire: { retries: 100, retryDelayMs: 1000 } },
      ],
      faults: [{ kind: 'pause', target: 'W1', atMs: 2000, durationMs: 40000 }],
    };
    await page.getByTestId('import-scenario').setInputFiles({ name: 'queue.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(queue)) });
    await expect.poll(() => page.locator('[data-client-card="W2"]').count()).toBe(1);
    // Odds lists it unasked, under the name the Sandbox gives it, beside the built-ins; the built-in chosen stays chosen until it is picked.
    await page.getByRole('button', { name: 'Odds', exact: true }).click();
    const scenario = page.getByTestId('odds-scenario');
    await expect.poll(() => scenario.locator('option').first().textContent()).toBe('job-queue (Sandbox)');
    expect(await scenario.inputValue()).toBe('pause-past-expiry');
    await scenario.selectOption({ label: 'job-queue (Sandbox)' });
    // The story turns on the pause: it is varied first, around its own length.
    expect(await page.getByTestId('vary-select').inputValue()).toBe('faults[0].durationMs');
    expect(await page.getByTestId('vary-spec').inputValue()).toBe('20000..60000:5000');
    expect(await page.getByTestId('vary-select').locator('option').allTextContents()).toEqual(
      expect.arrayContaining(['TTL of every client (ms)', 'work time of W1 (ms)', 'pause of W1 at 2 s (ms)']),
    );
    expect(await page.getByTestId('odds-command').textContent()).toBe(
      "npx locklab sweep job-queue.json --seeds 1..1000 --vary 'faults[0].durationMs=20000..60000:5000'",
    );
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it('exports the trace on the timeline in Chrome’s trace-event format', async () => {
    const page = await lab.page('#/lab');
    await ready(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-chrome').click()]);
    expect(download.suggestedFilename()).toBe('pause-past-expiry-seed7.chrome.json');
    const t = JSON.parse(readFileSync((await download.path())!, 'utf8')) as { traceEvents: Array<{ name: string; args?: { name?: string } }> };
    const threads = t.traceEvents.filter((e) => e.name === 'thread_name').map((e) => e.args!.name);
    expect(threads).toEqual(expect.arrayContaining(['A', 'B', 'redis', 'resource']));
  });
});
