import alea from 'seedrandom/lib/alea.js';
import { describe, expect, it } from 'vitest';
import { makeRng, RngStreams } from '../sim/kernel/rng.js';

/** seedrandom's Alea is the reference: Locklab's streams must give its numbers exactly, or every trace would change. */
describe("Locklab's Alea streams", () => {
  it('draw what seedrandom draws, number for number, for every kind of seed text', () => {
    const texts = [
      '',
      ' ',
      '1/net:app1',
      '4294967295/client:a-very-long-client-name-with-dashes-and-digits-0123456789',
      'é/ü/漢字/🙂',
      ...Array.from({ length: 3000 }, (_, i) => `${i * 7919}/${['net', 'client', 'work', 'crash', 'memcached'][i % 5]}:${'c'.repeat(i % 17)}${i}`),
    ];
    for (const text of texts) {
      const ours = makeRng(text);
      const theirs = alea(text);
      for (let k = 0; k < 64; k++) expect(ours.next(), `${JSON.stringify(text)}, draw ${k}`).toBe(theirs());
    }
  });

  it('keep to it over a long stream', () => {
    const ours = new RngStreams(20261201).stream('net:db');
    const theirs = alea('20261201/net:db');
    for (let k = 0; k < 200_000; k++) {
      const a = ours.next();
      const b = theirs();
      if (a !== b) expect(a, `draw ${k}`).toBe(b);
    }
  });

  it('derive int and chance from the same draws', () => {
    const a = makeRng('7/int');
    const ref = alea('7/int');
    for (let k = 0; k < 1000; k++) expect(a.int(-5, 5)).toBe(-5 + Math.floor(ref() * 11));
    const c = makeRng('7/chance');
    const refc = alea('7/chance');
    for (let k = 0; k < 1000; k++) expect(c.chance(0.3)).toBe(refc() < 0.3);
    // A probability of 0 draws nothing: the stream stays where it was.
    const z = makeRng('7/zero');
    expect(z.chance(0)).toBe(false);
    expect(z.next()).toBe(alea('7/zero')());
  });
});
