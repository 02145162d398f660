import { describe, expect, it } from 'vitest';
import { clockText, END_ROOM_PX, withEndRoom } from '../../web/timeline/layout.js';

/* A timeline on a phone: the marks at a run's last instant keep room on the right, and the lane clocks fit beside the row names. */

describe('withEndRoom', () => {
  const full = [0, 16_640_000] as const; // a 16 s run and the 4 % after it

  it('leaves the axis of a desktop plot as it is', () => {
    expect(withEndRoom(full, 1400)).toBe(full);
  });

  it('runs the axis of a 258 px plot on until the run ends END_ROOM_PX from the right edge', () => {
    const [d0, d1] = withEndRoom(full, 258);
    expect(d0).toBe(0);
    const endPx = (16_000_000 / d1) * 258;
    expect(258 - endPx).toBeGreaterThanOrEqual(END_ROOM_PX - 0.01);
    expect(258 - endPx).toBeLessThan(END_ROOM_PX + 0.5);
  });
});

describe('clockText', () => {
  it('keeps the clock sign and unit where there is room, and drops them, sign first, where there is not', () => {
    expect(clockText('10.001 s', 102)).toBe('◷ 10.001 s');
    expect(clockText('10.001 s', 56)).toBe('10.001 s');
    expect(clockText('100.001 s', 56)).toBe('100.001');
  });
});
