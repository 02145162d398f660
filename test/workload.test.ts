import { describe, expect, it } from 'vitest';
import { drawUs, lnUnit, meanMs, type Distribution } from '../sim/kernel/dist.js';
import { makeRng } from '../sim/kernel/rng.js';
import { runJob, runScenario } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { runHash } from '../sim/trace/hash.js';
import { bareHeapCycles } from '../bench/peers/bare-heap.js';
import { workloadScenario } from '../bench/workload.js';
import { scenarioIssues } from './support/refusal.js';

const base = {
  name: 'w',
  machines: [{ name: 'app' }, { name: 'db' }],
  store: { kind: 'redis', machine: 'db' },
  resource: { machine: 'db' },
};

describe('random work times and faults', () => {
  it('lnUnit is the natural logarithm, by arithmetic alone', () => {
    for (const x of [1, 0.75, 0.5, 0.1, 1e-3, 1e-9, 2 ** -40]) expect(lnUnit(x)).toBeCloseTo(Math.log(x), 12);
  });

  it('each distribution draws around its mean, the same numbers from the same seed', () => {
    const dists: Distribution[] = [
      { distribution: 'fixed', ms: 20 },
      { distribution: 'uniform', minMs: 0, maxMs: 2000 },
      { distribution: 'exponential', meanMs: 20 },
      { distribution: 'long-tail', minMs: 1, maxMs: 101 },
    ];
    for (const d of dists) {
      const rng = makeRng('t');
      const draws = Array.from({ length: 20_000 }, () => drawUs(rng, d));
      const mean = draws.reduce((a, b) => a + b, 0) / draws.length / 1000;
      expect(mean, d.distribution).toBeCloseTo(meanMs(d), d.distribution === 'uniform' ? -1.5 : 0);
      expect(draws.every((x) => Number.isInteger(x) && x >= 0)).toBe(true);
      const again = makeRng('t');
      expect(Array.from({ length: 100 }, () => drawUs(again, d))).toEqual(draws.slice(0, 100));
    }
  });

  it('workTime draws a fresh work time for every acquisition', () => {
    const s = normalizeScenario(
      { ...base, clients: [{ name: 'A', machine: 'app', iterations: 5, writes: 0, workTime: { distribution: 'uniform', minMs: 10, maxMs: 500 } }] },
      'w',
    );
    const works = runScenario(s)
      .events.filter((e) => e.kind === 'work.start')
      .map((e) => e.data?.workUs);
    expect(works).toHaveLength(5);
    expect(new Set(works).size).toBe(5);
  });

  it('pauseAfterAcquire pauses the process after an acquisition, before it works, with the given probability', () => {
    const always = normalizeScenario(
      {
        ...base,
        clients: [{ name: 'A', machine: 'app', ttlMs: 1000, workMs: 10, pauseAfterAcquire: { probability: 1, duration: { distribution: 'fixed', ms: 1500 } } }],
      },
      'w',
    );
    const kinds = runScenario(always)
      .events.filter((e) => e.actor === 'A')
      .map((e) => e.kind);
    expect(kinds.slice(kinds.indexOf('acquire.ok'), kinds.indexOf('acquire.ok') + 4)).toEqual(['acquire.ok', 'process.pause', 'process.resume', 'work.start']);
    const never = normalizeScenario(
      { ...base, clients: [{ name: 'A', machine: 'app', pauseAfterAcquire: { probability: 0, duration: { distribution: 'fixed', ms: 1500 } } }] },
      'w',
    );
    expect(runScenario(never).events.some((e) => e.kind === 'process.pause')).toBe(false);
  });

  it('crashRatePerS kills the process at a random time, the same one for the same seed', () => {
    const s = normalizeScenario({ ...base, clients: [{ name: 'A', machine: 'app', iterations: 1000, workMs: 10, writes: 0, crashRatePerS: 1 }] }, 'w');
    const crash = (seed: number) => runScenario(s, seed).events.find((e) => e.kind === 'process.crash')?.timeUs;
    expect(crash(1)).toBeDefined();
    expect(crash(1)).toBe(crash(1));
    expect(crash(2)).not.toBe(crash(1));
  });

  it('scenarios that use none of them keep their traces: the new fields are left out of the normalized scenario', () => {
    const s = normalizeScenario({ ...base, clients: [{ name: 'A', machine: 'app' }] }, 'w');
    expect(Object.keys(s.clients[0]!)).not.toContain('workTime');
    expect(Object.keys(s.clients[0]!)).not.toContain('crashRatePerS');
  });

  it('a distribution without its fields is refused with its path', () => {
    expect(scenarioIssues({ ...base, clients: [{ name: 'A', machine: 'app', workTime: { distribution: 'exponential' } }] })).toContainEqual({
      path: 'clients[0].workTime.meanMs',
      message: 'is required but missing',
    });
  });
});

describe('the bench workload', () => {
  it('Locklab runs it to completion, and the streaming run job agrees with the kept trace', () => {
    const s = normalizeScenario(workloadScenario(500), 'bench-workload');
    const doc = runScenario(s);
    expect(doc.stop.reason).toBe('completed');
    expect(doc.events.filter((e) => e.kind === 'acquire.ok')).toHaveLength(500);
    const job = runJob(s, s.seed);
    expect(job.runHash).toBe(runHash(doc));
    expect(job.verdict).toEqual(doc.verdict);
  });

  it("a waiter's polls share their events' data, which is frozen: one event's data cannot be changed under another", () => {
    const doc = runScenario(normalizeScenario(workloadScenario(200), 'bench-workload'));
    const uses = new Map<object, number>();
    for (const e of doc.events) if (e.data !== undefined) uses.set(e.data, (uses.get(e.data) ?? 0) + 1);
    const shared = [...uses].filter(([, n]) => n > 1).map(([d]) => d);
    // Each attempt number's request data, and the refusals naming one holder.
    expect(shared.length).toBeGreaterThan(10);
    for (const d of shared) expect(Object.isFrozen(d), JSON.stringify(d)).toBe(true);
  });

  it('the bare heap completes every cycle', () => {
    expect(bareHeapCycles(1000)).toBe(1000);
  });
});
