import { deriveIntervals, type BeliefInterval } from '../../sim/check/intervals.js';
import { runJob } from '../../sim/run.js';
import type { Scenario } from '../../sim/scenario/types.js';
import type { ClusterCounts } from '../../sim/odds/wilson.js';

/**
 * Double-owned lock cycles counted the slow, plain way: every pair of kept
 * beliefs compared. What the checker must find without keeping them.
 * Returns [double-owned, all] beliefs.
 */
export function pairwiseDoubleOwned(beliefs: readonly BeliefInterval[], lastUs: number): [number, number] {
  const owned = new Set<BeliefInterval>();
  for (const a of beliefs)
    for (const b of beliefs) {
      if (a === b || a.key !== b.key || a.client === b.client || a.owner === b.owner || (a.shared && b.shared)) continue;
      if (Math.min(a.endUs ?? lastUs, b.endUs ?? lastUs) > Math.max(a.startUs, b.startUs)) owned.add(a);
    }
  return [owned.size, beliefs.length];
}

/** Runs seeds `from..to` of `scenario`, keeping each trace, and counts its lock cycles pairwise, with the sums over runs a clustered interval needs. */
export function directCycleCounts(scenario: Scenario, from: number, to: number): ClusterCounts {
  const c = { k: 0, n: 0, clusters: 0, nSq: 0, kSq: 0, nk: 0 };
  for (let seed = from; seed <= to; seed++) {
    const whole = deriveIntervals(runJob(scenario, seed, { hash: false, trace: true }).events!);
    const [d, n] = pairwiseDoubleOwned(whole.beliefs, whole.lastUs);
    c.k += d;
    c.n += n;
    c.clusters++;
    c.nSq += n * n;
    c.kSq += d * d;
    c.nk += n * d;
  }
  return c;
}
