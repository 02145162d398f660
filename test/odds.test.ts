import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../sim/errors.js';
import { SweepAggregate } from '../sim/odds/aggregate.js';
import { runBatch } from '../sim/odds/batch.js';
import { planSweep, type SweepPlan } from '../sim/odds/plan.js';
import { parseSeedRange, parseVary } from '../sim/odds/range.js';
import { formatCycles, reportCsv, reportJson, reportText, runs, sweepReport } from '../sim/odds/report.js';
import { emptyTally, FAILING_SEEDS_KEPT, isTally, mergeTally, type Tally } from '../sim/odds/tally.js';
import { clusteredWilson, wilson, type ClusterCounts } from '../sim/odds/wilson.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { applyOverrides, parseOverride } from '../sim/scenario/set.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { runJob, runScenario } from '../sim/run.js';

const pause = normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry');

function plan(varies: string[], seeds: string, batchSize: number, base = pause): SweepPlan {
  return planSweep({
    scenarioRef: 'pause-past-expiry',
    base,
    sets: [],
    varies: varies.map((v) => parseVary(v)),
    seeds: parseSeedRange(seeds),
    codeVersion: 'test',
    batchSize,
  });
}

function inputMessage(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as InputError).message;
  }
  throw new Error('expected an InputError');
}

describe('Wilson intervals', () => {
  it('match the textbook values for 5 of 10 and 0 of 10', () => {
    const half = wilson(5, 10);
    expect(half.p).toBe(0.5);
    expect(half.lo).toBeCloseTo(0.2366, 4);
    expect(half.hi).toBeCloseTo(0.7634, 4);
    const none = wilson(0, 10);
    expect(none.lo).toBe(0);
    expect(none.hi).toBeCloseTo(0.2775, 4);
    expect(wilson(10, 10).hi).toBe(1);
  });

  it('always contain the observed share and narrow as runs grow', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
        const k = Math.floor(f * n);
        const s = wilson(k, n);
        expect(s.lo).toBeLessThanOrEqual(s.p);
        expect(s.hi).toBeGreaterThanOrEqual(s.p);
        const wider = wilson(Math.floor(k / 10), Math.max(1, Math.floor(n / 10)));
        if (n >= 100) expect(s.hi - s.lo).toBeLessThanOrEqual(wider.hi - wider.lo + 1e-12);
      }),
    );
  });

  it('refuse counts that are not whole numbers with k <= n', () => {
    expect(() => wilson(3, 2)).toThrow(RangeError);
    expect(() => wilson(0.5, 2)).toThrow(RangeError);
  });
});

/** The counts of clusters given as [items, events] each. */
function clusterCounts(list: ReadonlyArray<readonly [number, number]>): ClusterCounts {
  let [k, n, nSq, kSq, nk] = [0, 0, 0, 0, 0];
  for (const [ni, ki] of list) {
    n += ni;
    k += ki;
    nSq += ni * ni;
    kSq += ki * ki;
    nk += ni * ki;
  }
  return { k, n, clusters: list.length, nSq, kSq, nk };
}

