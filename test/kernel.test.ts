import { describe, expect, it } from 'vitest';
import { Kernel } from '../sim/kernel/kernel.js';
import { EventQueue } from '../sim/kernel/queue.js';
import { RngStreams } from '../sim/kernel/rng.js';

const budget = { maxEvents: 1_000_000, maxTimeUs: 1_000_000_000 };

describe('kernel', () => {
  it('fires events in time order, and in scheduling order within the same microsecond', () => {
    const k = new Kernel();
    const seen: string[] = [];
    k.at(30, () => seen.push('c'));
    k.at(10, () => seen.push('a1'));
    k.at(20, () => seen.push('b'));
    k.at(10, () => seen.push('a2'));
    k.at(10, () => k.at(10, () => seen.push('a3 scheduled during a1-a2')));
    const stop = k.run(budget);
    expect(seen).toEqual(['a1', 'a2', 'a3 scheduled during a1-a2', 'b', 'c']);
    expect(stop).toEqual({ reason: 'completed', events: 6, timeUs: 30 });
  });

  it('never schedules into the past: a time before now fires now', () => {
    const k = new Kernel();
    const times: number[] = [];
    k.at(100, () => k.at(5, () => times.push(k.nowUs)));
    k.run(budget);
    expect(times).toEqual([100]);
  });

  it('skips cancelled events without advancing time or counting them', () => {
    const k = new Kernel();
    const seen: number[] = [];
    k.at(10, () => seen.push(10));
    const t = k.at(50, () => seen.push(50));
    k.cancel(t);
    const stop = k.run(budget);
    expect(seen).toEqual([10]);
    expect(stop).toEqual({ reason: 'completed', events: 1, timeUs: 10 });
  });

  it('stops at the event budget with that reason', () => {
    const k = new Kernel();
    const tick = (): void => {
      k.after(1, tick);
    };
    k.at(0, tick);
    expect(k.run({ maxEvents: 1000, maxTimeUs: 1e12 })).toEqual({ reason: 'event-budget', events: 1000, timeUs: 999 });
  });

  it('stops at the time budget without firing later events', () => {
    const k = new Kernel();
    let fired = 0;
    const tick = (): void => {
      fired++;
      k.after(100, tick);
    };
    k.at(0, tick);
    const stop = k.run({ maxEvents: 1e9, maxTimeUs: 1000 });
    expect(stop.reason).toBe('time-budget');
    expect(fired).toBe(11);
    expect(stop.timeUs).toBe(1000);
  });

  it('EventQueue pops a random mix in (time, seq) order', () => {
    const q = new EventQueue();
    const rng = new RngStreams(9).stream('q');
    for (let seq = 0; seq < 2000; seq++) q.push({ timeUs: rng.int(0, 50), seq, fire: () => {}, cancelled: false, queued: false });
    let prev = { timeUs: -1, seq: -1 };
    while (q.size > 0) {
      const item = q.pop()!;
      expect(item.timeUs > prev.timeUs || (item.timeUs === prev.timeUs && item.seq > prev.seq)).toBe(true);
      prev = item;
    }
  });

  it('EventQueue agrees with a sorted list through interleaved pushes, pops and cancels', () => {
    const q = new EventQueue();
    const rng = new RngStreams(11).stream('mix');
    type Item = { timeUs: number; seq: number; fire: () => void; cancelled: boolean; queued: boolean };
    const model: Item[] = [];
    const order = (a: Item, b: Item): number => a.timeUs - b.timeUs || a.seq - b.seq;
    let seq = 0;
    let now = 0;
    let compactions = 0;
    for (let step = 0; step < 20_000; step++) {
      // The second half cancels far more than it pops, so the queue rebuilds itself without them again and again.
      const [pushes, cancels] = step < 10_000 ? [0.5, 0.7] : [0.35, 0.85];
      const roll = rng.next();
      if (roll < pushes) {
        const item: Item = { timeUs: now + rng.int(0, 30), seq: seq++, fire: () => {}, cancelled: false, queued: false };
        q.push(item);
        model.push(item);
      } else if (roll < cancels && model.length > 0) {
        // Cancel a random live entry: the queue may compact itself.
        const live = model.filter((m) => !m.cancelled);
        if (live.length > 0) q.cancel(live[rng.int(0, live.length - 1)]!);
      } else if (model.length > 0) {
        model.sort(order);
        expect(q.peek()).toBe(model[0]);
        const popped = q.pop()!;
        expect(popped).toBe(model.shift());
        expect(popped.queued).toBe(false);
        now = popped.timeUs;
      }
      // The queue holds every live entry, and cancelled ones only until it compacts.
      expect(q.size).toBeGreaterThanOrEqual(model.filter((m) => !m.cancelled).length);
      expect(q.size).toBeLessThanOrEqual(model.length);
      if (q.size < model.length) compactions++;
      for (let i = model.length - 1; i >= 0; i--) if (model[i]!.cancelled && !model[i]!.queued) model.splice(i, 1);
    }
    expect(compactions).toBeGreaterThan(10);
  });
});

