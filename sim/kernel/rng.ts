import alea from 'seedrandom/lib/alea.js';

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
 * Alea is seedrandom's fastest generator and is pure JavaScript, so Node and
 * browsers produce the same sequence.
 */
export class RngStreams {
  private readonly streams = new Map<string, Rng>();

  constructor(private readonly seed: number) {}

  stream(name: string): Rng {
    let rng = this.streams.get(name);
    if (rng === undefined) {
      rng = makeRng(`${this.seed}/${name}`);
      this.streams.set(name, rng);
    }
    return rng;
  }
}

export function makeRng(seedText: string): Rng {
  return new AleaStream(seedText);
}

/** A class rather than an object of closures: cheaper to make, and runs make several. */
class AleaStream implements Rng {
  private readonly prng: () => number;

  constructor(seedText: string) {
    this.prng = alea(seedText);
  }

  next(): number {
    return this.prng();
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.prng() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return probability > 0 && this.prng() < probability;
  }
}
