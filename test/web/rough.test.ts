import { describe, expect, it } from 'vitest';
import { roughDuration } from '../../web/model/rough.js';

describe('a duration as people say it', () => {
  it('keeps two significant digits at most, in the unit the rounded figure reads best in', () => {
    expect(roughDuration(6_000_000)).toBe('6 s');
    expect(roughDuration(1_540_000)).toBe('1.5 s');
    expect(roughDuration(350_000)).toBe('350 ms');
    expect(roughDuration(40)).toBe('40 µs');
  });

  it('reads just under a second or a millisecond as one, never as 1000 of the smaller unit', () => {
    expect(roughDuration(999_700)).toBe('1 s');
    expect(roughDuration(999_400)).toBe('999 ms');
    expect(roughDuration(999.7)).toBe('1 ms');
  });
});
