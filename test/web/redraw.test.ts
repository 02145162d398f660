import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { latestEvery } from '../../web/odds/redraw.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

it('draws the first value at once, then the newest at most every interval, and never loses the last', () => {
  const drawn: Array<[number, number]> = [];
  const r = latestEvery<number>(250, (v) => drawn.push([performance.now(), v]));
  // Counts arrive every 10 ms for a second, as a sweep's batches do.
  for (let i = 1; i <= 100; i++) {
    r.push(i);
    vi.advanceTimersByTime(10);
  }
  vi.advanceTimersByTime(1000);
  expect(drawn.map(([, v]) => v)).toEqual([1, 25, 50, 75, 100]);
  const times = drawn.map(([t]) => t);
  for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(250);
});

it('draws a value that comes after a quiet spell at once', () => {
  const drawn: string[] = [];
  const r = latestEvery<string>(250, (v) => drawn.push(v));
  r.push('a');
  vi.advanceTimersByTime(1000);
  r.push('b');
  vi.advanceTimersByTime(0);
  expect(drawn).toEqual(['a', 'b']);
});

it('draws nothing more once cancelled', () => {
  const drawn: number[] = [];
  const r = latestEvery<number>(250, (v) => drawn.push(v));
  r.push(1);
  vi.advanceTimersByTime(0);
  r.push(2);
  r.cancel();
  vi.advanceTimersByTime(1000);
  expect(drawn).toEqual([1]);
});
