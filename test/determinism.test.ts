import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { runScenario } from '../sim/run.js';
import { serializeTrace, traceHash } from '../sim/trace/io.js';
import { randomScenario } from './support/random-scenario.js';

describe('determinism', () => {
  it('the same scenario and seed give a byte-identical trace (sha256), run after run', () => {
    fc.assert(
      fc.property(randomScenario, (raw) => {
        const scenario = normalizeScenario(raw, 'random');
        const first = runScenario(scenario);
        // Run something else in between: no state may leak from one run into the next.
        runScenario(normalizeScenario({ ...raw, seed: ((raw.seed as number) + 1) % 2 ** 32 }, 'random'));
        const second = runScenario(normalizeScenario(structuredClone(raw), 'random'));
        expect(traceHash(second), `Reproduce with seed=${scenario.seed}: ${JSON.stringify(raw)}`).toBe(traceHash(first));
      }),
      { numRuns: 150 },
    );
  });

  it('every run stops, by completion or by one of its budgets', () => {
    fc.assert(
      fc.property(randomScenario, (raw) => {
        const doc = runScenario(normalizeScenario(raw, 'random'));
        expect(['completed', 'event-budget', 'time-budget']).toContain(doc.stop.reason);
        expect(doc.stop.events).toBeLessThanOrEqual(50_000);
      }),
      { numRuns: 100 },
    );
  });

  it('events are numbered in order and never go back in true time', () => {
    fc.assert(
      fc.property(randomScenario, (raw) => {
        const doc = runScenario(normalizeScenario(raw, 'random'));
        doc.events.forEach((e, i) => {
          expect(e.seq).toBe(i);
          if (i > 0) expect(e.timeUs).toBeGreaterThanOrEqual(doc.events[i - 1]!.timeUs);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('with fencing on, the resource never accepts a token lower than one it accepted before', () => {
    fc.assert(
      fc.property(randomScenario, (raw) => {
        const doc = runScenario(normalizeScenario({ ...raw, resource: { machine: 'db', fencing: true } }, 'random'));
        let highest = -Infinity;
        for (const e of doc.events) {
          if (e.kind !== 'write.accepted') continue;
          expect(e.fence).toBeGreaterThanOrEqual(highest);
          highest = e.fence!;
        }
      }),
      { numRuns: 100 },
    );
  });

  it('the trace a run returns serializes to valid JSON that reads back equal', () => {
    fc.assert(
      fc.property(randomScenario, (raw) => {
        const doc = runScenario(normalizeScenario(raw, 'random'));
        expect(JSON.parse(serializeTrace(doc))).toEqual(JSON.parse(JSON.stringify(doc)));
      }),
      { numRuns: 30 },
    );
  });
});
