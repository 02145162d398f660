import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { runJob } from '../sim/run.js';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { KeptTrace } from '../sim/trace/kept.js';
import type { TraceEvent } from '../sim/trace/types.js';
import { randomScenario } from './support/random-scenario.js';
import { workloadScenario } from '../bench/workload.js';

/** Every event of a run as it was recorded, and the run's kept trace. */
function recorded(raw: unknown, name: string): { seen: TraceEvent[]; trace: KeptTrace } {
  const scenario = normalizeScenario(raw, name);
  const seen: TraceEvent[] = [];
  const r = runJob(scenario, scenario.seed, { trace: true, hash: false, observe: (e) => seen.push(e) });
  return { seen, trace: r.trace! };
}

describe('a kept trace (columns)', () => {
  it('gives back every event of every built-in scenario as recorded: the same fields, in the same order, the same bytes', () => {
    for (const name of BUILTIN_NAMES) {
      const { seen, trace } = recorded(BUILTIN_SCENARIOS[name], name);
      expect(trace.length, name).toBe(seen.length);
      seen.forEach((e, i) => {
        const back = trace.at(i);
        expect(back, `${name} event ${i}`).toStrictEqual(e);
        expect(Object.keys(back)).toEqual(Object.keys(e));
        expect(JSON.stringify(back)).toBe(JSON.stringify(e));
        expect(trace.kindAt(i)).toBe(e.kind);
        expect(trace.timeAt(i)).toBe(e.timeUs);
      });
    }
  });

  it('does so for random scenarios too', () => {
    fc.assert(
      fc.property(randomScenario, (raw) => {
        const { seen, trace } = recorded(raw, 'random');
        expect(trace.toArray()).toStrictEqual(seen);
      }),
      { numRuns: 60 },
    );
  });

  it('holds a long run across many chunks; toArray gives the same objects at every call, and grows with the trace', () => {
    const { seen, trace } = recorded(workloadScenario(1000), 'workload');
    expect(seen.length).toBeGreaterThan(3 * 4096);
    const all = trace.toArray();
    expect(all).toStrictEqual(seen);
    expect(trace.toArray()).toBe(all);
    expect(trace.toArray()[5000]).toBe(all[5000]);
    let n = 0;
    for (const e of trace) expect(e).toBe(all[n++]);
    expect(n).toBe(seen.length);

    const t = new KeptTrace();
    t.push(seen[0]!);
    const first = t.toArray();
    t.push({ ...seen[1]!, seq: 1 });
    expect(t.toArray()).toBe(first);
    expect(first.map((e) => e.seq)).toEqual([0, 1]);
  });

  it('gives back counts an int32 cannot hold, and names and objects of every kind, past its first events', () => {
    const t = new KeptTrace();
    const wide = [2 ** 31, -(2 ** 31), -(2 ** 31) + 1, 2 ** 53, 1.5, -0, Number.MAX_VALUE, -7, 0, undefined];
    const events: TraceEvent[] = [];
    for (let i = 0; i < 9000; i++) {
      const e = {
        seq: i,
        timeUs: i * 1.25,
        kind: i % 3 === 0 ? 'acquire.request' : `kind.${i % 7}`,
        actor: `c${i % 11}`,
        machine: `m${i % 5}`,
        localUs: i % 4 === 0 ? undefined : i - 0.5,
        key: i % 2 === 0 ? undefined : 'job',
        owner: i % 5 === 0 ? undefined : `c${i % 11}:${i}`,
        fence: wide[i % wide.length],
        ttlUs: wide[(i + 3) % wide.length],
        peer: i % 6 === 0 ? 'redis' : undefined,
        msg: wide[(i + 7) % wide.length],
        reason: i % 9 === 0 ? `reason ${i % 4}` : undefined,
        believes: i % 8 === 0 ? { holds: true, owner: `c${i % 11}:${i}`, fence: 3 } : undefined,
        data: i % 10 === 0 ? { n: i, list: [1, 'x'] } : undefined,
      } as TraceEvent;
      events.push(e);
      t.push(e);
    }
    expect(t.length).toBe(events.length);
    for (let i = 0; i < events.length; i++) {
      const back = t.at(i);
      expect(back, `event ${i}`).toStrictEqual(events[i]);
      expect(Object.keys(back)).toEqual(Object.keys(events[i]!));
      expect(t.kindAt(i)).toBe(events[i]!.kind);
      // The objects are the recorder's own, not copies.
      expect(back.believes).toBe(events[i]!.believes);
      expect(back.data).toBe(events[i]!.data);
    }
    // toStrictEqual compares numbers as Object.is does: -0 came back as -0, not as 0.
    expect(Object.is(t.at(4105).fence, -0)).toBe(true);
  });

  it('gives back times its columns cannot count from their chunk, and more names than 16 bits number', () => {
    const t = new KeptTrace();
    const events: TraceEvent[] = [];
    // Times an hour apart overflow a chunk's int32 of microseconds; clocks hours ahead or behind, the local column; -0 and fractions are never counted.
    const odd = [-0, 0.5, 2 ** 53, 3_600_000_000, -3_600_000_000];
    for (let i = 0; i < 4096 + 3 * 4096; i++) {
      const past = i - 4096;
      const hour = past >= 4096 && past < 8192;
      const timeUs = past === 0 ? -0 : hour ? past * 3_600_000_000 : past >= 0 && past % 997 === 0 ? odd[past % odd.length]! : i * 10;
      const e = {
        seq: i,
        timeUs,
        kind: 'acquire.request',
        actor: `c${i % 3}`,
        machine: `m${i % 3}`,
        localUs: i % 13 === 0 ? undefined : i % 3 === 1 ? timeUs + 7_200_000_000 : i % 3 === 2 ? timeUs - 1 : timeUs === 0 ? -0 : timeUs,
        key: 'job',
        owner: `c${i % 3}:${i >> 2}`,
        fence: undefined,
        ttlUs: 30_000_000,
        peer: 'redis',
        msg: i,
        // From event 9,000 on, every reason is new: the names pass 65,535 in the middle of a chunk.
        reason: past >= 4000 ? `reason ${i}` : undefined,
        believes: { holds: false },
        data: i % 2 === 0 ? { i } : undefined,
      } as unknown as TraceEvent;
      events.push(e);
      t.push(e);
    }
    for (let i = 0; i < 70_000; i++) {
      const e = {
        ...events[events.length - 1]!,
        seq: events.length,
        timeUs: 10 * events.length,
        localUs: 10 * events.length,
        reason: `later ${i}`,
      } as TraceEvent;
      events.push(e);
      t.push(e);
    }
    for (let i = 0; i < events.length; i++) {
      const back = t.at(i);
      expect(back, `event ${i}`).toStrictEqual(events[i]);
      expect(Object.is(t.timeAt(i), events[i]!.timeUs), `time of event ${i}`).toBe(true);
      expect(back.believes).toBe(events[i]!.believes);
    }
    expect(Object.is(t.at(4096).timeUs, -0)).toBe(true);
    expect(t.at(events.length - 1).reason).toBe('later 69999');
  });

  it('refuses an event it does not hold', () => {
    const t = new KeptTrace();
    expect(() => t.at(0)).toThrow('no event 0 in a trace of 0');
  });

  it('is what a run gives as its events when it keeps them, and nothing when it does not', () => {
    const scenario = normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry');
    const kept = runJob(scenario, 3, { trace: true });
    expect(kept.events).toBe(kept.trace!.toArray());
    expect(kept.events!.length).toBe(kept.eventCount);
    const streamed = runJob(scenario, 3, { hash: false });
    expect(streamed.trace).toBeUndefined();
    expect(streamed.events).toBeUndefined();
  });
});
