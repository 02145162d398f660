import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createLogger, createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH, REPO, describeBrowser, freePort } from './harness.js';

/*
 * `npm start`, the README's first command, serves the lab with Vite's dev
 * server, which the other browser tests do not use (they test the build).
 * The dev server bundles the lab's npm packages on the first visit; one it
 * finds only later (a worker's import, loaded when a trace is read) makes it
 * bundle again and reload the page, and a newcomer's first click (watching
 * a story on real servers) was lost that way. Here a first visit, with no
 * bundles cached, goes through every view and both workers and must never
 * be reloaded.
 */
describeBrowser('the lab served by npm start (the dev server), visited for the first time', () => {
  let server: ViteDevServer;
  let browser: Browser;
  let cacheDir: string;
  const logged: string[] = [];

  beforeAll(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'locklab-vite-'));
    const logger = createLogger('info');
    for (const level of ['info', 'warn', 'error'] as const) {
      const log = logger[level].bind(logger);
      logger[level] = (msg, options) => {
        logged.push(msg);
        if (level !== 'info') log(msg, options);
      };
    }
    const port = await freePort();
    server = await createServer({
      root: join(REPO, 'web'),
      configFile: join(REPO, 'vite.config.ts'),
      // A cache of its own, empty: the first visit of a fresh clone.
      cacheDir,
      customLogger: logger,
      server: { host: '127.0.0.1', port, strictPort: true },
    });
    await server.listen();
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await server?.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it("compiles the lab's modules as it starts, before the first visit asks for them", async () => {
    const graph = server.environments.client.moduleGraph;
    const compiled = async (url: string) => (await graph.getModuleByUrl(url))?.transformResult != null;
    for (const url of ['/app.tsx', '/views/OddsView.tsx', '/lessons/LessonView.tsx', '/worker/sim.worker.ts', '/odds/odds.worker.ts'])
      await expect.poll(() => compiled(url), { timeout: 30_000, message: url }).toBe(true);
  });

  it('opens a story on real servers, the lab, Compare, the stores and the odds without reloading the page', async () => {
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
    let loads = 0;
    page.on('load', () => loads++);
    // The dev server transforms each module on its first request: on a loaded machine a cold first page takes tens of seconds.
    page.setDefaultTimeout(90_000);
    const base = server.resolvedUrls!.local[0]!;

    await page.goto(`${base}#/lesson/04-pause-past-expiry`);
    const section = page.locator('section[data-story]').first();
    // Reading a recording validates it in the simulation's worker: the import that used to be bundled late.
    await section.getByTestId('watch-real-symfony').click();
    const timelines = section.locator('figure.timeline');
    await expect
      .poll(() => timelines.count(), { timeout: 90_000, message: 'the real run beside the story (a page the dev server reloaded has lost the click)' })
      .toBe(2);
    await expect.poll(() => timelines.nth(0).locator('figcaption').textContent()).toContain('on real servers');

    const tab = (name: string) => page.getByRole('navigation', { name: 'Views' }).getByRole('button', { name, exact: true });
    await tab('Lab').click();
    await page.locator('main[data-view="lab"] figure.timeline svg.timeline-svg').waitFor();
    // The sandbox runs its form's scenario, and checks a client card as it is edited.
    await tab('Sandbox').click();
    await page.getByTestId('sandbox-run').click();
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome'), { timeout: 90_000 }).toBe('unsafe');
    await page.locator('[data-client-card="A"]').getByLabel('TTL (ms)').fill('2000');
    await tab('Compare').click();
    await page.locator('main[data-view="compare"] figure.timeline svg.timeline-svg').first().waitFor();
    await tab('Stores').click();
    await page.getByTestId('stores-table').waitFor();
    // The odds view sweeps in workers of its own.
    await tab('Odds').click();
    await page.getByTestId('odds-run').click();
    await expect.poll(() => page.getByTestId('odds-status').textContent(), { timeout: 120_000 }).toMatch(/ done$/);

    expect(logged.filter((m) => /reload|optimized dependencies changed|new dependencies/i.test(m))).toEqual([]);
    expect(loads).toBe(1);
    expect(errors).toEqual([]);
  }, 300_000);
});
