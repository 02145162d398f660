import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { contentionScenario } from '../../bench/contention.js';
import { BUILTIN_SCENARIOS, normalizeScenario, runScenario, serializeTrace, traceHash } from '../../sim/index.js';
import { describeBrowser, openCode, ready, screenshot, startLab, type Lab } from './harness.js';

/*
 * Imported files are read and parsed in the lab's worker: the page only
 * reads the first 4 KiB of a dropped file (to tell a trace from a
 * scenario) and never parses a file's text, so a large file cannot freeze
 * it. The page's own JSON.parse and Blob reads are watched to prove it.
 */

describeBrowser('imported files are parsed off the main thread', () => {
  let lab: Lab;
  const dir = mkdtempSync(join(tmpdir(), 'locklab-import-'));
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function watched(hash: string) {
    const page = await lab.context.newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { __largestParse: number; __largestRead: number };
      w.__largestParse = 0;
      w.__largestRead = 0;
      const parse = JSON.parse.bind(JSON);
      JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
        w.__largestParse = Math.max(w.__largestParse, String(text).length);
        return parse(text, reviver);
      }) as typeof JSON.parse;
      for (const name of ['text', 'arrayBuffer'] as const) {
        const original = Blob.prototype[name] as (this: Blob) => Promise<unknown>;
        (Blob.prototype as unknown as Record<string, unknown>)[name] = function (this: Blob) {
          w.__largestRead = Math.max(w.__largestRead, this.size);
          return original.call(this);
        };
      }
    });
    page.on('pageerror', (e) => lab.errors.push(`pageerror: ${e.message}`));
    await page.goto(`${lab.url}${hash}`);
    return page;
  }

  const largest = (page: Awaited<ReturnType<typeof watched>>) =>
    page.evaluate(() => {
      const w = window as unknown as { __largestParse: number; __largestRead: number };
      return { parse: w.__largestParse, read: w.__largestRead };
    });

  it('a 30 MB trace opened from the picker is shown with Node’s run hash and the line each client is on, and the page never parses or reads it', async () => {
    const doc = runScenario(normalizeScenario(contentionScenario(), 'contention'));
    const text = serializeTrace(doc);
    expect(text.length).toBeGreaterThan(30_000_000);
    const page = await watched('#/lab?s=crash-without-release');
    await ready(page);
    // From a file on disk: the browser reads it itself, as it would a user's.
    const file = join(dir, 'big.trace.json');
    writeFileSync(file, text);
    await page.getByTestId('open-trace').setInputFiles(file);
    await expect.poll(() => page.evaluate(() => window.__locklab!.primaryHash()), { timeout: 60_000 }).toBe(traceHash(doc));
    await screenshot(page, 'large-trace-imported');
    const seen = await largest(page);
    expect(seen.parse).toBeLessThan(100_000);
    expect(seen.read).toBe(0);
    // Its scenario ran again in the worker to the same events, however many: the clients' code marks where each one is.
    const code = await openCode(page);
    await page.keyboard.press('Home');
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => code.locator('.php-line.here').count()).toBeGreaterThan(0);
    expect(lab.errors).toEqual([]);
  });

  it('a simulated trace file shows the line each client is on, once its scenario runs again to the same events; an edited one shows none', async () => {
    const doc = runScenario(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry'));
    const page = await lab.page('#/lab?s=crash-without-release');
    await ready(page);
    const file = join(dir, 'ppe.trace.json');
    writeFileSync(file, serializeTrace(doc));
    await page.getByTestId('open-trace').setInputFiles(file);
    await expect.poll(() => page.evaluate(() => window.__locklab!.primaryHash())).toBe(traceHash(doc));
    const code = await openCode(page);
    await page.keyboard.press('Home');
    for (let i = 0; i < 18; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => code.locator('.php-line.here').allTextContents()).toEqual(['        work(3); ◀ A, paused', '        work(1); ◀ B']);
    // The same trace claiming another seed is not what that seed runs: shown, with no line marked and nothing to go to.
    const edited = join(dir, 'ppe-edited.trace.json');
    writeFileSync(edited, serializeTrace({ ...doc, seed: doc.seed + 1 }));
    await page.getByTestId('open-trace').setInputFiles(edited);
    await expect.poll(() => page.evaluate(() => window.__locklab!.primaryHash())).toBe(traceHash({ ...doc, seed: doc.seed + 1 }));
    expect(await code.locator('.php-line.here').count()).toBe(0);
    expect(await code.locator('.php-go').count()).toBe(0);
    expect(await code.getByRole('region', { name: "A's code" }).locator('pre').textContent()).toContain('work(3);');
    expect(lab.errors).toEqual([]);
    await page.close();
  });

  it('a dropped scenario is told from a trace by its first 4 KiB, and parsed in the worker', async () => {
    const page = await watched('#/sandbox');
    await page.getByRole('button', { name: 'Blank scenario' }).waitFor();
    const scenario = { ...normalizeScenario(contentionScenario(60, 5, 0), 'x'), name: 'dropped-one', summary: 'x'.repeat(1500) };
    const json = JSON.stringify(scenario);
    const handle = await page.evaluateHandle((t) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], 'dropped.json', { type: 'application/json' }));
      return dt;
    }, json);
    await page.dispatchEvent('body', 'dragenter', { dataTransfer: handle });
    await page.dispatchEvent('body', 'drop', { dataTransfer: handle });
    await expect.poll(() => page.locator('[data-client-card="c59"]').count()).toBe(1);
    const seen = await largest(page);
    expect(seen.read).toBeLessThanOrEqual(4096);
    expect(seen.parse).toBeLessThan(json.length);
    expect(lab.errors).toEqual([]);
  });
});
