import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { normalizeScenario, runScenario, traceHash } from '../../sim/index.js';
import { shuffledKeys } from '../fuzz/mutate.js';
import { KIND_NAMES, randomScenario } from '../support/random-scenario.js';
import { describeBrowser, startLab, type Lab } from './harness.js';

const SCENARIOS = 1000;
const BATCH = 50;

describeBrowser('Chromium and Node agree on random scenarios of every store kind', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it(`${SCENARIOS} random scenarios, their keys shuffled for the browser, give the run hash Node gives the unshuffled ones`, async () => {
    const docs = fc.sample(randomScenario, { seed: 20_260_614, numRuns: SCENARIOS });
    expect(new Set(docs.map((d) => (d.store as { kind: string }).kind))).toEqual(new Set(KIND_NAMES));
    const node = docs.map((d) => traceHash(runScenario(normalizeScenario(d, 'random'))));
    const page = await lab.page('#/stores');
    await page.waitForFunction(() => window.__locklab !== undefined, undefined, { timeout: 10_000 });
    const browser: string[] = [];
    for (let i = 0; i < docs.length; i += BATCH) {
      const batch = docs.slice(i, i + BATCH).map((d, k) => shuffledKeys(d, i + k + 1));
      const hashes = await page.evaluate(async (list) => {
        const out: string[] = [];
        for (const raw of list) out.push((await window.__locklab!.run({ raw, sourceName: 'random' }, null)).hash);
        return out;
      }, batch);
      browser.push(...hashes);
    }
    const differ = docs.map((d, i) => ({ i, d })).filter(({ i }) => browser[i] !== node[i]);
    expect(differ.map(({ i, d }) => `#${i} ${(d.store as { kind: string }).kind} seed ${String(d.seed)}`)).toEqual([]);
    expect(browser).toHaveLength(SCENARIOS);
    expect(lab.errors).toEqual([]);
  }, 600_000);
});
