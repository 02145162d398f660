/*
 * Browser figures for `npm run bench`, measured in headless Chromium on the
 * production build: time to first render of a lesson trace, time to draw a
 * 100,000-event trace, frames per second while scrubbing it, the time to
 * open a lesson and draw its first story, and the gzipped size of the
 * JavaScript the page loads first (lesson summaries included), and how the
 * Sandbox keeps up with a scenario of 200 clients (the most a scenario has).
 * Medians of several runs. Run directly (`npx tsx bench/browser.ts`) it prints the JSON.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { buildLab, startLab, type Lab } from '../test/browser/lab-server.js';

const RUNS = 5;
const HEAVY_RUNS = 3;
const SCRUB_MS = 2000;
/** The contention trace runs for about 224 s of true time; the scrub sweeps all of it. */
const SPAN_US = 224_000_000;

/** Eight clients contending for one key, with GC pauses sprinkled in: about 101,000 trace events. */
export const CONTENTION_100K = {
  name: 'contention-100k',
  summary: 'Eight clients on four machines contend for one key 900 times each; twenty GC pauses cause double ownership that fencing catches.',
  machines: [{ name: 'app0' }, { name: 'app1' }, { name: 'app2' }, { name: 'app3' }, { name: 'db' }],
  store: { kind: 'redis', machine: 'db' },
  resource: { fencing: true },
  clients: Array.from({ length: 8 }, (_, i) => ({
    name: `C${i}`,
    machine: `app${i % 4}`,
    ttlMs: 500,
    workMs: 20,
    iterations: 900,
    thinkMs: 5,
    acquire: { mode: 'blocking' },
  })),
  faults: Array.from({ length: 20 }, (_, i) => ({ kind: 'pause', target: `C${i % 8}`, atMs: 5000 + i * 9000, durationMs: 800 })),
};

/** Clients of the Sandbox's large scenario: the most a scenario may have (sim/scenario/limits.ts). */
const SANDBOX_CLIENTS = 200;
const SANDBOX_RUNS = 3;
const SANDBOX_KEYS = 5;

/** A scenario of `n` clients, each with the form's random GC pauses, as an engineer's large config would be imported. */
export const sandboxScenario = (n: number) => ({
  name: `clients-${n}`,
  machines: [{ name: 'a' }, { name: 'b' }, { name: 'db' }],
  store: { kind: 'redis', machine: 'db' },
  clients: Array.from({ length: n }, (_, i) => ({
    name: `C${i}`,
    machine: i % 2 === 0 ? 'a' : 'b',
    ttlMs: 1000 + i,
    pauseAfterAcquire: { probability: 0.01, duration: { distribution: 'long-tail', minMs: 50, maxMs: 2000 } },
  })),
});

/**
 * When the page last finished a task of over 50 ms after `since` (the
 * browser's long tasks), once none has ended for `quietMs`: the moment the
 * page went idle. A string, not a function: tsx's keepNames would otherwise
 * inject a helper the page does not have.
 */
const idleAfter = async (page: Page, since: number, quietMs: number): Promise<number> =>
  (await page.evaluate(`(async () => {
    for (;;) {
      await new Promise((r) => setTimeout(r, 50));
      const last = Math.max(${since}, window.__readyAt ?? 0, ...window.__longTasks.filter((t) => t.end > ${since}).map((t) => t.end));
      if (performance.now() - last > ${quietMs}) return last;
    }
  })()`)) as number;

/**
 * The Sandbox with a scenario of `clients` clients: from choosing the file to the
 * page idle with every card drawn (and each client's PHP written), and from
 * a keystroke in a client's field to the next frame painted (the
 * keystroke's own time stamp, to a task after the frame that follows it).
 */
