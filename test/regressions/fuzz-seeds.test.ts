import fc from 'fast-check';
import { describe, it } from 'vitest';
import { propertyOf } from '../fuzz/property.js';
import { documentTarget, validTarget, type Target } from '../fuzz/targets.js';

/*
 * Every fuzz case that once failed, by the seed and path fast-check printed
 * (tldraw's habit): each replays the shrunk counterexample through today's
 * code. Found on main at 0272a8d: shuffling a valid document's keys changed
 * its trace (valid scenarios), and documents nested past about 4,000 levels
 * overflowed the stack (damaged scenario documents). Found by `npm run fuzz`
 * (a case seed, no path): refusals that named no path, for a document that
 * is itself a number out of range and for a field with an empty name.
 */
const PINNED: ReadonlyArray<{ target: Target<never>; seed: number; path?: string; found: string }> = [
  { target: validTarget as Target<never>, seed: 1, path: '0', found: 'combined: key order changed the trace' },
  { target: validTarget as Target<never>, seed: 2, path: '3', found: 'memcached: key order changed the trace' },
  { target: validTarget as Target<never>, seed: 3, path: '0', found: 'postgres: key order changed the trace' },
  { target: validTarget as Target<never>, seed: 4, path: '0', found: 'postgres: key order changed the trace' },
  { target: validTarget as Target<never>, seed: 5, path: '0', found: 'postgres: key order changed the trace' },
  { target: validTarget as Target<never>, seed: 6, path: '0', found: 'memcached: key order changed the trace' },
  { target: documentTarget as Target<never>, seed: 1, path: '33', found: 'a stack overflow reading a deep document' },
  { target: documentTarget as Target<never>, seed: 2, path: '40', found: 'a stack overflow reading a deep document' },
  { target: documentTarget as Target<never>, seed: 3, path: '205', found: 'a stack overflow reading a deep document' },
  { target: documentTarget as Target<never>, seed: 4, path: '202', found: 'a stack overflow reading a deep document' },
  { target: documentTarget as Target<never>, seed: 5, path: '56', found: 'a stack overflow reading a deep document' },
  { target: documentTarget as Target<never>, seed: 6, path: '5', found: 'a stack overflow reading a deep document' },
  { target: documentTarget as Target<never>, seed: 20263186, found: 'the document 1e999 was refused at no path' },
  { target: documentTarget as Target<never>, seed: 20325506, found: 'a field named "" was refused at no path' },
  { target: documentTarget as Target<never>, seed: 20279709, found: 'a field named "" among other issues' },
];

describe('fuzz cases that once failed', () => {
  for (const p of PINNED) {
    it(`${p.target.name}, seed ${p.seed}${p.path === undefined ? '' : ` path ${p.path}`} (once: ${p.found}) now holds`, async () => {
      await fc.assert(propertyOf(p.target), { seed: p.seed, ...(p.path === undefined ? {} : { path: p.path }), numRuns: 1, endOnFailure: true });
    });
  }
});
