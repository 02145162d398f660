import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS, normalizeScenario, runScenario, traceHash } from '../../sim/index.js';
import { describeBrowser, ready, startLab, type Lab } from './harness.js';

const SEEDS = [1, 7, 42, 4_294_967_295];

describeBrowser('Chromium and Node agree on every trace', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('the worker in Chromium produces the same trace hash as Node for every built-in scenario and several seeds', async () => {
    const page = await lab.page('#/stores');
    await page.waitForFunction(() => window.__locklab !== undefined, undefined, { timeout: 10_000 });
    let compared = 0;
    for (const name of BUILTIN_NAMES) {
      for (const seed of SEEDS) {
        const node = traceHash(runScenario(normalizeScenario(BUILTIN_SCENARIOS[name], name), seed));
        const browser = await page.evaluate(([n, s]) => window.__locklab!.run({ builtin: n as string }, s as number), [name, seed] as const);
        expect(browser.hash, `locklab run ${name} --seed ${seed}`).toBe(node);
        compared++;
      }
    }
    expect(compared).toBe(BUILTIN_NAMES.length * SEEDS.length);
  });

  it('the hash the lab shows for a trace is the one Node computes', async () => {
    const page = await lab.page('#/lab?s=exists-then-set-race&seed=3');
    await ready(page);
    const node = traceHash(runScenario(normalizeScenario(BUILTIN_SCENARIOS['exists-then-set-race'], 'x'), 3));
    await expect.poll(() => page.getByTestId('trace-hash').textContent()).toBe(node);
    expect(lab.errors).toEqual([]);
  });
});
