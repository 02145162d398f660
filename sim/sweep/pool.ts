import { availableParallelism } from 'node:os';
import Tinypool from 'tinypool';
import type { Tally } from '../odds/tally.js';
import type { BatchTask } from './batch-task.js';

/** A pool of worker threads that run batches of seeds. */
export class BatchPool {
  private readonly pool: Tinypool;

  constructor(readonly threads: number) {
    this.pool = new Tinypool({
      filename: new URL('./pool-worker.mjs', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      // Threads live for the whole sweep: each one warms its JIT once.
      idleTimeout: 60_000,
      isolateWorkers: false,
    });
  }

  run(task: BatchTask, signal?: AbortSignal): Promise<Tally> {
    return this.pool.run(task, signal === undefined ? {} : { signal }) as Promise<Tally>;
  }

  async close(): Promise<void> {
    this.pool.cancelPendingTasks();
    await this.pool.destroy();
  }
}

/** Every core this process may use. */
export function allCores(): number {
  return availableParallelism();
}