describe('cancelled timers', () => {
  it('leave the queue once they are most of it, and the rest still fire in (time, seq) order', () => {
    const k = new Kernel();
    const rng = new RngStreams(3).stream('timers');
    const fired: Array<[number, number]> = [];
    const live: Array<{ timeUs: number; i: number }> = [];
    const timers = [];
    for (let i = 0; i < 5000; i++) {
      const timeUs = rng.int(0, 400);
      const t = k.at(timeUs, () => fired.push([k.nowUs, i]));
      if (rng.chance(0.9)) timers.push(t);
      else live.push({ timeUs, i });
    }
    for (const t of timers) k.cancel(t);
    // Cancelling twice, or cancelling a timer that already fired, changes nothing.
    for (const t of timers.slice(0, 100)) k.cancel(t);
    expect((k as unknown as { queue: EventQueue }).queue.size).toBeLessThan(2 * live.length + 64);
    const stop = k.run(budget);
    const expected = [...live].sort((a, b) => a.timeUs - b.timeUs || a.i - b.i).map((x) => [x.timeUs, x.i]);
    expect(fired).toEqual(expected);
    expect(stop.events).toBe(live.length);
  });

  it('cancelled as they fire, or after, leave the count of queued ones right', () => {
    const k = new Kernel();
    const seen: number[] = [];
    const first = k.at(1, () => {
      k.cancel(first);
      seen.push(1);
    });
    const second = k.at(2, () => seen.push(2));
    k.run(budget);
    k.cancel(second);
    for (let i = 0; i < 100; i++) k.cancel(k.at(10 + i, () => seen.push(-1)));
    k.at(500, () => seen.push(500));
    expect(k.run(budget).events).toBe(3);
    expect(seen).toEqual([1, 2, 500]);
  });
});

describe('seeded streams', () => {
  it('give the same draws for the same seed and name', () => {
    const a = new RngStreams(42).stream('client:A');
    const b = new RngStreams(42).stream('client:A');
    expect(Array.from({ length: 5 }, () => a.next())).toEqual(Array.from({ length: 5 }, () => b.next()));
  });

  it('keep each entity independent: drawing from one stream leaves another unchanged', () => {
    const alone = new RngStreams(42);
    const busy = new RngStreams(42);
    for (let i = 0; i < 100; i++) busy.stream('client:B').next();
    expect(busy.stream('client:A').next()).toBe(alone.stream('client:A').next());
  });

  it('differ between seeds', () => {
    expect(new RngStreams(1).stream('x').next()).not.toBe(new RngStreams(2).stream('x').next());
  });

  it('int() stays within its bounds, both included', () => {
    const r = new RngStreams(3).stream('int');
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(r.int(-2, 2));
    expect([...seen].sort((x, y) => x - y)).toEqual([-2, -1, 0, 1, 2]);
  });
});

