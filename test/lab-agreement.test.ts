import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveIntervals } from '../sim/check/intervals.js';
import { runScenario } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import type { TraceDocument } from '../sim/trace/types.js';
import { buildModel } from '../web/model/build.js';
import { builtinRuns, builtinVariant } from './support/builtin-variants.js';
import { randomScenario } from './support/random-scenario.js';

/** Every interval as the lab draws it and as the checker derives it, in comparable words. */
function bothSides(doc: TraceDocument) {
  const model = buildModel(doc);
  const iv = deriveIntervals(doc.events);
  const end = (u: number | undefined) => u ?? model.endUs;
  const sortKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    lab: {
      beliefs: model.clients.flatMap((c) => c.belief.map((s) => `${c.name} ${s.fromUs}-${s.toUs} @${s.seq}`)).sort(sortKey),
      holdings: model.clients.flatMap((c) => c.truth.map((s) => `${c.name} ${s.fromUs}-${s.toUs} @${s.seq}`)).sort(sortKey),
      nodes: model.stores.flatMap((st) => st.holds.map((s) => `${st.name} ${s.fromUs}-${s.toUs} @${s.seq}`)).sort(sortKey),
      doubles: model.doubleOwnership.map((d) => `${d.clients.join('+')} ${d.fromUs}-${d.toUs}`),
    },
    checker: {
      beliefs: iv.beliefs.map((b) => `${b.client} ${b.startUs}-${end(b.endUs)} @${b.startSeq}`).sort(sortKey),
      holdings: iv.holdings.map((h) => `${h.client} ${h.startUs}-${end(h.endUs)} @${h.startSeq}`).sort(sortKey),
      nodes: iv.nodeHoldings.map((n) => `${n.node} ${n.startUs}-${end(n.endUs)} @${n.startSeq}`).sort(sortKey),
      doubles: doc.verdict.doubleOwnership.map((d) => `${d.clients.join('+')} ${d.fromUs}-${d.toUs}`),
    },
  };
}

describe("the lab's timeline and the checker", () => {
  it('agree on every belief, holding, node holding and double-ownership window of every built-in run', () => {
    for (const { label, scenario } of builtinRuns()) {
      const { lab, checker } = bothSides(runScenario(scenario));
      expect(lab, label).toEqual(checker);
    }
  });

  it('agree on hundreds of random runs across every store kind', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          builtinVariant,
          randomScenario.map((raw) => ({ label: JSON.stringify(raw), scenario: normalizeScenario(raw, 'random') })),
        ),
        ({ label, scenario }) => {
          const { lab, checker } = bothSides(runScenario(scenario));
          expect(lab, label).toEqual(checker);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('redlock-clock-jump: client1 is drawn holding the lock only until its majority is lost, as the checker says', () => {
    const run = builtinRuns().find((r) => r.label === 'redlock-clock-jump')!;
    const doc = runScenario(run.scenario);
    const lost = doc.verdict.lostLocks[0]!;
    const lane = buildModel(doc).clients.find((c) => c.name === lost.client)!;
    const truth = lane.truth.find((s) => s.fromUs <= lost.atUs && s.toUs >= lost.atUs)!;
    expect(truth.toUs).toBe(lost.atUs);
  });
});
