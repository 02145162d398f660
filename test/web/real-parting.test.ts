import { describe, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS, normalizeScenario, runScenario } from '../../sim/index.js';
import type { TraceDocument, TraceEvent } from '../../sim/trace/types.js';
import { realParting } from '../../web/model/real-parting.js';

const sim = runScenario(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry'), 1);

/** The simulated run as a real one would record it: every event a little later, by a different amount each. */
function asReal(doc: TraceDocument, change: (e: TraceEvent, i: number) => TraceEvent = (e) => e): TraceDocument {
  return { ...doc, source: 'real', events: doc.events.map((e, i) => change({ ...e, timeUs: e.timeUs + 13 + (i % 7) * 1000 }, i)) };
}

describe('where a real run parts from the simulated one', () => {
  it('is nowhere when every client got the same answers, however the times differ, and the sentence says how far apart they lie', () => {
    const p = realParting(sim, asReal(sim));
    expect(p.divergeUs).toBeNull();
    expect(p.sentence).toMatch(
      /^The runs do not part: every client got the same \d+ answers, in the same order, in both\. The same answers lie at most 6 ms apart/,
    );
    expect(p.sentence).not.toContain('0.000 s');
  });

  it("is the first answer that differs, with each run's answer and time, whichever of the two traces is the real one", () => {
    const b = sim.events.findIndex((e) => e.actor === 'B' && e.kind === 'acquire.ok');
    const real = asReal(sim, (e, i) => (i === b ? { ...e, kind: 'acquire.giveup' } : e));
    const at = real.events[b]!.timeUs;
    for (const p of [realParting(sim, real), realParting(real, sim)]) {
      expect(p.divergeUs).toBe(Math.min(at, sim.events[b]!.timeUs));
      expect(p.sentence).toContain('in what B was answered: the simulation has acquire.ok at');
      expect(p.sentence).toContain('the real run has acquire.giveup at');
    }
  });

  it('names the runs Run 1 and Run 2 when both were recorded on real servers', () => {
    const a = asReal(sim);
    const b = asReal(sim, (e) => (e.actor === 'A' && e.kind === 'write.done' ? { ...e, kind: 'write.timeout' } : e));
    expect(realParting(a, b).sentence).toMatch(/in what A was answered: Run 1 has write\.done at .* Run 2 has write\.timeout at/);
  });
});
