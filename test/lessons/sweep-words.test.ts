import { describe, expect, it } from 'vitest';
import { loadLessons, LESSONS_DIR } from '../../sim/cli/lessons.js';
import { SweepAggregate } from '../../sim/odds/aggregate.js';
import { runBatch } from '../../sim/odds/batch.js';
import { planSweep } from '../../sim/odds/plan.js';
import { parseVary } from '../../sim/odds/range.js';
import { sweepReport, type ComboReport } from '../../sim/odds/report.js';
import { wilson } from '../../sim/odds/wilson.js';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides } from '../../sim/scenario/set.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';

/*
 * Lesson 4's "How often?" says in words what its sweep shows, without a
 * figure that could go stale: each phrase is held here to the sweep itself,
 * run as the Odds view runs it (the lesson's scenario, fields and runs), with
 * fencing as the second parameter the text tells the reader to add.
 */

const lesson = loadLessons(LESSONS_DIR, false).lessons.find((l) => l.id === 'pause-past-expiry')!;
const sweep = lesson.sweeps.find((s) => s.id === 'ttl-odds')!;
const text = lesson.body;
const base = normalizeScenario(BUILTIN_SCENARIOS[sweep.scenario], sweep.scenario);

function run(extra: readonly string[]): readonly ComboReport[] {
  const plan = planSweep({
    scenarioRef: sweep.scenario,
    base,
    sets: [],
    varies: [...sweep.vary, ...extra].map((v) => parseVary(v)),
    seeds: { from: 1, to: sweep.runs },
    codeVersion: 'lesson',
    batchSize: sweep.runs,
  });
  const agg = new SweepAggregate(plan);
  for (const b of plan.batches) agg.accept(b.key, runBatch(plan.combinations[b.combo]!.scenario, b.from, b.to));
  return sweepReport(agg, base.name).combinations;
}

/** The lesson's sweep with fencing off and on: for each lease, [off, on]. */
const points = run(['resource.fencing=false,true']);
const ttls = [...new Set(points.map((c) => c.params['clients[*].ttlMs'] as number))];
const at = (ttlMs: number, fencing: boolean): ComboReport =>
  points.find((c) => c.params['clients[*].ttlMs'] === ttlMs && c.params['resource.fencing'] === fencing)!;

describe('lesson 4, How often?', () => {
  it('sweeps random-gc-pauses over the 10 s, 30 s and 60 s leases the text names, 200 runs each', () => {
    expect(text).toContain('set to 10 s, 30 s and 60 s in turn, 200 runs each');
    expect(sweep).toMatchObject({ scenario: 'random-gc-pauses', vary: ['clients[*].ttlMs=10000,30000,60000'], runs: 200 });
  });

  it('describes random-gc-pauses as it is: three workers, 20 jobs each, a pause after 1 % of acquisitions of up to a minute', () => {
    expect(text).toContain('three\nworkers taking turns on one job lock, 20 jobs each, and after 1 % of acquisitions a pause of up to a\nminute');
    expect(base.clients.map((c) => [c.iterations, c.pauseAfterAcquire?.probability, c.pauseAfterAcquire?.duration])).toEqual(
      Array.from({ length: 3 }, () => [20, 0.01, { distribution: 'long-tail', minMs: 50, maxMs: 60_000 }]),
    );
  });

  it('at a 10 s lease: about half of the runs, but only a few jobs in a hundred', () => {
    expect(text).toContain('with a 10 s lease, about\n  half of the runs, but only a few jobs in a hundred');
    const ten = at(10_000, false);
    expect(ten.doubleOwnership.p).toBeGreaterThan(0.4);
    expect(ten.doubleOwnership.p).toBeLessThan(0.6);
    expect(ten.doubleOwnedCycles.p).toBeGreaterThan(0.02);
    expect(ten.doubleOwnedCycles.p).toBeLessThan(0.1);
  });

  it('the share of runs is far larger than the share of jobs wherever there is any', () => {
    for (const c of points) if (c.doubleOwnership.k > 0) expect(c.doubleOwnership.p).toBeGreaterThan(4 * c.doubleOwnedCycles.p);
  });

  it('the share falls fast as the lease grows; at 60 s there may be none in 200 runs, with an interval above zero, and yet a 60 s lease is double-owned at some seed', () => {
    expect(ttls).toEqual([10_000, 30_000, 60_000]);
    const shares = ttls.map((t) => at(t, false).doubleOwnership);
    expect(shares[1]!.p).toBeLessThan(shares[0]!.p / 3);
    expect(shares[2]!.p).toBeLessThan(shares[1]!.p / 3);
    expect(shares[2]!.k).toBeLessThanOrEqual(1);
    expect(shares[2]!.hi).toBeGreaterThan(0);
    expect(text).toContain('At 60 s you may find none in\n  200 runs; that is not zero');
    // Seed 246 of a longer sweep: a pause outlasts even the 60 s lease.
    const long = runScenario(applyOverrides(base, [{ path: 'clients[*].ttlMs', value: 60_000 }]), 246);
    expect(long.verdict.doubleOwnership.length).toBeGreaterThan(0);
  });

  it('asks what none in 200 runs at 60 s means, and its answer quotes the top of the interval that many runs give', () => {
    expect(text).toContain('::question{id=none-in-200}');
    const q = lesson.quiz.find((x) => x.id === 'none-in-200')!;
    expect(q.prompt).toContain(`${sweep.runs} times with a 60 s lease`);
    const right = q.options.filter((o) => o.correct);
    expect(right).toHaveLength(1);
    const top = (wilson(0, sweep.runs).hi * 100).toFixed(1);
    expect(top).toBe('1.9');
    expect(right[0]!.text).toContain(`up to about ${top} % of runs`);
    expect(right[0]!.why).toContain(`the top of the 95 % interval is about ${top} %`);
  });

  it('fencing leaves the shares of double ownership where they were and accepts fewer stale writes, yet not none', () => {
    for (const t of ttls) {
      expect(at(t, true).doubleOwnership).toEqual(at(t, false).doubleOwnership);
      expect(at(t, true).doubleOwnedCycles).toEqual(at(t, false).doubleOwnedCycles);
      if (at(t, false).unsafe.k > 0) expect(at(t, true).unsafe.k).toBeLessThan(at(t, false).unsafe.k);
    }
    expect(at(10_000, true).unsafe.k).toBeGreaterThan(0);
    expect(text).toContain('The shares of double ownership stay where they\n  were');
    expect(text).toContain('fewer runs have a stale write accepted');
    expect(text).toContain('Not all of them, though');
  });
});
