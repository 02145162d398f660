import fc from 'fast-check';
import { describe, it } from 'vitest';
import { propertyOf } from './fuzz/property.js';
import { TARGETS, type Target } from './fuzz/targets.js';

/*
 * The fuzzer's CI share: 2,000 cases of each target with a fixed seed, so
 * a failure here is reproducible from the seed and path fast-check prints.
 * `npm run fuzz` runs 100,000 of each with a time bound per case.
 */
const CASES = 2000;
const SEED = 20_260_614;

describe('fuzzing what a user types or imports: nothing crashes, every refusal names its path or limit', () => {
  for (const target of TARGETS) {
    it(`${CASES} ${target.name}`, async () => {
      await fc.assert(propertyOf(target as Target<unknown>), { numRuns: CASES, seed: SEED, endOnFailure: true });
    }, 300_000);
  }
});
