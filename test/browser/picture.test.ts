import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS } from '../../sim/index.js';
import { describeBrowser, ready, screenshot, startLab, type Lab } from './harness.js';

/* The timeline reads on its own: each of these was once drawn wrong or not at all. */

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Whether two boxes on the page share no pixel. */
const apart = (a: Box, b: Box): boolean => a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;

describeBrowser('the picture', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('sql-clock-skew draws A’s holding and B’s takeover as two labelled bars on the store lane at the default zoom', async () => {
    const page = await lab.page('#/lab?s=sql-clock-skew');
    await ready(page);
    const holds = page.locator('[data-mark="store-hold"]');
    await expect.poll(() => holds.count()).toBe(2);
    expect(await holds.evaluateAll((gs) => gs.map((g) => g.getAttribute('data-label')))).toEqual(['A:1', 'B:1']);
    expect(await holds.locator('text').allTextContents()).toEqual(['A:1', 'B:1']);
    await screenshot(page, 'picture-sql-takeover');
  });

  it('Redlock’s node lanes come in the order the scenario declares them, A to E, here and in the side panel', async () => {
    const page = await lab.page('#/lab?s=redlock-clock-jump');
    await ready(page);
    const lanes = await page.locator('figure.timeline [data-lane^="store:"]').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-lane')));
    expect(lanes).toEqual(['store:A', 'store:B', 'store:C', 'store:D', 'store:E']);
    const panel = await page.locator('aside.side-panel [data-store]').evaluateAll((li) => li.map((l) => l.getAttribute('data-store')));
    expect(panel).toEqual(['A', 'B', 'C', 'D', 'E']);
  });

  it('lane names stay inside the gutter and never run into the row names, even when long', async () => {
    const long = {
      name: 'long-names',
      machines: [{ name: 'application-server-one' }, { name: 'database-primary' }],
      store: { kind: 'redis', machine: 'database-primary', name: 'redis-primary-node' },
      resource: { machine: 'database-primary' },
      clients: [{ name: 'billing-worker-7', machine: 'application-server-one', ttlMs: 1000, workMs: 100 }],
    };
    for (const hash of ['#/lab?s=redlock-clock-jump', '#/lab?s=pause-past-expiry']) {
      const page = await lab.page(hash);
      await ready(page);
      await check(page, hash);
      await page.close();
    }
    const page = await lab.page('#/stores');
    await page.waitForFunction(() => window.__locklab !== undefined);
    await page.evaluate((raw) => window.__locklab!.show({ raw, sourceName: 'long' }, 1), long as unknown);
    await ready(page);
    await check(page, 'long names');
    const title = await page.locator('[data-lane="client:billing-worker-7"] title').textContent();
    expect(title).toBe('billing-worker-7 on application-server-one');
    await screenshot(page, 'picture-long-names');

    async function check(p: typeof page, label: string): Promise<void> {
      const boxes = await p.locator('figure.timeline .lane-labels g[data-lane]').evaluateAll((gs) =>
        gs.map((g) => {
          const box = (sel: string) =>
            [...g.querySelectorAll(sel)].map((t) => {
              const b = (t as SVGGraphicsElement).getBBox();
              return { x: b.x, y: b.y, width: b.width, height: b.height };
            });
          return { lane: g.getAttribute('data-lane'), names: box('.lane-name, .lane-machine'), rows: box('.row-name') };
        }),
      );
      const gutter = await p.locator('figure.timeline .plot-bg').first().getAttribute('x');
      for (const b of boxes) {
        for (const n of b.names) {
          expect(n.x + n.width, `${label}: ${b.lane} name inside the gutter`).toBeLessThanOrEqual(Number(gutter));
          for (const r of b.rows) {
            expect(apart(n, r), `${label}: ${b.lane} name and row name overlap`).toBe(true);
          }
        }
      }
    }
  });

  it('ticks a few microseconds apart read with the digits their step needs, and the first and last are not clipped', async () => {
    const page = await lab.page('#/lab?s=redlock-clock-jump&z=4999000-5001000');
    await ready(page);
    const labels = await page.locator('figure.timeline .tick-label').allTextContents();
    expect(labels.length).toBeGreaterThan(4);
    for (const l of labels) expect(l).toMatch(/^\d\.\d{4} s$/);
    const svg = await page.locator('figure.timeline svg.timeline-svg').boundingBox();
    const plotX = Number(await page.locator('figure.timeline .plot-bg').getAttribute('x'));
    for (const t of await page.locator('figure.timeline .tick-label').all()) {
      const b = (await t.boundingBox())!;
      expect(b.x).toBeGreaterThanOrEqual(svg!.x + plotX - 1);
      expect(b.x + b.width).toBeLessThanOrEqual(svg!.x + svg!.width - 1);
    }
  });

  it('a partition band’s words stay inside the band and clear of the glyphs on its row', async () => {
    const page = await lab.page('#/lab?s=redlock-clock-jump');
    await ready(page);
    const bands = page.locator('[data-mark="partition"]');
    await expect.poll(() => bands.count()).toBe(2);
    // Every glyph of the picture: each band starts where it loses its first message, and the glyph drawn there once covered the band's first letter.
    const glyphs = await page.locator('figure.timeline .glyph-bg').evaluateAll((cs) =>
      cs.map((c) => {
        const b = c.getBoundingClientRect();
        return { x: b.x, y: b.y, width: b.width, height: b.height };
      }),
    );
    expect(glyphs.length).toBeGreaterThanOrEqual(3);
    for (const band of await bands.all()) {
      const rect = (await band.locator('rect').boundingBox())!;
      const text = (await band.locator('text').boundingBox())!;
      expect(await band.locator('text').textContent()).toMatch(/^partition/);
      expect(text.x).toBeGreaterThanOrEqual(rect.x);
      expect(text.x + text.width).toBeLessThanOrEqual(rect.x + rect.width);
      for (const g of glyphs) {
        expect(apart(text, g), `the words of a band at ${JSON.stringify(text)} and a glyph at ${JSON.stringify(g)} overlap`).toBe(true);
      }
    }
    // Zoomed in, the band has room for whom the partition cuts off.
    const wide = await lab.page('#/lab?s=redlock-clock-jump&z=0-1200000');
    await ready(wide);
    expect(await wide.locator('[data-mark="partition"] text').first().textContent()).toBe('partition app1 | hostD hostE');
    await wide.close();
  });

  it('a refusal’s reason stops before the glyph that follows it: giving up right after the last refusal is read, not written over', async () => {
    const page = await lab.page('#/lab?s=combined-unanimous-node-down');
    await ready(page);
    const box = (sel: string) =>
      page.locator(sel).evaluateAll((ts) =>
        ts.map((t) => {
          const b = t.getBoundingClientRect();
          return { x: b.x, y: b.y, width: b.width, height: b.height };
        }),
      );
    const words = await box('figure.timeline .mark-label');
    expect(words.length).toBe(2);
    const reasons = await box('figure.timeline .refused-label');
    expect(reasons.length).toBeGreaterThan(0);
    const glyphs = await box('figure.timeline g[data-mark="acquire.giveup"] .glyph-bg');
    expect(glyphs.length).toBe(2);
    for (const r of reasons)
      for (const o of [...words, ...glyphs]) {
        expect(apart(r, o), `a refusal's reason at ${JSON.stringify(r)} runs into ${JSON.stringify(o)}`).toBe(true);
      }
  });

  it('in every built-in scenario, no words on the timeline lie over a glyph or other words', { timeout: 180_000 }, async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    const found: string[] = [];
    for (const name of Object.keys(BUILTIN_SCENARIOS)) {
      await page.evaluate((n) => (location.hash = `#/lab?s=${n}`), name);
      await expect.poll(() => page.locator('figure.timeline .timeline-title').first().textContent()).toContain(name);
      const overlaps = await page
        .locator('figure.timeline svg.timeline-svg')
        .first()
        .evaluate((svg) => {
          const items: { what: string; words: boolean; x: number; y: number; w: number; h: number }[] = [];
          // Symbols drawn as text (a glyph's, a refusal's cross, a write's tick) are marks, bucketed like glyphs, not words.
          const skip = ['tick-label', 'lane-clock', 'glyph', 'refused-x', 'finding-number', 'write-symbol'];
          for (const t of svg.querySelectorAll('text')) {
            if (t.closest('.lane-labels') !== null || skip.some((k) => t.classList.contains(k)) || (t.textContent ?? '').trim() === '') continue;
            const b = t.getBoundingClientRect();
            items.push({ what: `"${t.textContent}"`, words: true, x: b.x, y: b.y, w: b.width, h: b.height });
          }
          for (const c of svg.querySelectorAll('.glyph-bg')) {
            const b = c.getBoundingClientRect();
            items.push({ what: `the ${c.parentElement?.getAttribute('data-mark')} glyph`, words: false, x: b.x, y: b.y, w: b.width, h: b.height });
          }
          const out: string[] = [];
          for (let i = 0; i < items.length; i++)
            for (let j = i + 1; j < items.length; j++) {
              const a = items[i]!;
              const b = items[j]!;
              if (!a.words && !b.words) continue;
              // A pixel of halo against halo is not words covered.
              const ox = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
              const oy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
              if (ox > 1 && oy > 1) out.push(`${a.what} and ${b.what} (${Math.round(ox)}×${Math.round(oy)} px)`);
            }
          return out;
        });
      for (const o of overlaps) found.push(`${name}: ${o}`);
    }
    expect(found).toEqual([]);
    await page.close();
  });

  it('A’s GC pause is a solid span labelled where it begins, with its length', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    const pause = page.locator('[data-mark="pause"][data-client="A"]');
    await expect.poll(() => pause.count()).toBe(1);
    const fill = await pause.locator('rect').evaluate((r) => getComputedStyle(r).fill);
    expect(fill).toMatch(/^rgb/);
    const rect = (await pause.locator('rect').boundingBox())!;
    const text = (await pause.locator('text').boundingBox())!;
    expect(await pause.locator('text').textContent()).toBe('paused 15 s');
    expect(text.x - rect.x).toBeGreaterThanOrEqual(0);
    expect(text.x - rect.x).toBeLessThan(10);
    expect(rect.width).toBeGreaterThan(text.width);
  });

  it('B’s refused attempts are short marks on its belief row, each with its reason', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry');
    await ready(page);
    const refused = page.locator('[data-mark="refused"][data-client="B"]');
    await expect.poll(() => refused.count()).toBe(3);
    expect(await refused.evaluateAll((gs) => gs.map((g) => g.getAttribute('data-reason')))).toEqual(['held by A:1', 'held by A:1', 'held by A:1']);
    expect(await refused.locator('.refused-label').allTextContents()).toEqual(['held by A:1', 'held by A:1', 'held by A:1']);
    const belief = await page.locator('[data-lane="client:B"]').boundingBox();
    for (const r of await refused.all()) {
      const b = (await r.locator('rect').boundingBox())!;
      expect(b.y).toBeGreaterThan(belief!.y);
      expect(b.y + b.height).toBeLessThan(belief!.y + belief!.height);
    }
  });

  it('a row of more bars than the plot can show one by one is drawn as one path, and a click on it still inspects the bar under the pointer', async () => {
    const busy = {
      name: 'busy',
      machines: [{ name: 'a' }, { name: 'b' }, { name: 'db' }],
      store: { kind: 'redis', machine: 'db' },
      clients: ['a', 'b'].map((m, i) => ({
        name: `C${i}`,
        machine: m,
        ttlMs: 2000,
        workMs: 200,
        iterations: 150,
        thinkMs: 100,
        acquire: { mode: 'blocking' },
      })),
    };
    const page = await lab.page('#/stores');
    await page.waitForFunction(() => window.__locklab !== undefined);
    await page.evaluate((raw) => window.__locklab!.show({ raw, sourceName: 'busy' }, 1), busy as unknown);
    await ready(page);
    const row = page.locator('[data-mark="belief"][data-client="C0"]');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getAttribute('data-dense')).toBe('belief');
    expect(await page.locator('.marks *').count()).toBeLessThan(1500);
    const box = (await row.locator('path').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.getByTestId('inspector').waitFor();
    const now = (await page.getByTestId('current-event').textContent()) ?? '';
    expect(now).toMatch(/C0@a acquires job as C0:\d+/);
  });

  it('with arrows on, a refused request goes to the store’s lane and back, not along the client’s own row', async () => {
    const page = await lab.page('#/lab?s=pause-past-expiry&arrows=1');
    await ready(page);
    const arrows = page.locator('[data-mark="arrow"]');
    await expect.poll(() => arrows.count()).toBeGreaterThan(5);
    const routes = await arrows.evaluateAll((ps) => ps.map((p) => (p.getAttribute('data-lanes') ?? '').split(' ')));
    for (const r of routes) expect(new Set(r).size, r.join(' → ')).toBeGreaterThan(1);
    // B's three refused attempts, its grant and its release: each visits redis between B's request and its answer.
    expect(routes.filter((r) => r.join(' ') === 'client:B store:redis client:B')).toHaveLength(5);
    expect(lab.errors).toEqual([]);
  });
});
