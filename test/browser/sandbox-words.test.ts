import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS, normalizeScenario, runScenario, serializeTrace } from '../../sim/index.js';
import { GENERIC_FAULTS } from '../../sim/scenario/types.js';
import { STORE_KINDS } from '../../sim/stores/registry.js';
import { describeBrowser, ready, screenshot, startLab, type Lab } from './harness.js';

/* The Sandbox and the fork dialog in the user's language, and the Sandbox trusts its link and keeps what the user built. */

describeBrowser('the sandbox speaks the user’s language and keeps what they built', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('a link to the Sandbox opens its scenario in the form, with the link’s changes', async () => {
    const page = await lab.page('#/sandbox?s=memcached-eviction');
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('memcached-eviction');
    expect(await page.getByLabel('Store', { exact: true }).inputValue()).toBe('memcached');
    expect(await page.locator('[data-fault-row]').count()).toBe(1);
    // The picker names the scenario in the form, not the first built-in.
    expect(await page.getByTestId('sandbox-start').inputValue()).toBe('memcached-eviction');
    // The fault strip reads in words and round seconds.
    expect(await page.locator('.fault-strip-label').first().textContent()).toBe('1. Memory pressure');
    expect(await page.locator('.fault-strip .tick-label').allTextContents()).not.toContainEqual(expect.stringMatching(/\.\d{3} s$/));
    const changed = await lab.page('#/sandbox?s=pause-past-expiry&set=clients.A.ttlMs%3D2500');
    await expect.poll(() => changed.locator('[data-client-card="A"]').getByLabel('TTL (ms)').inputValue()).toBe('2500');
  });

  it('settings read in words, closed sets are choices, and each store offers its own faults', async () => {
    const page = await lab.page('#/sandbox?s=pause-past-expiry');
    await expect.poll(() => page.getByLabel('Store', { exact: true }).inputValue()).toBe('redis');
    expect(await page.getByLabel('Fencing counter starts at').inputValue()).toBe('33');
    const persistence = page.getByLabel('What a restart keeps');
    expect(await persistence.evaluate((el) => el.tagName)).toBe('SELECT');
    expect(await persistence.locator('option').allTextContents()).toEqual([
      'nothing: keys live in memory only',
      'the log, written every second',
      'the log, written on every change',
    ]);
    const a = page.locator('[data-client-card="A"]');
    expect(await a.getByLabel('Acquire method').locator('option').allTextContents()).toEqual(['one atomic request', 'check, then set (the race)']);
    expect(await a.getByLabel('Release method').locator('option').allTextContents()).toEqual([
      'only if it still holds its token',
      'plain DEL, whoever holds it (the mistake)',
    ]);
    const labels = await page.locator('.sandbox-form label, .sandbox-form legend').allTextContents();
    for (const l of labels) expect(l).not.toMatch(/[a-z][A-Z]|Ms\b|^store /);
    const offered = async () =>
      page
        .getByLabel('New fault')
        .locator('option')
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(await offered()).toEqual(['pause', 'crash', 'partition', 'clock-jump', 'clock-drift', 'latency-spike', 'store-restart', 'deploy']);
    for (const [kind, own] of [
      ['memcached', ['eviction', 'memory-pressure']],
      ['postgres', ['connection-loss']],
      ['zookeeper', ['session-expiry']],
      ['semaphore', ['ipc-removal']],
    ] as const) {
      await page.getByLabel('Store', { exact: true }).selectOption(kind);
      const confirm = page.getByTestId('confirm');
      if (await confirm.isVisible().catch(() => false)) await confirm.getByRole('button', { name: /^Switch/ }).click();
      await expect.poll(() => page.getByLabel('Store', { exact: true }).inputValue()).toBe(kind);
      for (const k of own) expect(await offered(), kind).toContain(k);
    }
    expect(await page.getByLabel('New fault').locator('option[value="ipc-removal"]').textContent()).toBe('Semaphores removed (RemoveIPC)');
    await screenshot(page, 'sandbox-words');
  });

  it('switching the store keeps the faults it knows, re-aims those at the old store, and asks before dropping the rest', async () => {
    const page = await lab.page('#/sandbox?s=memcached-eviction');
    await expect.poll(() => page.locator('[data-fault-row]').count()).toBe(1);
    await page.getByLabel('New fault').selectOption('store-restart');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await page.getByLabel('New fault').selectOption('pause');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await expect.poll(() => page.locator('[data-fault-row]').count()).toBe(3);
    await page.getByLabel('Store', { exact: true }).selectOption('redis');
    const confirm = page.getByTestId('confirm');
    await expect.poll(() => confirm.textContent()).toContain('The redis store does not know this fault: Memory pressure at 1000 ms');
    // Keeping the changes keeps everything as it was.
    await confirm.getByRole('button', { name: 'Keep my changes' }).click();
    expect(await page.getByLabel('Store', { exact: true }).inputValue()).toBe('memcached');
    expect(await page.locator('[data-fault-row]').count()).toBe(3);
    await page.getByLabel('Store', { exact: true }).selectOption('redis');
    await page.getByTestId('confirm').getByRole('button', { name: 'Switch to redis and drop it' }).click();
    await expect.poll(() => page.getByLabel('Store', { exact: true }).inputValue()).toBe('redis');
    const rows = page.locator('[data-fault-row]');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain('Store restart');
    expect(await rows.nth(0).getByLabel('Aimed at').inputValue()).toBe('redis');
    expect(await rows.nth(1).textContent()).toContain('GC pause');
    await page.getByTestId('sandbox-run').click();
    await expect.poll(() => page.getByTestId('sandbox-result').count()).toBe(1);
    expect(await page.getByTestId('sandbox-issues').count()).toBe(0);
  });

  it('asks before loading another scenario over the user’s changes', async () => {
    const page = await lab.page('#/sandbox?s=pause-past-expiry');
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    // Unchanged, a load just loads.
    await page.getByRole('button', { name: 'Blank scenario' }).click();
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('blank');
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('my-scenario');
    await page.locator('[data-client-card="A"]').getByLabel('TTL (ms)').fill('4321');
    // The form holds no built-in now: pick one to load.
    await page.getByTestId('sandbox-start').selectOption('pause-past-expiry');
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    const confirm = page.getByTestId('confirm');
    await expect.poll(() => confirm.textContent()).toContain('your changes to it are lost');
    await confirm.getByRole('button', { name: 'Keep my changes' }).click();
    expect(await page.locator('[data-client-card="A"]').getByLabel('TTL (ms)').inputValue()).toBe('4321');
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    // The button that goes ahead says what it does, as a command.
    expect(await page.getByTestId('confirm').getByRole('button').allTextContents()).toEqual(['Load pause-past-expiry anyway', 'Keep my changes']);
    await page.getByTestId('confirm').getByRole('button', { name: 'Load pause-past-expiry anyway' }).click();
    await expect.poll(() => page.locator('[data-client-card="A"]').getByLabel('TTL (ms)').inputValue()).toBe('10000');
    await page.locator('[data-client-card="A"]').getByLabel('TTL (ms)').fill('4321');
    await page.getByRole('button', { name: 'Blank scenario' }).click();
    expect(await page.getByTestId('confirm').getByRole('button').allTextContents()).toEqual(['Start a blank scenario anyway', 'Keep my changes']);
    await page.getByTestId('confirm').getByRole('button', { name: 'Keep my changes' }).click();
    await page.getByTestId('import-scenario').setInputFiles({ name: 'mine.json', mimeType: 'application/json', buffer: Buffer.from('{"name":"mine"}') });
    expect(await page.getByTestId('confirm').getByRole('button').allTextContents()).toEqual(['Import mine.json anyway', 'Keep my changes']);
  });

  it('the question before dropping changes closes on Escape, keeping them, and either answer gives the focus back to the button that asked', async () => {
    const page = await lab.page('#/sandbox?s=pause-past-expiry');
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    const ttl = page.locator('[data-client-card="A"]').getByLabel('TTL (ms)');
    await ttl.fill('4321');
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? null);
    await page.getByRole('button', { name: 'Blank scenario' }).focus();
    await page.keyboard.press('Enter');
    const confirm = page.getByTestId('confirm');
    await confirm.waitFor();
    expect(await focused()).toBe('Keep my changes');
    await screenshot(page, 'sandbox-confirm');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect(await ttl.inputValue()).toBe('4321');
    expect(await focused()).toBe('Blank scenario');
    // Going ahead from the keyboard: the focus is back on the button, not on the page's body.
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('Start a blank scenario anyway');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('blank');
    expect(await focused()).toBe('Blank scenario');
    await page.close();
    expect(lab.errors).toEqual([]);
  });

  it('a Remove button pressed from the keyboard leaves the focus at its place in the form, not on the page: the last fault, machine and client', async () => {
    const page = await lab.page('#/sandbox?s=pause-past-expiry');
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    const focused = () =>
      page.evaluate(() =>
        document.activeElement === document.body ? 'body' : (document.activeElement?.textContent ?? '') || (document.activeElement?.id ?? ''),
      );
    const press = async (name: string) => {
      await page.getByRole('button', { name, exact: true }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByRole('button', { name, exact: true }).count()).toBe(0);
    };
    await press('Remove fault 1');
    expect(await page.evaluate(() => (document.activeElement as HTMLSelectElement | null)?.labels?.[0]?.textContent ?? 'body')).toBe('New fault');
    await press('Remove db');
    expect(await focused()).toBe('Add a machine');
    await press('Remove client B');
    expect(await focused()).toBe('Add a client');
    await screenshot(page, 'sandbox-removed-focus');
    // Removing the first of two machines leaves one, whose Remove button is disabled: the focus goes on to the next control.
    await press('Remove app1');
    expect(await focused()).toBe('Add a machine');
    await page.close();
    expect(lab.errors).toEqual([]);
  });

  it('the result beside a changed form says it is out of date, and an invalid form shows no old result', async () => {
    const page = await lab.page('#/sandbox?s=pause-past-expiry');
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    await page.getByTestId('sandbox-run').click();
    const result = page.getByTestId('sandbox-result');
    await expect.poll(() => result.getAttribute('data-stale')).toBe('false');
    await page.locator('[data-client-card="A"]').getByLabel('TTL (ms)').fill('20000');
    await expect.poll(() => result.getAttribute('data-stale')).toBe('true');
    expect(await result.textContent()).toContain('You have changed the scenario since this run');
    await result.getByRole('button', { name: 'Run it again' }).click();
    await expect.poll(() => result.getAttribute('data-stale')).toBe('false');
    expect(await page.getByTestId('verdict').getAttribute('data-outcome')).toBe('safe');
    await page.locator('[data-client-card="A"]').getByLabel('TTL (ms)').fill('0');
    await page.getByTestId('sandbox-run').click();
    await expect.poll(() => page.getByTestId('sandbox-issues').count()).toBe(1);
    expect(await page.getByTestId('sandbox-result').count()).toBe(0);
    expect(await page.getByTestId('verdict').count()).toBe(0);
  });

  it('every store’s own faults, added from the form, make a scenario that runs', async () => {
    const page = await lab.page('#/sandbox');
    await page.getByRole('button', { name: 'Blank scenario' }).click();
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('blank');
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('my-scenario');
    const tried: string[] = [];
    // Each store-specific fault once, with the first store whose form offers it.
    const done = new Set<string>();
    for (const k of STORE_KINDS) {
      if (k.faults.every((f) => (GENERIC_FAULTS as readonly string[]).includes(f) || done.has(f))) continue;
      await page.getByLabel('Store', { exact: true }).selectOption(k.kind);
      const confirm = page.getByTestId('confirm');
      if (await confirm.isVisible().catch(() => false)) await confirm.getByRole('button', { name: /^Switch/ }).click();
      await expect.poll(() => page.getByLabel('Store', { exact: true }).inputValue()).toBe(k.kind);
      const offered = await page
        .getByLabel('New fault')
        .locator('option')
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
      const own = offered.filter((f) => !(GENERIC_FAULTS as readonly string[]).includes(f) && !done.has(f));
      own.forEach((f) => done.add(f));
      for (const f of own) {
        await page.getByLabel('New fault').selectOption(f);
        await page.getByRole('button', { name: 'Add fault' }).click();
        await page.getByTestId('sandbox-run').click();
        await expect
          .poll(() => page.locator('[data-testid="sandbox-result"][data-stale="false"], [data-testid="sandbox-issues"]').count(), { message: `${k.kind} ${f}` })
          .toBe(1);
        const issues = page.getByTestId('sandbox-issues');
        expect((await issues.count()) === 0 ? '' : await issues.textContent(), `${k.kind} with ${f}`).toBe('');
        tried.push(`${k.kind}:${f}`);
      }
    }
    expect(tried).toContain('flock:lock-file-cleanup');
    expect(tried).toContain('memcached:memory-pressure');
    expect(tried).toContain('zookeeper:session-expiry');
    // Combined passes a fault on only to a store that takes it, and offers only those.
    expect(tried.filter((t) => t.startsWith('combined:'))).toEqual([]);
    expect(lab.errors).toEqual([]);
  });

  it('a new fault lands while the first client holds the lock, says so, and then shows in the run', async () => {
    const page = await lab.page('#/sandbox');
    await page.getByRole('button', { name: 'Blank scenario' }).click();
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('blank');
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('my-scenario');
    await page.getByLabel('New fault').selectOption('pause');
    // Where the fault lands is said in a live region that is there, empty, before it is added, so a screen reader reads it out.
    const placed = page.getByTestId('fault-placed');
    expect(await placed.getAttribute('role')).toBe('status');
    expect(await placed.textContent()).toBe('');
    await placed.evaluate((el) => ((window as unknown as { placedBefore: Element }).placedBefore = el));
    await page.getByRole('button', { name: 'Add fault' }).click();
    await expect.poll(() => placed.textContent()).toContain('while A holds the lock');
    expect(await placed.evaluate((el) => (window as unknown as { placedBefore: Element }).placedBefore === el)).toBe(true);
    await screenshot(page, 'sandbox-fault-placed');
    expect(await placed.textContent()).toContain('for longer than its 10 s lease');
    await page.getByTestId('sandbox-run').click();
    await expect.poll(() => page.getByTestId('sandbox-result').count()).toBe(1);
    // The pause outlives A's lease: the checker finds the lock lost while A still believed.
    await expect.poll(() => page.locator('[data-testid="verdict"] li[data-finding="lost-lock"]').count()).toBe(1);
    // After a run, new faults are placed by what the run showed.
    await page.getByLabel('New fault').selectOption('crash');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await expect.poll(() => placed.textContent()).toContain('in the last run');
  });

  it('fault markers drag along the time axis, and move with the arrow keys', async () => {
    const page = await lab.page('#/sandbox?s=pause-past-expiry');
    const marker = page.locator('[data-fault-mark="pause"]');
    await marker.waitFor();
    const at = page.locator('[data-fault-row="0"]').getByLabel('At (ms)');
    expect(await at.inputValue()).toBe('1000');
    await marker.scrollIntoViewIfNeeded();
    const strip = (await page.locator('svg.fault-strip').boundingBox())!;
    const handle = (await marker.locator('.fault-handle').boundingBox())!;
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(strip.x + strip.width / 2, handle.y + handle.height / 2, { steps: 5 });
    await page.mouse.up();
    const dragged = Number(await at.inputValue());
    expect(dragged).toBeGreaterThan(5000);
    expect(Number(await marker.getAttribute('data-at-ms'))).toBe(dragged);
    await marker.focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(async () => Number(await at.inputValue())).toBeLessThan(dragged);
    await screenshot(page, 'sandbox-fault-dragged');
  });

  it('the fork dialog offers the store’s own faults in words, and says a TTL applies from the start', async () => {
    const page = await lab.page('#/lab?s=memcached-eviction&t=10');
    await ready(page);
    await page.getByTestId('fork-open').click();
    const dialog = page.getByTestId('fork-dialog');
    await dialog.getByLabel(/Add a fault at/).check();
    const kinds = await dialog.getByLabel('Fault', { exact: true }).locator('option').allTextContents();
    expect(kinds).toContain('Eviction (memory full)');
    expect(kinds).toContain('Memory pressure');
    await dialog.getByLabel('Fault', { exact: true }).selectOption('eviction');
    expect(await dialog.getByLabel('Aimed at').inputValue()).toBe('memcached');
    expect(await dialog.textContent()).not.toContain('{"');
    expect(await dialog.locator('legend').allTextContents()).toContain('For the whole run, from its start');
    await dialog.getByLabel('Change a client’s TTL').check();
    await dialog.getByLabel('TTL (ms)').fill('20000');
    await dialog.getByTestId('fork-run').click();
    await expect.poll(() => page.locator('figure.timeline').count()).toBe(2);
    expect(await page.locator('figure.timeline').nth(1).locator('figcaption').textContent()).toContain(
      "Run 2 · the same run with A's TTL at 20000 ms from the start",
    );
  });

  it('comparing traces of different scenarios warns that they do not compare event for event', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    await page.getByRole('button', { name: 'Compare' }).click();
    await expect.poll(() => page.locator('figure.timeline').count()).toBe(2);
    expect(await page.getByTestId('unrelated').count()).toBe(0);
    const other = serializeTrace(runScenario(normalizeScenario(BUILTIN_SCENARIOS['sql-clock-skew'], 'sql-clock-skew'), 7));
    await page.getByTestId('compare-file').setInputFiles({ name: 'sql.trace.json', mimeType: 'application/json', buffer: Buffer.from(other) });
    const warn = page.getByTestId('unrelated');
    await expect.poll(() => warn.textContent()).toContain('they are runs of different scenarios (pause-past-expiry and sql-clock-skew)');
    expect(await page.locator('[data-mark="divergence"]').count()).toBe(0);
    expect(await page.getByTestId('divergence').count()).toBe(0);
    await screenshot(page, 'compare-unrelated');
    expect(lab.errors).toEqual([]);
  });
});
