/** A seeded stream of uniform numbers in [0, 1). */
export interface Rng {
  next(): number;
  /** A uniform integer in [min, max], both ends included. */
  int(min: number, max: number): number;
  /** True with the given probability. */
  chance(probability: number): boolean;
}

/**
 * Derives one independent stream per entity from (seed, entity name), so that
 * adding a client or a machine never changes the draws of another entity.
 * Each stream is seedrandom's Alea generator, seeded and drawn here (see
 * AleaStream): pure arithmetic, so Node and browsers produce the same sequence.
 */
export class RngStreams {
  private readonly streams = new Map<string, Rng>();
  /** Every stream's seed text begins `${seed}/`: that much of its first hashing is done once, here. */
  private readonly prefix: string;
  private readonly prefixMashed: number;

  constructor(seed: number) {
    this.prefix = `${seed}/`;
    this.prefixMashed = mash(SPACE_3, this.prefix);
  }

  /** The stream seeded with the text `${seed}/${name}`. */
  stream(name: string): Rng {
    let rng = this.streams.get(name);
    if (rng === undefined) {
      rng = new AleaStream(mash(this.prefixMashed, name), this.prefix, name);
      this.streams.set(name, rng);
    }
    return rng;
  }
}

export function makeRng(seedText: string): Rng {
  return new AleaStream(mash(SPACE_3, seedText), '', seedText);
}

/** 2^-32: Alea's unit. */
const UNIT = 2.3283064365386963e-10;

/**
 * Mash's state after `data` is hashed into state `n` (Johannes Baagøe's
 * Mash, the hash seedrandom's Alea seeds itself with). The state is a local
 * here and handed back: in seedrandom it lives in a closure, where each of
 * the four writes per character boxes a fresh number.
 */
function mash(n: number, data: string): number {
  for (let i = 0; i < data.length; i++) {
    n += data.charCodeAt(i);
    let h = 0.02519603282416938 * n;
    n = h >>> 0;
    h -= n;
    h *= n;
    n = h >>> 0;
    h -= n;
    n += h * 0x100000000;
  }
  return n;
}

/** The number Mash hands back in state `n`. */
function mashed(n: number): number {
  return (n >>> 0) * UNIT;
}

// Alea first mashes a space three times, the same for every seed: done once.
const SPACE_1 = mash(0xefc8249d, ' ');
const SPACE_2 = mash(SPACE_1, ' ');
const SPACE_3 = mash(SPACE_2, ' ');

/**
 * seedrandom's Alea (`seedrandom/lib/alea.js`), number for number: the same
 * seeding and the same draws, which a test checks against the package over
 * many seeds. It is written out here because a short run seeds a few
 * streams and seedrandom's seeding took about 1.5 µs each, a seventh of a
 * whole run (docs/decisions/0013-alea-seeded-in-place.md); this takes
 * about 0.6 µs. A class rather than closures: cheaper to make.
 */
class AleaStream implements Rng {
  private c = 1;
  /*
   * Declared only, and first assigned a number in the constructor: a field
   * declared without `declare` is a class field, defined as undefined before
   * the constructor runs, and a field that has held undefined keeps every
   * number written to it in a new heap object, with a write barrier: three
   * of each at every draw, and a waiting client draws three times a poll.
   */
  declare private s0: number;
  declare private s1: number;
  declare private s2: number;

  /**
   * Seeded with the text `head + tail`, which Alea hashes three times over;
   * `mashed` is the hash after the first time. The text is handed in two
   * parts and hashed part by part (Mash reads one character after another,
   * so that is the same), rather than joined: a joined text of 13
   * characters or more is a rope that the first read would copy flat.
   */
  constructor(mashedOnce: number, head: string, tail: string) {
    let n = mashedOnce;
    this.s0 = mashed(SPACE_1) - mashed(n);
    if (this.s0 < 0) this.s0 += 1;
    n = mash(mash(n, head), tail);
    this.s1 = mashed(SPACE_2) - mashed(n);
    if (this.s1 < 0) this.s1 += 1;
    n = mash(mash(n, head), tail);
    this.s2 = mashed(SPACE_3) - mashed(n);
    if (this.s2 < 0) this.s2 += 1;
  }

  next(): number {
    const t = 2091639 * this.s0 + this.c * UNIT;
    this.s0 = this.s1;
    this.s1 = this.s2;
    this.c = t | 0;
    this.s2 = t - this.c;
    return this.s2;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return probability > 0 && this.next() < probability;
  }
}
