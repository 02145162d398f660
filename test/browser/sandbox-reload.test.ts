import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, ready, screenshot, startLab, type Lab } from './harness.js';

/* The Sandbox's scenario, not yet run, outlives a reload of its tab, and only of its tab. */

const KEY = 'locklab.sandbox-draft';

const MINE = {
  name: 'imported-one',
  machines: [{ name: 'a' }, { name: 'db' }],
  store: { kind: 'redis', machine: 'db' },
  clients: [{ name: 'Solo', machine: 'a', ttlMs: 1234 }],
};

const importFile = (page: Page, name: string, doc: unknown) =>
  page.getByTestId('import-scenario').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });

const kept = (page: Page) => page.evaluate((key) => sessionStorage.getItem(key), KEY);

/** Reloads the tab and waits until the page's code runs again. */
async function reload(page: Page): Promise<void> {
  await page.reload();
  await page.waitForFunction(() => window.__locklab !== undefined);
}

/** What the form holds once a load that would replace it has had time to come back from the worker. */
const settled = (page: Page) => page.waitForTimeout(300);

describeBrowser('the sandbox across a reload', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('brings back a form edited in its fields and in its JSON, half-typed JSON and all, when the tab reloads right after a keystroke', async () => {
    const page = await lab.page('#/sandbox', { width: 1440, height: 900 });
    await page.getByTestId('sandbox-start').selectOption('finally-after-exception');
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    const a = page.locator('[data-client-card="A"]');
    const steps = a.getByLabel('Steps (JSON)');
    await steps.waitFor();
    await a.getByLabel('TTL (ms)').fill('4321');
    await page.getByLabel('Summary').fill('mine now');
    // Half-typed: not JSON yet, so the draft never holds it; the box does.
    const halfTyped = (await steps.inputValue()).replace('{"step": "acquire"},', '{"step": "acq');
    await steps.fill(halfTyped.slice(0, -1));
    await expect.poll(() => a.getByText('not JSON yet').count()).toBe(1);
    await screenshot(page, 'sandbox-reload-before-1440');
    // The last keystroke, and the reload at once: well within the while the tab waits before it writes.
    await steps.press('End');
    await steps.press(halfTyped.at(-1)!);
    await reload(page);

    const back = page.locator('[data-client-card="A"]');
    await back.getByLabel('Steps (JSON)').waitFor();
    await settled(page);
    expect(await back.getByLabel('TTL (ms)').inputValue()).toBe('4321');
    expect(await page.getByLabel('Summary').inputValue()).toBe('mine now');
    expect(await back.getByLabel('Steps (JSON)').inputValue()).toBe(halfTyped);
    expect(await back.getByLabel('Steps (JSON)').getAttribute('aria-invalid')).toBe('true');
    expect(await back.getByText('not JSON yet').count()).toBe(1);
    expect(await page.getByTestId('draft-state').textContent()).toBe('changed since loaded or run');
    expect(await page.getByTestId('confirm').count()).toBe(0);
    expect(await page.getByTestId('notice').count()).toBe(0);
    await screenshot(page, 'sandbox-reload-after-1440');

    // Finished, the JSON reaches the draft, and the next reload shows it as typed.
    const finished = halfTyped.replace('{"step": "acq', '{"step": "acquire"},');
    await back.getByLabel('Steps (JSON)').fill(finished);
    await reload(page);
    await page.locator('[data-client-card="A"]').getByLabel('Steps (JSON)').waitFor();
    expect(await page.locator('[data-client-card="A"]').getByLabel('Steps (JSON)').inputValue()).toBe(finished);
    expect(await page.locator('[data-client-card="A"]').getByText('not JSON yet').count()).toBe(0);
    expect(lab.errors).toEqual([]);
  });

  it('brings back an imported scenario with the name of its file, and only in its own tab', async () => {
    const page = await lab.page('#/sandbox?s=pause-past-expiry', { width: 1024, height: 768 });
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    await importFile(page, 'mine.json', MINE);
    await expect.poll(() => page.locator('[data-client-card="Solo"]').count()).toBe(1);
    const start = page.getByTestId('sandbox-start');
    expect(await start.locator('option:checked').textContent()).toBe('(imported from mine.json)');
    await screenshot(page, 'sandbox-reload-before-1024');
    await reload(page);
    await page.locator('[data-client-card="Solo"]').waitFor();
    await settled(page);
    expect(await page.locator('[data-client-card="Solo"]').getByLabel('TTL (ms)').inputValue()).toBe('1234');
    expect(await page.getByTestId('draft-state').getAttribute('data-from')).toBe('file:mine.json');
    expect(await start.locator('option:checked').textContent()).toBe('(imported from mine.json)');
    expect(await page.getByTestId('draft-state').textContent()).toBe('');
    expect(await page.getByTestId('confirm').count()).toBe(0);
    await screenshot(page, 'sandbox-reload-after-1024');

    // Another tab of the same browser is doing something else: it opens on its own address.
    const other = await lab.page('#/sandbox?s=pause-past-expiry');
    await expect.poll(() => other.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    await settled(other);
    expect(await other.locator('[data-client-card="Solo"]').count()).toBe(0);
    expect(await kept(other)).toBeNull();
    expect(lab.errors).toEqual([]);
  });

  it('brings back the run after a run, as its address does, and what was changed after it', async () => {
    const page = await lab.page('#/sandbox', { width: 1440, height: 900 });
    await page.getByRole('button', { name: 'Blank scenario' }).click();
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('blank');
    await page.locator('[data-client-card="A"]').getByLabel('TTL (ms)').fill('2222');
    await page.getByTestId('sandbox-run').click();
    await expect.poll(() => page.getByTestId('verdict').count()).toBe(1);
    await expect.poll(() => page.url()).toContain('sc=');
    await reload(page);
    const a = page.locator('[data-client-card="A"]');
    await a.waitFor();
    await settled(page);
    expect(await a.getByLabel('TTL (ms)').inputValue()).toBe('2222');
    expect(await page.getByTestId('draft-state').textContent()).toBe('');
    expect(await page.getByTestId('confirm').count()).toBe(0);
    // The address carries the run: the lab shows it.
    expect(page.url()).toContain('sc=');

    await a.getByLabel('TTL (ms)').fill('3333');
    await reload(page);
    await page.locator('[data-client-card="A"]').waitFor();
    await settled(page);
    expect(await page.locator('[data-client-card="A"]').getByLabel('TTL (ms)').inputValue()).toBe('3333');
    expect(await page.getByTestId('draft-state').textContent()).toBe('changed since loaded or run');
    expect(lab.errors).toEqual([]);
  });

  it('brings back nothing the user threw away: a scenario replaced by a built-in, or dropped for the lab’s trace', async () => {
    const page = await lab.page('#/sandbox?s=pause-past-expiry', { width: 1440, height: 900 });
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    await importFile(page, 'mine.json', MINE);
    const solo = page.locator('[data-client-card="Solo"]');
    await solo.waitFor();
    await solo.getByLabel('TTL (ms)').fill('4321');

    // Replaced by a built-in: that is what comes back.
    await page.getByTestId('sandbox-start').selectOption('crash-without-release');
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    await page.getByRole('button', { name: 'Load crash-without-release anyway' }).click();
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('crash-without-release');
    await reload(page);
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('crash-without-release');
    await settled(page);
    expect(await page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('crash-without-release');
    expect(await page.locator('[data-client-card="Solo"]').count()).toBe(0);

    // Changed, then dropped for the trace the lab shows since: the form follows the address again, and keeps nothing.
    await importFile(page, 'mine.json', MINE);
    await solo.waitFor();
    await solo.getByLabel('TTL (ms)').fill('4321');
    await page.getByRole('button', { name: 'Lab', exact: true }).click();
    await ready(page);
    await page.evaluate(() => (location.hash = '#/lab?s=flock-across-servers'));
    await expect.poll(() => page.url()).toContain('flock-across-servers');
    await ready(page);
    await page.getByRole('button', { name: 'Sandbox', exact: true }).click();
    await page.getByRole('button', { name: /^Open .* anyway$/ }).click();
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('flock-across-servers');
    await expect.poll(() => kept(page)).toBeNull();
    await reload(page);
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('flock-across-servers');
    await settled(page);
    expect(await page.locator('[data-client-card="Solo"]').count()).toBe(0);
    expect(await page.getByTestId('draft-state').textContent()).toBe('');
    expect(lab.errors).toEqual([]);
  });

  it('opens clean, with a notice, on a kept scenario it cannot read, and removes it', async () => {
    const damaged: [string, string][] = [
      ['not JSON', '{"version":1,"draft":{"name":"half'],
      ['an older shape', JSON.stringify({ version: 0, scenario: MINE })],
      ['a scenario without clients', JSON.stringify({ version: 1, draft: { ...MINE, clients: 'Solo' }, from: 'file:x.json', dirty: false, texts: {} })],
    ];
    for (const [what, text] of damaged) {
      const page = await lab.page('#/sandbox?s=pause-past-expiry', { width: 1440, height: 900 });
      await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
      // The form follows the address, so the tab keeps nothing of it: written after that, the damaged entry is the one the reload finds.
      await settled(page);
      await page.evaluate(([key, value]) => sessionStorage.setItem(key!, value!), [KEY, text]);
      await reload(page);
      const notice = page.getByTestId('notice');
      await notice.waitFor();
      expect(await notice.textContent(), what).toContain('The Sandbox’s scenario kept for this tab could not be read, so the Sandbox opens without it');
      expect(await notice.textContent(), what).toContain(`${KEY} was discarded because`);
      await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
      expect(await kept(page), what).toBeNull();
      if (what === 'not JSON') {
        await screenshot(page, 'sandbox-reload-damaged-1440');
        await page.setViewportSize({ width: 1024, height: 768 });
        await screenshot(page, 'sandbox-reload-damaged-1024');
      }
      await page.close();
    }
    expect(lab.errors).toEqual([]);
  });

  it('works as before where the tab cannot keep anything: storage refused or full', async () => {
    const page = await lab.context.newPage();
    await page.addInitScript(() => {
      for (const m of ['getItem', 'setItem', 'removeItem'] as const)
        Storage.prototype[m] = () => {
          throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
        };
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${lab.url}#/sandbox?s=pause-past-expiry`);
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    await page.locator('[data-client-card="A"]').getByLabel('TTL (ms)').fill('4321');
    await reload(page);
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    await settled(page);
    expect(await page.locator('[data-client-card="A"]').getByLabel('TTL (ms)').inputValue()).not.toBe('4321');
    expect(await page.getByTestId('notice').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps a scenario of 200 clients, the most a scenario has, in well under a frame', async () => {
    const page = await lab.page('#/sandbox?s=pause-past-expiry', { width: 1440, height: 900 });
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    const clients = Array.from({ length: 200 }, (_, i) => ({
      name: `C${i}`,
      machine: i % 2 === 0 ? 'a' : 'b',
      ttlMs: 1000 + i,
      pauseAfterAcquire: { probability: 0.01, duration: { distribution: 'long-tail', minMs: 50, maxMs: 2000 } },
    }));
    const big = { ...MINE, name: 'two-hundred', machines: [{ name: 'a' }, { name: 'b' }, { name: 'db' }], clients };
    await importFile(page, 'big.json', big);
    await page.locator('[data-client-card="C199"]').waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await kept(page))?.length ?? 0, { timeout: 10_000 }).toBeGreaterThan(0);
    // One store as the page makes it: the scenario serialised, then written to the tab's storage.
    const storeMs = await page.evaluate((key) => {
      const draft = JSON.parse(sessionStorage.getItem(key)!) as object;
      const rounds = 20;
      const started = performance.now();
      for (let i = 0; i < rounds; i++) sessionStorage.setItem(key, JSON.stringify({ ...draft, round: i }));
      return (performance.now() - started) / rounds;
    }, KEY);
    const bytes = (await kept(page))!.length;
    console.log(`[sandbox reload] one store of a 200-client scenario (${bytes} characters): ${storeMs.toFixed(2)} ms`);
    expect(storeMs).toBeLessThan(16);

    // Finding a field by its label reads the labels of all 200 cards, which takes Playwright seconds.
    await page.getByLabel('Summary', { exact: true }).fill('typed', { timeout: 60_000 });
    await reload(page);
    await page.locator('[data-client-card="C199"]').waitFor({ timeout: 30_000 });
    expect(await page.getByLabel('Summary', { exact: true }).inputValue({ timeout: 60_000 })).toBe('typed');
    expect(await page.locator('[data-client-card="C123"]').getByLabel('TTL (ms)').inputValue({ timeout: 60_000 })).toBe('1123');
    expect(lab.errors).toEqual([]);
  });
});
