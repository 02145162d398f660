import alea from 'seedrandom/lib/alea.js';
import { describe, expect, it } from 'vitest';
import { makeRng, RngStreams } from '../sim/kernel/rng.js';

describe('seeded streams', () => {
  it('draw exactly the numbers of seedrandom’s Alea for the same seed text', () => {
    const texts = ['', ' ', 'a', '0/net:m0', '42/client:A', '4294967295/work:c49', 'ünïcødé/🔒', 'x'.repeat(300)];
    for (let seed = 0; seed < 200; seed++) texts.push(`${seed}/net:db`, `${seed}/client:B`, `${-seed * 7919}/work:A`);
    for (const text of texts) {
      const ours = makeRng(text);
      const theirs = alea(text);
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < 300; i++) {
        a.push(ours.next());
        b.push(theirs());
      }
      expect(a, text).toEqual(b);
    }
  });

  it('derive a stream from the seed and the name alone, whatever else was drawn first', () => {
    const a = new RngStreams(7);
    a.stream('other').next();
    const b = new RngStreams(7);
    expect(a.stream('net:m1').next()).toBe(b.stream('net:m1').next());
    expect(new RngStreams(8).stream('net:m1').next()).not.toBe(b.stream('net:m1').next());
  });

  it('give integers within both bounds and chances that never fire at probability zero', () => {
    const r = makeRng('bounds');
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const n = r.int(3, 6);
      expect(n).toBeGreaterThanOrEqual(3);
      expect(n).toBeLessThanOrEqual(6);
      seen.add(n);
      expect(r.chance(0)).toBe(false);
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
  });
});
