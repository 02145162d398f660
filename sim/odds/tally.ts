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
    unsafeSeeds: [],
    doubleSeeds: [],
  };
}

/** Adds one run to a tally. Seeds must come in ascending order within one tally for the kept lists to stay the smallest. */
export function addRun(t: Tally, seed: number, r: Pick<JobResult, 'outcome' | 'verdict' | 'stop'>, lockoutUs: number): void {
  t.runs++;
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
    unsafeSeeds: smallest(a.unsafeSeeds, b.unsafeSeeds),
    doubleSeeds: smallest(a.doubleSeeds, b.doubleSeeds),
  };
}

function smallest(a: readonly number[], b: readonly number[]): number[] {
  return [...new Set([...a, ...b])].sort((x, y) => x - y).slice(0, FAILING_SEEDS_KEPT);
}

const FIELDS = ['runs', 'unsafe', 'fenced', 'doubleOwnership', 'lostLock', 'lockout', 'lockoutUs', 'lockoutMaxUs', 'budgetStops'] as const;

/** Checks a tally that came from elsewhere (a worker, a queue) before it is merged: integers, consistent, seeds within range. */
export function isTally(v: unknown): v is Tally {
  if (v === null || typeof v !== 'object') return false;
  const t = v as Record<string, unknown>;
  for (const f of FIELDS) if (!Number.isSafeInteger(t[f]) || (t[f] as number) < 0) return false;
  const seeds = (x: unknown): boolean => Array.isArray(x) && x.length <= FAILING_SEEDS_KEPT && x.every((s) => Number.isSafeInteger(s));
  return seeds(t.unsafeSeeds) && seeds(t.doubleSeeds) && (t.unsafe as number) <= (t.runs as number);
}
