import { SweepAggregate } from '../odds/aggregate.js';
import type { SweepPlan } from '../odds/plan.js';
import { BatchPool } from './pool.js';

/** Called as batches are counted: seeds done so far of the whole sweep. */
export type OnProgress = (seedsDone: number, seedsTotal: number) => void;

/** The worker processes a sweep of `plan` starts when asked for `threads`: no more than it has batches, as one with no batch to run would only start and stop. */
export function workersFor(plan: SweepPlan, threads: number): number {
  return Math.max(1, Math.min(threads, plan.batches.length));
}

/**
 * Runs every batch of a plan on a pool of worker threads on this machine and
 * merges the counts as they arrive, in whatever order. A signal stops it: the
 * batches counted so far are returned, and the aggregate says it is partial.
 */
export async function sweepLocally(plan: SweepPlan, threads: number, onProgress: OnProgress, signal?: AbortSignal): Promise<SweepAggregate> {
  const agg = new SweepAggregate(plan);
  const total = plan.batches.reduce((n, b) => n + (b.to - b.from + 1), 0);
  const pool = new BatchPool(workersFor(plan, threads));
  try {
    let next = 0;
    // Keep two batches per thread in flight, so no thread waits for the next task.
    const lane = async (): Promise<void> => {
      while (next < plan.batches.length && signal?.aborted !== true) {
        const b = plan.batches[next++]!;
        const tally = await pool.run({ scenario: plan.combinations[b.combo]!.scenario, from: b.from, to: b.to }, signal);
        agg.accept(b.key, tally);
        onProgress(agg.seedsDone, total);
      }
    };
    await Promise.all(Array.from({ length: Math.min(plan.batches.length, threads * 2) }, lane)).catch((err: unknown) => {
      if (signal?.aborted !== true) throw err;
    });
  } finally {
    await pool.close();
  }
  return agg;
}
