import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS, normalizeScenario, runScenario, serializeTrace, traceHash } from '../../sim/index.js';
import { describeBrowser, ready, screenshot, startLab, type Lab } from './harness.js';

/* Files opened in the lab: what they are, their first problem, and where they belong. */

const doc = () => runScenario(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry'), 7);
const file = (name: string, body: unknown) => ({
  name,
  mimeType: 'application/json',
  buffer: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});

describeBrowser('opening files', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('a trace with one edited timestamp gets one message: what the file is and its first problem, blaming that event', async () => {
    const d = doc();
    d.events[5]!.timeUs = 99_000_000;
    const page = await lab.page('#/lab?s=pause-past-expiry', { width: 1440, height: 900 });
    await ready(page);
    await page.getByTestId('open-trace').setInputFiles(file('late.trace.json', d));
    const notice = page.getByTestId('notice');
    await expect.poll(() => notice.textContent()).toContain('Could not open late.trace.json');
    const first = notice.getByTestId('first-issue');
    expect(await first.textContent()).toMatch(
      /^late\.trace\.json is a Locklab trace of pause-past-expiry \(seed 7, 32 events\)\. Its problem: late\.trace\.json: events\[5\]\.timeUs is later than the events after it/,
    );
    expect(await notice.getByTestId('more-issues').count()).toBe(0);
    // The lab keeps its trace, and the timeline stays on screen under the message.
    const timeline = (await page.locator('figure.timeline').boundingBox())!;
    expect(timeline.y).toBeLessThan(450);
    await screenshot(page, 'import-late-timestamp');
  });

  it('a trace with many problems shows the first and folds the rest under their count', async () => {
    const d = doc();
    const events = d.events.map((e, i) => (i >= 3 && i < 9 ? { ...e, kind: `Bad Kind ${i}` } : e));
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    await page.getByTestId('open-trace').setInputFiles(file('kinds.trace.json', { ...d, events }));
    const notice = page.getByTestId('notice');
    await expect.poll(() => notice.getByTestId('first-issue').textContent()).toContain('kinds.trace.json: events[3].kind');
    const more = notice.getByTestId('more-issues');
    expect(await more.locator('summary').textContent()).toBe('5 more problems');
    expect(await more.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await more.locator('li').first().isVisible()).toBe(false);
    await more.locator('summary').click();
    await expect.poll(() => more.locator('li').first().isVisible()).toBe(true);
    expect(await more.locator('li').count()).toBe(5);
  });

  it('a trace opened in the Sandbox is recognised and offered as a trace, or as the scenario it was recorded from', async () => {
    const d = doc();
    const page = await lab.page('#/sandbox');
    await page.locator('[data-client-card]').first().waitFor();
    await page.getByTestId('import-scenario').setInputFiles(file('story.trace.json', serializeTrace(d)));
    const notice = page.getByTestId('notice');
    await expect.poll(() => notice.textContent()).toContain('story.trace.json is a trace, not a scenario');
    expect(await notice.textContent()).toContain('a Locklab trace of pause-past-expiry (seed 7, 32 events)');
    expect(await page.getByTestId('sandbox-issues').count()).toBe(0);
    await screenshot(page, 'import-trace-in-sandbox');
    await notice.getByRole('button', { name: 'Open it in the Lab as a trace' }).click();
    await ready(page);
    await expect.poll(() => page.getByTestId('trace-hash').textContent()).toBe(traceHash(d));

    await page.getByRole('button', { name: 'Sandbox', exact: true }).click();
    await page.getByTestId('import-scenario').setInputFiles(file('story.trace.json', serializeTrace(d)));
    await notice.getByRole('button', { name: 'Edit the scenario it was recorded from' }).click();
    await expect.poll(() => page.locator('[data-client-card]').count()).toBe(2);
    expect(await page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
  });

  it('a scenario opened as a trace is offered to the Sandbox, in the lab’s words, not the command line’s', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    const scenario = {
      name: 'mine',
      machines: [{ name: 'a' }, { name: 'db' }],
      store: { kind: 'redis', machine: 'db' },
      clients: [{ name: 'Solo', machine: 'a' }],
    };
    await page.getByTestId('open-trace').setInputFiles(file('mine.json', scenario));
    const notice = page.getByTestId('notice');
    await expect.poll(() => notice.textContent()).toContain('mine.json is a scenario, not a trace');
    expect(await notice.textContent()).toContain('a Locklab scenario, mine (1 client on redis)');
    expect(await notice.textContent()).not.toContain('locklab run');
    await notice.getByRole('button', { name: 'Open it in the Sandbox' }).click();
    await expect.poll(() => page.locator('[data-client-card="Solo"]').count()).toBe(1);

    // A scenario's fix is a button that runs it, not a command-line flag to copy.
    const sql = await lab.page('#/lab?s=sql-clock-skew');
    await ready(sql);
    const summary = sql.getByTestId('scenario-summary');
    expect(await summary.textContent()).not.toContain('--set');
    await summary.getByRole('button', { name: 'try store.clock = server' }).click();
    await expect.poll(() => sql.getByTestId('verdict').getAttribute('data-outcome')).toBe('safe');
    await expect.poll(() => sql.url()).toContain('set=store.clock%3Dserver');

    // A setting the lab cannot apply is named as a setting, never as a command-line flag.
    const bad = await lab.page('#/lab?s=pause-past-expiry&set=nonsense');
    await ready(bad);
    const text = (await bad.getByTestId('notice').textContent()) ?? '';
    expect(text).toContain('changed setting');
    expect(text).not.toContain('--set');
    expect(lab.errors).toEqual([]);
  });
});
