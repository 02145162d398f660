import { describe, expect, it } from 'vitest';
import { advance, APPROACH_MS, holdMs, SLOW } from '../../web/state/pacing.js';

/* Playback pacing, under Node: slower near stops, landing on each, however fast. */

const stops = { seqs: [10, 20], timesUs: [5_000_000, 9_000_000] };

describe('advance', () => {
  it('advance moves at the chosen speed far from any stop', () => {
    expect(advance(stops, 0, 0, 100, 2)).toEqual({ kind: 'move', toUs: 200_000 });
  });

  it('advance slows down inside the zone before and after a stop', () => {
    const zoneUs = APPROACH_MS * 1000 * 2;
    expect(advance(stops, 5, 5_000_000 - zoneUs + 1, 100, 2)).toEqual({ kind: 'move', toUs: 5_000_000 - zoneUs + 1 + 200_000 * SLOW });
    expect(advance(stops, 10, 5_000_000 + 10, 100, 2)).toEqual({ kind: 'move', toUs: 5_000_000 + 10 + 200_000 * SLOW });
  });

  it('advance lands on the next stop rather than passing it, at any speed', () => {
    expect(advance(stops, 0, 0, 16, 10_000)).toEqual({ kind: 'stop', seq: 10 });
    // From the first stop, the next frame heads for the second, never skips it.
    expect(advance(stops, 10, 5_000_000, 1000, 10_000)).toEqual({ kind: 'stop', seq: 20 });
    expect(advance(stops, 20, 9_000_000, 16, 2)).toEqual({ kind: 'move', toUs: 9_000_000 + 32_000 * SLOW });
  });

  it('advance tells stops at the same instant apart by their seq', () => {
    const same = { seqs: [4, 5], timesUs: [1000, 1000] };
    expect(advance(same, 3, 1000, 16, 2)).toEqual({ kind: 'stop', seq: 4 });
    expect(advance(same, 4, 1000, 16, 2)).toEqual({ kind: 'stop', seq: 5 });
  });

  it('holdMs holds a second and more at ordinary speeds, less at very high ones', () => {
    expect(holdMs(2)).toBe(1200);
    expect(holdMs(10)).toBe(1200);
    expect(holdMs(1000)).toBe(400);
  });
});
