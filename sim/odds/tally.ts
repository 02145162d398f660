import type { JobResult } from '../run.js';

/*
 * The counts a batch of runs comes back with: integers only, so tallies merge
 * by addition in any order, on any machine, and give the same bytes. Failing
 * seeds are kept as the smallest few, not the first few found, for the same
 * reason.
 */

/** How many failing seeds a tally keeps (the smallest ones). */
export const FAILING_SEEDS_KEPT = 5;

export interface Tally {
  runs: number;
  unsafe: number;
  fenced: number;
  /** Runs with at least one double-ownership window. */
  doubleOwnership: number;
  /** Runs in which some lock was lost while its client still believed. */
  lostLock: number;
  /** Runs with some lock-out time (see lockout.ts). */
  lockout: number;
  /** Lock-out time summed over all runs, in microseconds. */
  lockoutUs: number;
  /** The longest lock-out of any one run, in microseconds. */
  lockoutMaxUs: number;
  /** Runs that stopped at their event or time budget instead of completing. */
  budgetStops: number;
  /** Lock cycles (belief intervals: from an acquisition's success until its client stopped believing) begun, over all runs. */
  cycles: number;
  /** Lock cycles during which another client also believed it held the same lock, over all runs. */
  doubleOwnedCycles: number;
  /**
   * Per run, the squares of its cycles and of its double-owned cycles, and
   * their product, summed: what the interval on the share of cycles needs
   * to allow for cycles of one run failing together (see clusteredShare).
   * Safe integers up to 9e15: 60 cycles a run leave room for 10^12 runs.
   */
  cyclesSq: number;
  doubleOwnedSq: number;
  cyclesByDoubleOwned: number;
  /** The smallest seeds whose outcome was unsafe, ascending. */
  unsafeSeeds: number[];
  /** The smallest seeds with double ownership, ascending (a run can be here and not unsafe). */
  doubleSeeds: number[];
}

export function emptyTally(): Tally {
  return {
    runs: 0,
    unsafe: 0,
    fenced: 0,
    doubleOwnership: 0,
    lostLock: 0,
    lockout: 0,
    lockoutUs: 0,
    lockoutMaxUs: 0,
    budgetStops: 0,
    cycles: 0,
    doubleOwnedCycles: 0,
    cyclesSq: 0,
    doubleOwnedSq: 0,
    cyclesByDoubleOwned: 0,
    unsafeSeeds: [],
    doubleSeeds: [],
  };
}

/** A run's lock cycles, and how many of them were double-owned (IntervalTracker's beliefsBegun and beliefsDoubleOwned). */
export interface RunCycles {
  readonly beliefsBegun: number;
  readonly beliefsDoubleOwned: number;
}

/** Adds one run to a tally. Seeds must come in ascending order within one tally for the kept lists to stay the smallest. */
export function addRun(t: Tally, seed: number, r: Pick<JobResult, 'outcome' | 'verdict' | 'stop'>, lockoutUs: number, cycles: RunCycles): void {
  t.runs++;
  const n = cycles.beliefsBegun;
  const d = cycles.beliefsDoubleOwned;
  t.cycles += n;
  t.doubleOwnedCycles += d;
  t.cyclesSq += n * n;
  t.doubleOwnedSq += d * d;
  t.cyclesByDoubleOwned += n * d;
  if (r.outcome === 'unsafe') {
    t.unsafe++;
    keep(t.unsafeSeeds, seed);
  } else if (r.outcome === 'fenced') t.fenced++;
  if (r.verdict.doubleOwnership.length > 0) {
    t.doubleOwnership++;
    keep(t.doubleSeeds, seed);
  }
  if (r.verdict.lostLocks.length > 0) t.lostLock++;
  if (lockoutUs > 0) {
    t.lockout++;
    t.lockoutUs += lockoutUs;
    if (lockoutUs > t.lockoutMaxUs) t.lockoutMaxUs = lockoutUs;
  }
  if (r.stop.reason !== 'completed') t.budgetStops++;
}

function keep(list: number[], seed: number): void {
  if (list.length < FAILING_SEEDS_KEPT) list.push(seed);
}

/** The sum of two tallies, whichever order they come in. */
export function mergeTally(a: Tally, b: Tally): Tally {
  return {
    runs: a.runs + b.runs,
    unsafe: a.unsafe + b.unsafe,
    fenced: a.fenced + b.fenced,
    doubleOwnership: a.doubleOwnership + b.doubleOwnership,
    lostLock: a.lostLock + b.lostLock,
    lockout: a.lockout + b.lockout,
    lockoutUs: a.lockoutUs + b.lockoutUs,
    lockoutMaxUs: Math.max(a.lockoutMaxUs, b.lockoutMaxUs),
    budgetStops: a.budgetStops + b.budgetStops,
    cycles: a.cycles + b.cycles,
    doubleOwnedCycles: a.doubleOwnedCycles + b.doubleOwnedCycles,
    cyclesSq: a.cyclesSq + b.cyclesSq,
    doubleOwnedSq: a.doubleOwnedSq + b.doubleOwnedSq,
    cyclesByDoubleOwned: a.cyclesByDoubleOwned + b.cyclesByDoubleOwned,
    unsafeSeeds: smallest(a.unsafeSeeds, b.unsafeSeeds),
    doubleSeeds: smallest(a.doubleSeeds, b.doubleSeeds),
  };
}

function smallest(a: readonly number[], b: readonly number[]): number[] {
  return [...new Set([...a, ...b])].sort((x, y) => x - y).slice(0, FAILING_SEEDS_KEPT);
}

const FIELDS = [
  'runs',
  'unsafe',
  'fenced',
  'doubleOwnership',
  'lostLock',
  'lockout',
  'lockoutUs',
  'lockoutMaxUs',
  'budgetStops',
  'cycles',
  'doubleOwnedCycles',
  'cyclesSq',
  'doubleOwnedSq',
  'cyclesByDoubleOwned',
] as const;

/** Checks a tally that came from elsewhere (a worker, a queue) before it is merged: integers, consistent, seeds within range. */
export function isTally(v: unknown): v is Tally {
  if (v === null || typeof v !== 'object') return false;
  const t = v as Record<string, unknown>;
  for (const f of FIELDS) if (!Number.isSafeInteger(t[f]) || (t[f] as number) < 0) return false;
  const seeds = (x: unknown): boolean => Array.isArray(x) && x.length <= FAILING_SEEDS_KEPT && x.every((s) => Number.isSafeInteger(s));
  const n = (f: (typeof FIELDS)[number]): number => t[f] as number;
  // A run's d is at most its n, so the sums keep that order too; a tally from before the cycles were counted has none of them and is refused.
  return (
    seeds(t.unsafeSeeds) &&
    seeds(t.doubleSeeds) &&
    n('unsafe') <= n('runs') &&
    n('doubleOwnedCycles') <= n('cycles') &&
    n('doubleOwnedSq') <= n('cyclesByDoubleOwned') &&
    n('cyclesByDoubleOwned') <= n('cyclesSq') &&
    n('cycles') <= n('cyclesSq')
  );
}