export async function sandboxBench(lab: Lab, clients = SANDBOX_CLIENTS): Promise<{ importToIdle: number[]; keystroke: number[] }> {
  const importToIdle: number[] = [];
  const keystroke: number[] = [];
  const last = `[data-client-card="C${clients - 1}"]`;
  const file = { name: 'clients.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(sandboxScenario(clients))) };
  for (let i = 0; i < SANDBOX_RUNS; i++) {
    const page = await lab.page('#/sandbox?s=pause-past-expiry', { width: 1440, height: 900 });
    await page.locator('[data-client-card]').first().waitFor({ timeout: 15_000 });
    await page.evaluate(`window.__longTasks = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push({ end: e.startTime + e.duration }); }).observe({ type: 'longtask' });
      new MutationObserver((_, o) => { if (document.querySelector('${last}') !== null) { window.__readyAt = performance.now(); o.disconnect(); } }).observe(document.body, { childList: true, subtree: true });`);
    const t0 = (await page.evaluate('performance.now()')) as number;
    await page.getByTestId('import-scenario').setInputFiles(file);
    await page.locator(last).waitFor({ timeout: 60_000 });
    importToIdle.push((await idleAfter(page, t0, 1000)) - t0);
    await page
      .locator(`[data-client-card="C${Math.floor(clients / 2)}"]`)
      .getByLabel('Key')
      .focus();
    await page.evaluate(`window.__keys = [];
      document.addEventListener('keydown', (e) => { const at = e.timeStamp; requestAnimationFrame(() => setTimeout(() => window.__keys.push(performance.now() - at), 0)); }, true);`);
    for (let k = 0; k < SANDBOX_KEYS; k++) {
      const before = (await page.evaluate('performance.now()')) as number;
      await page.keyboard.press('x');
      // The next keystroke comes once the page is idle again, so each is timed on its own.
      await idleAfter(page, before, 300);
    }
    keystroke.push(...((await page.evaluate('window.__keys')) as number[]));
    await page.close();
  }
  return { importToIdle, keystroke };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The JavaScript index.html loads before anything else (its entry module and preloads), gzipped. */
function initialJsGzipKb(outDir: string): number {
  const html = readFileSync(join(outDir, 'index.html'), 'utf8');
  const srcs = [...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g), ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g)].map(
    (m) => m[1]!,
  );
  let bytes = 0;
  for (const src of new Set(srcs)) bytes += gzipSync(readFileSync(join(outDir, src.replace(/^\.\//, ''))), { level: 9 }).length;
  return bytes / 1024;
}

export async function runBrowserBench(): Promise<Record<string, number>> {
  const outDir = await buildLab();
  const lab = await startLab();
  try {
    const firstRender: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const page = await lab.context.newPage();
      await page.goto(`${lab.url}#/lab?s=pause-past-expiry`);
      await page.locator('[data-mark="double-ownership"]').waitFor({ timeout: 15_000 });
      await page.waitForFunction(() => performance.getEntriesByName('locklab:timeline-drawn').length > 0, undefined, { timeout: 15_000 });
      firstRender.push(await page.evaluate(() => performance.getEntriesByName('locklab:timeline-drawn')[0]!.startTime));
      await page.close();
    }

    // Open lesson 4 (its text loads on demand), then play its story until the timeline is drawn.
    const lessonOpen: number[] = [];
    const storyDraw: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const page = await lab.context.newPage();
      await page.goto(`${lab.url}#/lesson/04-pause-past-expiry`);
      const play = page.getByTestId('play-story-gc-pause');
      await play.waitFor({ timeout: 15_000 });
      lessonOpen.push((await page.evaluate('performance.now()')) as number);
      // Strings, not functions: tsx's keepNames would otherwise inject a helper the page does not have.
      await page.evaluate(
        `performance.clearMarks('locklab:timeline-drawn'); window.__storyT0 = performance.now(); document.querySelector('[data-testid="play-story-gc-pause"]').click();`,
      );
      await page.waitForFunction(`performance.getEntriesByName('locklab:timeline-drawn').length > 0`, undefined, { timeout: 15_000 });
      storyDraw.push((await page.evaluate(`performance.getEntriesByName('locklab:timeline-drawn')[0].startTime - window.__storyT0`)) as number);
      await page.close();
    }

    const render100k: number[] = [];
    const sim100k: number[] = [];
    const scrubFps: number[] = [];
    let events = 0;
    for (let i = 0; i < HEAVY_RUNS; i++) {
      const page = await lab.context.newPage();
      await page.goto(`${lab.url}#/stores`);
      await page.waitForFunction(() => window.__locklab !== undefined, undefined, { timeout: 15_000 });
      const started = Date.now();
      const shown = await page.evaluate((raw) => window.__locklab!.show({ raw, sourceName: 'bench' }, 1), CONTENTION_100K as unknown);
      sim100k.push(Date.now() - started - shown.renderMs);
      render100k.push(shown.renderMs);
      events = shown.events;
      // A string, not a function: tsx's keepNames would otherwise inject a helper the page does not have.
      const fps = (await page.evaluate(`(async () => {
        const ui = window.__locklab.ui;
        const endUs = ${SPAN_US};
        const t0 = performance.now();
        let frames = 0;
        await new Promise((resolve) => {
          const tick = (now) => {
            const f = (now - t0) / ${SCRUB_MS};
            if (f >= 1) return resolve();
            // Sweep the playhead across the whole trace, as a user dragging the scrubber would.
            ui.getState().seekTime(f * endUs);
            frames++;
            requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
        });
        return (frames * 1000) / (performance.now() - t0);
      })()`)) as number;
      scrubFps.push(fps);
      await page.close();
    }
    /*
     * The Odds view's sweep: 11 points × 2,000 seeds of pause-past-expiry in
     * the page's Web Workers, in a page just opened; then the same sweep
     * again in that page, on the workers the first one left warm.
     */
    const sweepRate: number[] = [];
    const sweepRateAgain: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const page = await lab.context.newPage();
      await page.goto(`${lab.url}#/odds`);
      await page.getByTestId('odds-runs').fill('2000');
      for (const rates of [sweepRate, sweepRateAgain]) {
        await page.getByTestId('odds-run').click();
        // The last sweep's status goes when this one starts.
        await page.waitForFunction(() => !/done$/.test(document.querySelector('[data-testid="odds-status"]')?.textContent ?? ''));
        await page.getByTestId('odds-status').filter({ hasText: /done$/ }).waitFor({ timeout: 120_000 });
        const status = (await page.getByTestId('odds-status').textContent()) ?? '';
        rates.push(Number(/· ([\d,]+) runs\/s/.exec(status)![1]!.replace(/,/g, '')));
      }
      await page.close();
    }
    const sandbox = await sandboxBench(lab);
    if (lab.errors.length > 0) throw new Error(`the lab reported errors during the bench:\n${lab.errors.join('\n')}`);
    return {
      'browser.firstRenderMs': round(median(firstRender)),
      'browser.trace100kEvents': events,
      'browser.trace100kSimulateMs': round(median(sim100k)),
      'browser.trace100kRenderMs': round(median(render100k)),
      'browser.scrub100kFps': round(median(scrubFps)),
      'browser.lessonOpenMs': round(median(lessonOpen)),
      'browser.lessonStoryDrawMs': round(median(storyDraw)),
      'browser.lessonOpenAndStoryMs': round(median(lessonOpen) + median(storyDraw)),
      'browser.initialJsGzipKb': round(initialJsGzipKb(outDir)),
      'browser.sweepRunsPerSec': round(median(sweepRate)),
      'browser.sweepAgainRunsPerSec': round(median(sweepRateAgain)),
      'browser.sandbox200ImportToIdleMs': round(median(sandbox.importToIdle)),
      'browser.sandbox200KeystrokeMs': round(median(sandbox.keystroke)),
      'browser.sweepWorkers': await (async () => {
        const page = await lab.context.newPage();
        const n = await page.evaluate(() => Math.max(1, Math.min(8, navigator.hardwareConcurrency || 2)));
        await page.close();
        return n;
      })(),
    };
  } finally {
    await lab.close();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  runBrowserBench().then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
