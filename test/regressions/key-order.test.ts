import { describe, expect, it } from 'vitest';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { serializeTrace } from '../../sim/trace/io.js';
import { shuffledKeys } from '../fuzz/mutate.js';

/*
 * Regression: faults and deploy patches were passed into the trace as the
 * input listed their keys, so 808 of 821 scenarios with faults changed
 * hash when their keys were shuffled.
 */

/** The trace's bytes, as `--json` and `--out` write them (the run hash alone would not tell: it sorts keys itself). */
const bytesOf = (doc: unknown): string => serializeTrace(runScenario(normalizeScenario(doc, 'doc')));

describe('the trace does not depend on the input document’s key order', () => {
  it('every built-in scenario, its keys shuffled five ways, writes the same trace, byte for byte', () => {
    for (const name of BUILTIN_NAMES) {
      const expected = bytesOf(BUILTIN_SCENARIOS[name]);
      for (let seed = 1; seed <= 5; seed++) expect(bytesOf(shuffledKeys(BUILTIN_SCENARIOS[name], seed)) === expected, `${name}, shuffle ${seed}`).toBe(true);
    }
  });

  it('a fault written in any key order is kept in the schema’s order, with its defaults', () => {
    const doc = {
      name: 'order',
      machines: [{ name: 'app1' }, { name: 'db' }],
      store: { kind: 'redis', machine: 'db' },
      clients: [{ name: 'A', machine: 'app1' }],
      faults: [
        { durationMs: 5, extraMs: 3, atMs: 1, kind: 'latency-spike' },
        { target: 'A', durationMs: 10, kind: 'pause', atMs: 2 },
      ],
    };
    expect(normalizeScenario(doc, 'order').faults.map((f) => Object.keys(f))).toEqual([
      ['kind', 'atMs', 'durationMs', 'extraMs', 'machines'],
      ['kind', 'atMs', 'target', 'durationMs'],
    ]);
  });

  it('a deploy patch is kept in the store’s field order, whatever order it was written in', () => {
    const doc = (store: Record<string, unknown>) => ({
      name: 'deploy-order',
      machines: [{ name: 'app1' }, { name: 'app2' }, { name: 'db' }],
      store: { kind: 'redis', machine: 'db', keyPrefix: 'v1:' },
      clients: [
        { name: 'A', machine: 'app1', ttlMs: 10000, workMs: 3000 },
        { name: 'B', machine: 'app2', startMs: 1000, ttlMs: 10000, workMs: 500, acquire: { retries: 5, retryDelayMs: 1000 } },
      ],
      faults: [{ kind: 'deploy', atMs: 500, clients: ['B'], store }],
    });
    const a = doc({ keyPrefix: 'v2:', machine: 'app2' });
    const b = doc({ machine: 'app2', keyPrefix: 'v2:' });
    expect(Object.keys(normalizeScenario(b, 'b').faults[0]!.kind === 'deploy' ? (normalizeScenario(b, 'b').faults[0] as { store: object }).store : {})).toEqual(
      ['machine', 'keyPrefix'],
    );
    expect(bytesOf(b)).toBe(bytesOf(a));
  });
});
