import { InvalidArgumentError } from 'commander';
import { readSeed } from '../scenario/seed.js';

/** A `--seed` option's value: one seed, as a scenario's "seed" takes it (a range is a sweep's `--seeds`). */
export function parseSeed(value: string): number {
  const r = readSeed(value);
  if (!r.ok) throw new InvalidArgumentError(`${r.expected}, got "${value}".`);
  return r.seed;
}
