import { runBatch } from '../odds/batch.js';
import type { Tally } from '../odds/tally.js';
import type { Scenario } from '../scenario/types.js';

/** What the pool sends a worker thread: a normalized scenario and seeds from..to. */
export interface BatchTask {
  readonly scenario: Scenario;
  readonly from: number;
  readonly to: number;
}

/** Runs in a worker thread; returns counts only, never traces. */
export function runBatchTask(task: BatchTask): Tally {
  return runBatch(task.scenario, task.from, task.to);
}

/** The compiled worker thread's entry (`sweep-worker.js` in dist/lib): tinypool calls the default export. */
export default runBatchTask;