/** A seeded stream of numbers in [0, 1) (mulberry32), for clusters drawn at random the same way every time. */
function stream(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('intervals on a share of lock cycles, clustered in runs', () => {
  it('give independent cycles about the plain Wilson interval over the cycles', () => {
    // 2,000 runs of 60 cycles, each cycle double-owned with probability 0.003 on its own.
    const next = stream(7);
    const runs = Array.from({ length: 2_000 }, () => {
      let d = 0;
      for (let i = 0; i < 60; i++) if (next() < 0.003) d++;
      return [60, d] as const;
    });
    const c = clusterCounts(runs);
    const s = clusteredWilson(c);
    const plain = wilson(c.k, c.n);
    expect(s.p).toBe(plain.p);
    expect(s.deff).toBeLessThan(1.15);
    expect(s.hi - s.lo).toBeGreaterThanOrEqual(plain.hi - plain.lo);
    expect(s.hi - s.lo).toBeLessThan((plain.hi - plain.lo) * 1.08);
    // Runs of one cycle each are independent by construction: deff is m/(m−1) at most.
    const single = clusteredWilson(clusterCounts(Array.from({ length: 1_000 }, (_, i) => [1, i % 10 === 0 ? 1 : 0] as const)));
    expect(single.deff).toBeCloseTo(1000 / 999, 9);
  });

  it('give cycles that fail a whole run at a time about the interval of the runs themselves', () => {
    // 2,000 runs of 60 cycles: in 100 of them every cycle was double-owned, in the rest none.
    const runs = Array.from({ length: 2_000 }, (_, i) => [60, i % 20 === 0 ? 60 : 0] as const);
    const s = clusteredWilson(clusterCounts(runs));
    const ofRuns = wilson(100, 2_000);
    expect(s.p).toBeCloseTo(ofRuns.p, 12);
    expect(s.deff).toBeGreaterThan(59);
    expect(s.lo).toBeCloseTo(ofRuns.lo, 3);
    expect(s.hi).toBeCloseTo(ofRuns.hi, 3);
    expect(s.hi - s.lo).toBeGreaterThan((wilson(6_000, 120_000).hi - wilson(6_000, 120_000).lo) * 7);
  });

  it('give no double-owned cycle the upper bound of the runs, as if each run would fail whole, not the far smaller one over every cycle', () => {
    const s = clusteredWilson(clusterCounts(Array.from({ length: 2_000 }, () => [60, 0] as const)));
    expect(s.deff).toBe(60);
    expect(s.lo).toBe(0);
    expect(s.hi).toBeCloseTo(wilson(0, 2_000).hi, 12);
    expect(s.hi).toBeGreaterThan(wilson(0, 120_000).hi * 50);
  });

  it('read as a percentage to two significant digits with "about 1 in N", or as an upper bound when no cycle was double-owned', () => {
    expect(formatCycles({ k: 216, n: 120_000, p: 0.0018, lo: 0.0012, hi: 0.0026, deff: 3 })).toBe('0.18 % of 120,000 lock cycles (0.12–0.26), about 1 in 560');
    expect(formatCycles({ ...wilson(0, 120_000), deff: 1 })).toBe('none of 120,000 lock cycles (at most 0.0032 %)');
    expect(formatCycles({ k: 30, n: 100, p: 0.3, lo: 0.2, hi: 0.4, deff: 1 })).toBe('30.0 % of 100 lock cycles (20.0–40.0)');
    expect(formatCycles({ k: 0, n: 0, p: 0, lo: 0, hi: 1, deff: 1 })).toBe('no lock cycle');
  });

  it('are the same whichever order the runs were summed in, and refuse counts that cannot be', () => {
    const next = stream(3);
    const runs = Array.from({ length: 300 }, () => [40 + Math.floor(next() * 40), 0] as [number, number]).map(
      ([n]) => [n, Math.floor(next() ** 8 * n)] as const,
    );
    expect(clusteredWilson(clusterCounts([...runs].reverse()))).toEqual(clusteredWilson(clusterCounts(runs)));
    expect(() => clusteredWilson({ k: 5, n: 4, clusters: 1, nSq: 16, kSq: 25, nk: 20 })).toThrow(RangeError);
    expect(clusteredWilson({ k: 0, n: 0, clusters: 0, nSq: 0, kSq: 0, nk: 0 })).toMatchObject({ lo: 0, hi: 1 });
  });
});

describe('tallies', () => {
  const tally = fc.record({
    runs: fc.nat(1000),
    unsafe: fc.nat(1000),
    fenced: fc.nat(1000),
    doubleOwnership: fc.nat(1000),
    lostLock: fc.nat(1000),
    lockout: fc.nat(1000),
    lockoutUs: fc.nat(1e9),
    lockoutMaxUs: fc.nat(1e7),
    budgetStops: fc.nat(10),
    cycles: fc.nat(60_000),
    doubleOwnedCycles: fc.nat(60_000),
    cyclesSq: fc.nat(1e9),
    doubleOwnedSq: fc.nat(1e9),
    cyclesByDoubleOwned: fc.nat(1e9),
    unsafeSeeds: fc.uniqueArray(fc.nat(1e6), { maxLength: FAILING_SEEDS_KEPT }).map((a) => a.sort((x, y) => x - y)),
    doubleSeeds: fc.uniqueArray(fc.nat(1e6), { maxLength: FAILING_SEEDS_KEPT }).map((a) => a.sort((x, y) => x - y)),
  }) as fc.Arbitrary<Tally>;

  it('merge in any order and grouping to the same counts', () => {
    fc.assert(
      fc.property(tally, tally, tally, (a, b, c) => {
        expect(mergeTally(a, b)).toEqual(mergeTally(b, a));
        expect(mergeTally(mergeTally(a, b), c)).toEqual(mergeTally(a, mergeTally(b, c)));
        expect(mergeTally(a, emptyTally())).toEqual({ ...a, unsafeSeeds: [...a.unsafeSeeds], doubleSeeds: [...a.doubleSeeds] });
      }),
    );
  });

  it('sum the lock cycles and the per-run sums the per-cycle interval needs, in any batches', () => {
    const gc = normalizeScenario(BUILTIN_SCENARIOS['random-gc-pauses'], 'random-gc-pauses');
    const direct = { cycles: 0, doubleOwnedCycles: 0, cyclesSq: 0, doubleOwnedSq: 0, cyclesByDoubleOwned: 0 };
    for (let seed = 1; seed <= 40; seed++) {
      const { intervals } = runJob(gc, seed, { hash: false });
      const n = intervals.beliefsBegun;
      const d = intervals.beliefsDoubleOwned;
      direct.cycles += n;
      direct.doubleOwnedCycles += d;
      direct.cyclesSq += n * n;
      direct.doubleOwnedSq += d * d;
      direct.cyclesByDoubleOwned += n * d;
    }
    expect(direct.doubleOwnedCycles).toBeGreaterThan(0);
    expect(direct.cycles).toBe(40 * 60);
    const whole = runBatch(gc, 1, 40);
    expect(whole).toMatchObject(direct);
    expect(mergeTally(runBatch(gc, 21, 40), runBatch(gc, 1, 20))).toEqual(whole);
    expect(isTally(whole)).toBe(true);
  });

  it('refuse a tally without the lock cycles (a worker of an older version) or with more double-owned cycles than cycles', () => {
    const t = runBatch(pause, 1, 3);
    const { cycles: _, ...old } = t;
    expect(isTally(old)).toBe(false);
    expect(isTally({ ...t, doubleOwnedCycles: t.cycles + 1 })).toBe(false);
    expect(isTally({ ...t, cyclesSq: -1 })).toBe(false);
  });

  it('keep the smallest failing seeds, whichever batch found them', () => {
    const late = { ...emptyTally(), runs: 3, unsafe: 3, unsafeSeeds: [900, 901, 902] };
    const early = { ...emptyTally(), runs: 3, unsafe: 3, unsafeSeeds: [3, 950, 960] };
    expect(mergeTally(late, early).unsafeSeeds).toEqual([3, 900, 901, 902, 950]);
  });

  it('a batch of pause-past-expiry runs counts every run unsafe with double ownership and a lost lock', () => {
    const t = runBatch(pause, 1, 20);
    expect(t).toMatchObject({ runs: 20, unsafe: 20, doubleOwnership: 20, lostLock: 20, lockout: 0, budgetStops: 0, unsafeSeeds: [1, 2, 3, 4, 5] });
  });
});

describe('lock-out time', () => {
  it('counts the time a crashed holder keeps the lock until its lease expires', () => {
    const crash = normalizeScenario(BUILTIN_SCENARIOS['crash-without-release'], 'crash-without-release');
    const doc = runScenario(crash, 3);
    const crashedUs = doc.events.find((e) => e.kind === 'process.crash')!.timeUs;
    const expiredUs = doc.events.find((e) => e.kind === 'lock.expired')!.timeUs;
    const t = runBatch(crash, 3, 3);
    expect(t.lockout).toBe(1);
    expect(t.lockoutMaxUs).toBe(expiredUs - crashedUs);
    expect(t.lockoutUs).toBe(expiredUs - crashedUs);
  });

  it('is zero when the holder is only paused: it still believes it holds the lock', () => {
    expect(runBatch(pause, 7, 7).lockoutUs).toBe(0);
  });

  it('grows with the TTL a crashed holder leaves behind', () => {
    const crash = normalizeScenario(BUILTIN_SCENARIOS['crash-without-release'], 'crash-without-release');
    const short = runBatch(crash, 1, 5);
    const long = runBatch(applyOverrides(crash, [parseOverride('clients.A.ttlMs=8000')]), 1, 5);
    expect(long.lockoutUs - short.lockoutUs).toBe(5 * 3_000_000);
  });
});

describe('--seeds and --vary', () => {
  it('read ranges, steps and lists', () => {
    expect(parseSeedRange('1..100000')).toEqual({ from: 1, to: 100000 });
    expect(parseSeedRange('42')).toEqual({ from: 42, to: 42 });
    expect(parseVary('clients.A.ttlMs=5000..30000:5000')).toEqual({ path: 'clients.A.ttlMs', values: [5000, 10000, 15000, 20000, 25000, 30000] });
    expect(parseVary('network.loss=0..0.3:0.1').values).toEqual([0, 0.1, 0.2, 0.3]);
    expect(parseVary('machines.app1.clockOffsetMs=-200..200:200').values).toEqual([-200, 0, 200]);
    expect(parseVary('resource.fencing=false,true').values).toEqual([false, true]);
    expect(parseVary('store.persistence=none,aof-always').values).toEqual(['none', 'aof-always']);
  });

  it('refuse a seed range in the wrong order, an empty range and a step of zero, each in one line', () => {
    expect(inputMessage(() => parseSeedRange('100..1'))).toBe('--seeds: the seed range 100..1 is in the wrong order: write the smaller seed first (1..100)');
    expect(inputMessage(() => parseVary('clients.A.ttlMs=30000..5000:5000'))).toMatch(/^--vary: clients\.A\.ttlMs: the range 30000\.\.5000:5000 is empty/);
    expect(inputMessage(() => parseVary('clients.A.ttlMs=1..10:0'))).toMatch(/^--vary: clients\.A\.ttlMs: the step of 1\.\.10:0 is zero/);
    expect(inputMessage(() => parseVary('clients.A.ttlMs'))).toMatch(/^--vary: expected path=from\.\.to:step/);
    // A range with a step that is no number is a mistyped range, not a list of one string for the scenario to refuse later.
    expect(inputMessage(() => parseVary('faults[0].durationMs=17000..7000:abc'))).toBe(
      '--vary: faults[0].durationMs: expected a range from..to:step of numbers (e.g. 7000..17000:1000), or a list v1,v2, got "17000..7000:abc"',
    );
  });

  it('refuse a sweep of more batches than a plan holds, before any is made, and take the largest that fits', () => {
    expect(inputMessage(() => plan(['resource.fencing=false,true'], '1..1000001', 2))).toBe(
      '--seeds: 1,000,001 seeds × 2 combinations in batches of 2 seeds make 1,000,002 batches, more than the 1,000,000 a sweep takes: give fewer seeds or values, or a larger --batch',
    );
    expect(inputMessage(() => plan([], '1..2000000', 1))).toMatch(/^--seeds: 2,000,000 seeds × 1 combination in batches of 1 seed make 2,000,000 batches/);
    expect(plan([], '1..1000000', 1).batches).toHaveLength(1_000_000);
  });

  it('refuse a path that does not exist the way --set does, naming the fields that do', () => {
    const m = inputMessage(() => plan(['clients.A.ttlMx=1..2'], '1..2', 10));
    expect(m).toMatch(/^--vary: clients\.A\.ttlMx: unknown path: clients\[0\] has no field "ttlMx" \(fields: .*ttlMs/);
    expect(inputMessage(() => plan(['clients.Z.ttlMs=1..2'], '1..2', 10))).toMatch(/^--vary: clients\.Z\.ttlMs: .*no item "Z"/);
  });

  it('vary a field of every client at once with clients[*], and name it so in the report and in each reproducing command', () => {
    const p = plan(['clients[*].ttlMs=12000..16000:4000'], '1..3', 10);
    expect(p.combinations.map((c) => c.scenario.clients.map((k) => k.ttlMs))).toEqual([
      [12000, 12000],
      [16000, 16000],
    ]);
    expect(p.combinations[1]!.sets).toEqual(['clients[*].ttlMs=16000']);
    expect(inputMessage(() => plan(['clients[*].ttlMx=1..2'], '1..2', 10))).toMatch(
      /^--vary: clients\[\*\]\.ttlMx: unknown path: clients\[0\] has no field "ttlMx"/,
    );
  });

  it('refuse a value the scenario rules refuse, as the --vary that gave it', () => {
    expect(inputMessage(() => plan(['clients.A.ttlMs=-5..0:5'], '1..2', 10))).toMatch(/^--vary/);
  });
});

describe('the sweep plan and its aggregate', () => {
  it('makes one combination per grid point, the first --vary outermost, batches covering every seed', () => {
    const p = plan(['faults[0].durationMs=8000..9000:1000', 'resource.fencing=false,true'], '1..25', 10);
    expect(p.combinations.map((c) => c.params.map((x) => x.value))).toEqual([
      [8000, false],
      [8000, true],
      [9000, false],
      [9000, true],
    ]);
    expect(p.combinations[3]!.scenario.resource.fencing).toBe(true);
    expect(p.combinations[3]!.sets).toEqual(['faults[0].durationMs=9000', 'resource.fencing=true']);
    expect(p.batches.filter((b) => b.combo === 0).map((b) => [b.from, b.to])).toEqual([
      [1, 10],
      [11, 20],
      [21, 25],
    ]);
    expect(new Set(p.combinations.map((c) => c.scenarioHash)).size).toBe(4);
  });

  it('gives the same report bytes whatever the batch size and the order results arrive in', () => {
    const reports = [1, 7, 40].map((size) => {
      const p = plan(['faults[0].durationMs=8500..9500:500'], '1..40', size);
      const agg = new SweepAggregate(p);
      const results = p.batches.map((b) => [b.key, runBatch(p.combinations[b.combo]!.scenario, b.from, b.to)] as const);
      for (const [key, t] of size === 7 ? [...results].reverse() : results) agg.accept(key, t);
      expect(agg.complete).toBe(true);
      return reportJson(sweepReport(agg, 'pause-past-expiry'));
    });
    expect(reports[1]).toBe(reports[0]);
    expect(reports[2]).toBe(reports[0]);
  });

  it('counts a batch that comes back twice once, and refuses one that disagrees', () => {
    const p = plan([], '1..4', 2);
    const agg = new SweepAggregate(p);
    const b = p.batches[0]!;
    const t = runBatch(pause, b.from, b.to);
    expect(agg.accept(b.key, t)).toBe('counted');
    expect(agg.accept(b.key, structuredClone(t))).toBe('duplicate');
    expect(agg.tally(0).runs).toBe(2);
    expect(() => agg.accept(b.key, { ...t, unsafe: 1, unsafeSeeds: [1] })).toThrow(/twice with different counts/);
    expect(() => agg.accept(p.batches[1]!.key, { ...t, runs: 3 })).toThrow(/not a tally of 2 runs/);
    expect(agg.complete).toBe(false);
    expect(sweepReport(agg, 'x').partial).toBe(true);
  });

  it('reports shares with intervals and the commands that reproduce the first failing seeds', () => {
    const p = plan(['faults[0].durationMs=10008'], '1..30', 30);
    const agg = new SweepAggregate(p);
    agg.accept(p.batches[0]!.key, runBatch(p.combinations[0]!.scenario, 1, 30));
    const r = sweepReport(agg, 'pause-past-expiry');
    const c = r.combinations[0]!;
    expect(c.unsafe.k).toBeGreaterThan(0);
    expect(c.unsafe.k).toBeLessThan(30);
    expect(c.unsafe).toEqual(wilson(c.unsafe.k, 30));
    expect(c.failing[0]!.command).toBe(`locklab run pause-past-expiry --seed ${c.failing[0]!.seed} --set 'faults[0].durationMs=10008'`);
    const csv = reportCsv(r).split('\n');
    expect(csv[0]).toMatch(/^faults\[0\]\.durationMs,runs,unsafe_runs,unsafe_rate,unsafe_lo95,unsafe_hi95,/);
    expect(csv[1]).toMatch(new RegExp(`^10008,30,${c.unsafe.k},`));
    expect(csv[1]!.endsWith(`,${c.failing[0]!.seed},locklab run pause-past-expiry --seed ${c.failing[0]!.seed} --set 'faults[0].durationMs=10008'`)).toBe(true);
    expect(csv).toHaveLength(3);
  });
});

describe('the text report', () => {
  it('says, before its figures, that a share is of whole runs and what each measure counts', () => {
    const p = plan(['resource.fencing=false,true'], '1..3', 3);
    const agg = new SweepAggregate(p);
    for (const b of p.batches) agg.accept(b.key, runBatch(p.combinations[b.combo]!.scenario, b.from, b.to));
    const text = reportText(sweepReport(agg, 'pause-past-expiry'));
    const [head] = text.split('\n\n');
    const lines = head!.split('\n');
    expect(lines[1]).toMatch(/^Shares of runs, with Wilson 95 % intervals\. A run is the whole scenario, every lock cycle of every client, and counts once/);
    // Each measure a block prints is explained once, by the words the block uses for it.
    for (const measure of ['unsafe', 'fenced', 'double ownership', 'lost lock', 'locked out for nothing']) {
      expect(lines.filter((l) => l.startsWith(`  ${measure}  `))).toHaveLength(1);
      expect(text).toMatch(new RegExp(`\n  ${measure} [^\n]*\\d+(\\.\\d)? % \\(`));
    }
    expect(head).toContain('two clients believed they held the same lock at the same true time, whether or not both wrote');
    expect(head).toContain('fencing refused every one');
  });
});

describe('counts of runs', () => {
  it('are singular for one run and group their digits, as every count the CLI and the lab print', () => {
    expect(runs(1)).toBe('1 run');
    expect(runs(0)).toBe('0 runs');
    expect(runs(2500)).toBe('2,500 runs');
    expect(runs(1_000_000)).toBe('1,000,000 runs');
  });
});
