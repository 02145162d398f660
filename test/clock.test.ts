import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LocalClock } from '../sim/world/clock.js';

describe('local clock', () => {
  it('reads true time plus its offset', () => {
    const c = new LocalClock(-2_000_000, 0);
    expect(c.read(0)).toBe(-2_000_000);
    expect(c.read(5_000_000)).toBe(3_000_000);
  });

  it('drifts by its rate in parts per million', () => {
    const c = new LocalClock(0, 100); // gains 100 µs per second
    expect(c.read(10_000_000)).toBe(10_001_000);
    expect(new LocalClock(0, -500).read(2_000_000)).toBe(1_999_000);
  });

  it('jumps forward and back from the moment of the jump on', () => {
    const c = new LocalClock(0, 0);
    c.jump(1_000_000, 5_000_000);
    expect(c.read(1_000_000)).toBe(6_000_000);
    expect(c.read(2_000_000)).toBe(7_000_000);
    c.jump(2_000_000, -10_000_000);
    expect(c.read(3_000_000)).toBe(-2_000_000);
  });

  it('changes rate without stepping', () => {
    const c = new LocalClock(0, 0);
    c.setDrift(1_000_000, 1000);
    expect(c.read(1_000_000)).toBe(1_000_000);
    expect(c.read(2_000_000)).toBe(2_001_000);
  });

  it('trueTimeAt finds the first true instant the clock reads a value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
        fc.integer({ min: -50_000, max: 50_000 }),
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.integer({ min: 0, max: 1_000_000_000 }),
        (offset, ppm, from, target) => {
          const c = new LocalClock(offset, ppm);
          const t = c.trueTimeAt(target, from);
          expect(t).toBeGreaterThanOrEqual(from);
          expect(c.read(t)).toBeGreaterThanOrEqual(target);
          if (t > from) expect(c.read(t - 1)).toBeLessThan(target);
        },
      ),
    );
  });

  it('measures a sleep in its own time: a fast clock sleeps less true time', () => {
    expect(new LocalClock(0, 0).trueDuration(1_000_000)).toBe(1_000_000);
    expect(new LocalClock(0, 1000).trueDuration(1_000_000)).toBe(999_001);
    expect(new LocalClock(0, -1000).trueDuration(1_000_000)).toBe(1_001_002);
  });
});
