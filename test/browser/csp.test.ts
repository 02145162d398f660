import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, ready, screenshot, startLab, type Lab } from './harness.js';

/*
 * The built lab runs under its own Content-Security-Policy. The other
 * browser tests bypass it (to inject axe-core); this one enforces it, walks
 * every view and the file and link paths, and requires that the policy was
 * never violated and nothing was thrown or left unhandled.
 */

interface Watched {
  page: Page;
  problems: string[];
}

describeBrowser('the lab under its Content-Security-Policy', () => {
  let lab: Lab;
  let context: BrowserContext;
  const dir = mkdtempSync(join(tmpdir(), 'locklab-csp-'));
  beforeAll(async () => {
    lab = await startLab();
    context = await lab.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    context.setDefaultTimeout(15_000);
  });
  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await lab?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(hash: string): Promise<Watched> {
    const page = await context.newPage();
    const problems: string[] = [];
    // Registered before the lab's own scripts run, so no violation or rejection is missed.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { __problems: string[] }).__problems = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`csp: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'}`));
      window.addEventListener('unhandledrejection', (e) => seen.push(`unhandled rejection: ${String((e.reason as Error | undefined)?.message ?? e.reason)}`));
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    await page.goto(`${lab.url}${hash}`, { timeout: 15_000 });
    return { page, problems };
  }

  async function problemsOf(w: Watched): Promise<string[]> {
    return [...w.problems, ...(await w.page.evaluate(() => (window as unknown as { __problems: string[] }).__problems))];
  }

  it('the built page carries the policy, with form-action none', async () => {
    const { page } = await open('#/lab');
    const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("form-action 'none'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).toContain("base-uri 'none'");
  });

  it('the watch sees a violation when one happens: an inline script is blocked and reported', async () => {
    const w = await open('#/stores');
    await w.page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__ran = 1';
      document.head.append(s);
    });
    await expect.poll(async () => (await problemsOf(w)).join('\n')).toContain('csp: script-src');
    expect(await w.page.evaluate(() => (window as unknown as { __ran?: number }).__ran)).toBeUndefined();
  });

  it('every view loads and works with the policy enforced, and none violates it', async () => {
    const w = await open('#/lab?s=pause-past-expiry');
    await ready(w.page);
    await w.page.getByTestId('fencing-toggle').check();
    await expect.poll(() => w.page.getByTestId('verdict').getAttribute('data-outcome')).toBe('fenced');
    for (const view of ['Sandbox', 'Compare', 'Stores', 'Lab']) {
      await w.page.getByRole('button', { name: view, exact: true }).click();
      await expect.poll(() => w.page.locator('main').getAttribute('data-view')).toBe(view.toLowerCase());
    }
    await w.page.getByRole('button', { name: 'Sandbox', exact: true }).click();
    await w.page.getByTestId('sandbox-run').click();
    await expect.poll(() => w.page.getByTestId('verdict').count()).toBeGreaterThan(0);
    await w.page.keyboard.press('?');
    await w.page.keyboard.press('Escape');
    expect(await problemsOf(w)).toEqual([]);
  });

  it('a damaged link, a bad file and a file too large are each shown, with no violation and no unhandled rejection', async () => {
    const w = await open('#/lab?sc=not-deflate&seed=4294967296');
    await ready(w.page);
    const notice = w.page.getByTestId('notice');
    await expect.poll(() => notice.textContent()).toContain('link: seed expected a whole number from 0 to 4294967295');
    await w.page
      .getByTestId('open-trace')
      .setInputFiles({ name: 'deep.json', mimeType: 'application/json', buffer: Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) });
    await expect.poll(() => notice.textContent()).toContain('(maxDepth)');
    await screenshot(w.page, 'refused-deep-trace');
    // A sparse file: its size says 192 MiB and a byte, and it is refused by that size before a byte is read.
    const huge = join(dir, 'huge.trace.json');
    writeFileSync(huge, '');
    truncateSync(huge, 201_326_593);
    await w.page.getByTestId('open-trace').setInputFiles(huge);
    await expect
      .poll(() => notice.textContent())
      .toContain('huge.trace.json is 201,326,593 bytes; the limit is 201,326,592 bytes (maxLabTraceBytes); `locklab check` reads larger ones');
    await w.page.getByRole('button', { name: 'Sandbox', exact: true }).click();
    const big = Buffer.alloc(1_048_577, 0x20);
    await w.page.getByTestId('import-scenario').setInputFiles({ name: 'big.json', mimeType: 'application/json', buffer: big });
    const issues = w.page.getByTestId('sandbox-issues');
    await expect.poll(() => issues.textContent()).toContain('big.json is 1,048,577 bytes; the limit is 1,048,576 bytes (maxScenarioBytes)');
    await screenshot(w.page, 'refused-large-scenario');
    expect(await problemsOf(w)).toEqual([]);
  });
});
