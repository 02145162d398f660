import { describe, expect, it } from 'vitest';
import { Checker } from '../sim/check/checker.js';
import { deriveIntervals } from '../sim/check/intervals.js';
import { runJob } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import type { TraceEvent } from '../sim/trace/types.js';
import { pairwiseDoubleOwned } from './support/double-owned.js';
import { TraceBuilder } from './support/trace-builder.js';

/** Lock cycles as [client, owner, fromUs, toUs] (toUs null: still believed when the trace ends), written as belief events in time order. */
function cycles(list: ReadonlyArray<[string, string, number, number | null]>, endUs?: number): TraceEvent[] {
  const marks: Array<{ t: number; client: string; owner: string | null; order: number }> = [];
  for (const [client, owner, from, to] of list) {
    marks.push({ t: from, client, owner, order: 1 });
    if (to !== null) marks.push({ t: to, client, owner: null, order: 0 });
  }
  // At one instant, beliefs end before others begin: a hand-over, not an overlap.
  marks.sort((a, b) => a.t - b.t || a.order - b.order);
  const t = new TraceBuilder();
  for (const m of marks) t.believes(m.t, m.client, m.owner);
  if (endUs !== undefined) t.client(endUs, 'think', 'Z');
  return t.events;
}

/** The counts of a trace judged whole, and judged in bounded memory with a memory shorter than any cycle. */
function counts(events: readonly TraceEvent[]): { kept: [number, number]; bounded: [number, number] } {
  const judge = (c: Checker): [number, number] => {
    for (const e of events) c.push(e);
    c.finish();
    return [c.intervals.beliefsDoubleOwned, c.intervals.beliefsBegun];
  };
  return { kept: judge(new Checker()), bounded: judge(new Checker({ forgetAfterUs: 1, findingsListed: 0 })) };
}

describe('counting double-owned lock cycles', () => {
  it('counts no cycle when beliefs follow one another, even handed over at one instant', () => {
    const events = cycles([
      ['A', 'A:1', 0, 10],
      ['B', 'B:1', 10, 20],
      ['C', 'C:1', 25, 30],
    ]);
    expect(counts(events)).toEqual({ kept: [0, 3], bounded: [0, 3] });
  });

  it('counts both cycles of one overlapping pair, and no other', () => {
    const events = cycles([
      ['A', 'A:1', 0, 10],
      ['B', 'B:1', 5, 15],
      ['C', 'C:1', 20, 30],
      ['A', 'A:2', 40, 50],
    ]);
    expect(counts(events)).toEqual({ kept: [2, 4], bounded: [2, 4] });
  });

  it('counts a cycle that overlaps two others once: three cycles in all', () => {
    const events = cycles([
      ['A', 'A:1', 0, 30],
      ['B', 'B:1', 5, 10],
      ['C', 'C:1', 15, 20],
      ['B', 'B:2', 40, 50],
    ]);
    expect(counts(events)).toEqual({ kept: [3, 4], bounded: [3, 4] });
  });

  it('counts every cycle of a chain in which each overlaps the next', () => {
    const events = cycles([
      ['A', 'A:1', 0, 10],
      ['B', 'B:1', 5, 20],
      ['C', 'C:1', 15, 30],
      ['A', 'A:2', 25, 40],
      ['B', 'B:2', 50, 60],
    ]);
    expect(counts(events)).toEqual({ kept: [4, 5], bounded: [4, 5] });
  });

  it('counts an overlap still open when the trace ends, but not one that opened at its last instant', () => {
    expect(
      counts(
        cycles(
          [
            ['A', 'A:1', 0, null],
            ['B', 'B:1', 5, null],
          ],
          8,
        ),
      ),
    ).toEqual({ kept: [2, 2], bounded: [2, 2] });
    expect(
      counts(
        cycles([
          ['A', 'A:1', 0, null],
          ['B', 'B:1', 8, null],
        ]),
      ),
    ).toEqual({ kept: [0, 2], bounded: [0, 2] });
  });

  it('counts the cycles of windows it does not list: a bounded judgement listing none counts them all', () => {
    const events = cycles([
      ['A', 'A:1', 0, 100],
      ['B', 'B:1', 10, 20],
      ['C', 'C:1', 30, 40],
      ['B', 'B:2', 50, 60],
    ]);
    const c = new Checker({ forgetAfterUs: 1, findingsListed: 1 });
    for (const e of events) c.push(e);
    const v = c.finish();
    expect(v.doubleOwnership).toHaveLength(1);
    expect(v.omitted?.doubleOwnership).toBe(2);
    expect([c.intervals.beliefsDoubleOwned, c.intervals.beliefsBegun]).toEqual([4, 4]);
  });

  it('gives random-gc-pauses and pause-past-expiry the same counts judged whole and in bounded memory, and the counts of every pair compared', () => {
    let doubleOwned = 0;
    for (const name of ['random-gc-pauses', 'pause-past-expiry'] as const) {
      const scenario = normalizeScenario(BUILTIN_SCENARIOS[name], name);
      const seeds = name === 'random-gc-pauses' ? 150 : 60;
      for (let seed = 1; seed <= seeds; seed++) {
        const kept = runJob(scenario, seed, { hash: false, trace: true });
        const bounded = runJob(scenario, seed, { hash: false, bounded: true });
        const label = `${name} --seed ${seed}`;
        const found = [kept.intervals.beliefsDoubleOwned, kept.intervals.beliefsBegun];
        expect([bounded.intervals.beliefsDoubleOwned, bounded.intervals.beliefsBegun], label).toEqual(found);
        const whole = deriveIntervals(kept.events!);
        expect(pairwiseDoubleOwned(whole.beliefs, whole.lastUs), label).toEqual(found);
        doubleOwned += found[0]!;
      }
    }
    // The seeds must have something to count, or agreement would prove nothing.
    expect(doubleOwned).toBeGreaterThan(10);
  });
});
