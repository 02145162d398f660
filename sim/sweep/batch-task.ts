import { runBatch } from '../odds/batch.js';
import type { Tally } from '../odds/tally.js';
import type { Scenario } from '../scenario/types.js';

/** What the pool sends a worker thread: a normalized scenario and seeds from..to. */
export interface BatchTask {
  readonly scenario: Scenario;
  readonly from: number;
  readonly to: number;
}

// Ctrl-C at a terminal reaches the whole process group: the sweep stops its workers itself, after printing what they counted.
process.on('SIGINT', () => undefined);

/** Runs in a worker process; returns counts only, never traces. */
export function runBatchTask(task: BatchTask): Tally {
  return runBatch(task.scenario, task.from, task.to);
}

/** The compiled worker thread's entry (`sweep-worker.js` in dist/lib): tinypool calls the default export. */
export default runBatchTask;
