import { describe, expect, it } from 'vitest';
import { lockCyclesLine } from '../sim/check/summary.js';

describe("a run's lock cycles in words", () => {
  it('says none, not, both, all, or how many and what share, digits grouped', () => {
    expect(lockCyclesLine({ begun: 0, doubleOwned: 0 })).toBe('No lock cycle: no client ever believed it held the lock.');
    expect(lockCyclesLine({ begun: 1, doubleOwned: 0 })).toBe('1 lock cycle, not double-owned.');
    expect(lockCyclesLine({ begun: 60, doubleOwned: 0 })).toBe('60 lock cycles, none of them double-owned.');
    expect(lockCyclesLine({ begun: 2, doubleOwned: 2 })).toBe('2 lock cycles, both double-owned.');
    expect(lockCyclesLine({ begun: 3, doubleOwned: 3 })).toBe('3 lock cycles, all of them double-owned.');
    expect(lockCyclesLine({ begun: 60, doubleOwned: 10 })).toBe('60 lock cycles, 10 of them double-owned (16.7 %).');
    // Small shares keep two significant digits, as a sweep prints them.
    expect(lockCyclesLine({ begun: 120_000, doubleOwned: 3 })).toBe('120,000 lock cycles, 3 of them double-owned (0.0025 %).');
  });
});