describe('deadlines', () => {
  /**
   * Sets a deadline `delayUs` from now that fires `fire`; `early` says it may
   * fall due before its fate is known. Gives back what to do when its fate is
   * known: call it off, or keep it.
   */
  type SetDeadline = (k: Kernel, delayUs: number, fire: () => void, early: boolean) => (callOff: boolean) => void;

  /** Timers set with `after` and called off with `cancel`. */
  const queuedAtOnce: SetDeadline = (k, d, f) => {
    const t = k.after(d, f);
    return (callOff) => {
      if (callOff) k.cancel(t);
    };
  };

  /** A place in the order reserved when set, and the deadline queued only once it may fire, as a call's timeout is. */
  const queuedWhenItMayFire: SetDeadline = (k, d, f, early) => {
    const atUs = k.dueAfter(d);
    const seq = k.reserveSeq();
    const event = new OwnEvent(f);
    if (early) k.scheduleReserved(event, atUs, seq);
    return (callOff) => {
      if (early) {
        if (callOff) k.cancel(event);
      } else if (!callOff) k.scheduleReserved(event, atUs, seq);
    };
  };

  /**
   * A run of chained events that set deadlines and call most of them off:
   * the log of what fired, when. The fate of each deadline is known at the
   * step's next event.
   */
  function chained(setDeadline: SetDeadline, maxEvents = 1_000_000): { log: string[]; events: number; reason: string } {
    const k = new Kernel();
    const rng = new RngStreams(11).stream('deadlines');
    const log: string[] = [];
    let made = 0;
    const step = (who: number): void => {
      log.push(`${k.nowUs} step ${who}`);
      if (made++ > 4000) return;
      // A few delays are zero, to tie with the step; some tie with the step's next event.
      const delayUs = [0, 1_000, 2_500, 7, 1_000_000, 3, 90, 400, 55, 12, 31, 5][rng.int(0, 11)]!;
      const next = rng.chance(0.1) ? delayUs : rng.int(0, 1_200);
      const callOff = rng.chance(0.8);
      const settle = setDeadline(k, delayUs, () => log.push(`${k.nowUs} deadline ${who}`), delayUs <= next);
      k.after(next, () => {
        settle(callOff);
        step(who);
      });
    };
    for (let who = 0; who < 5; who++) k.at(rng.int(0, 50), () => step(who));
    const stop = k.run({ maxEvents, maxTimeUs: 1_000_000_000 });
    return { log, events: stop.events, reason: stop.reason };
  }

  it('queued only once they may fire, at the place reserved when set, fire in the same order as if queued at once', () => {
    const late = chained(queuedWhenItMayFire);
    const atOnce = chained(queuedAtOnce);
    expect(late.log.filter((l) => l.includes('deadline')).length).toBeGreaterThan(100);
    expect(late).toEqual(atOnce);
  });

  it('count against the event budget as other events do', () => {
    const late = chained(queuedWhenItMayFire, 777);
    expect(late).toEqual(chained(queuedAtOnce, 777));
    expect(late.events).toBe(777);
    expect(late.reason).toBe('event-budget');
  });

  it('refuse a reserved time already past', () => {
    const k = new Kernel();
    const atUs = k.dueAfter(10);
    const seq = k.reserveSeq();
    k.at(20, () => undefined);
    k.run(budget);
    expect(() => k.scheduleReserved(new OwnEvent(() => undefined), atUs, seq)).toThrow(/due at 10 µs, before now \(20 µs\)/);
  });
});

/** An event that is its own queue entry, as a call in flight is. */
class OwnEvent {
  timeUs = 0;
  seq = 0;
  cancelled = false;
  queued = false;
  constructor(private readonly f: () => void) {}
  fire(): void {
    this.f();
  }
}

describe('objects scheduled as their own events', () => {
  it('fire in (time, scheduling order) among closures, and again when scheduled after firing', () => {
    const k = new Kernel();
    const seen: string[] = [];
    let legs = 0;
    // A request and then its reply: one object, scheduled a second time when its first leg fires.
    const call = new OwnEvent(() => {
      seen.push(`${k.nowUs} call leg ${++legs}`);
      if (legs === 1) k.schedule(call, k.nowUs + 5);
    });
    k.at(10, () => seen.push('10 first'));
    k.schedule(call, 10);
    k.at(10, () => seen.push('10 after the call'));
    k.at(15, () => seen.push('15 before the reply'));
    k.schedule(new OwnEvent(() => seen.push(`${k.nowUs} from the past`)), -3);
    const stop = k.run(budget);
    expect(seen).toEqual(['0 from the past', '10 first', '10 call leg 1', '10 after the call', '15 before the reply', '15 call leg 2']);
    expect(stop).toEqual({ reason: 'completed', events: 6, timeUs: 15 });
  });

  it('a cancelled one is skipped and not counted', () => {
    const k = new Kernel();
    const seen: number[] = [];
    const t = new OwnEvent(() => seen.push(1));
    k.schedule(t, 100);
    k.schedule(new OwnEvent(() => seen.push(2)), 50);
    k.at(20, () => k.cancel(t));
    expect(k.run(budget)).toEqual({ reason: 'completed', events: 2, timeUs: 50 });
    expect(seen).toEqual([2]);
  });
});
