import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import Tinypool from 'tinypool';
import type { Tally } from '../odds/tally.js';
import type { BatchTask } from './batch-task.js';

/**
 * The module a worker thread loads. From the sources (tests, `npm run
 * locklab`) it is a small loader that registers tsx; in the compiled command
 * (dist/lib, `npm run build:lib`) it is the compiled batch runner beside it.
 */
function workerModule(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL('./pool-worker.mjs', here);
  for (const candidate of ['./sweep-worker.js', '../sweep-worker.js']) {
    const url = new URL(candidate, here);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new Error(`the compiled sweep worker (sweep-worker.js) is missing beside ${fileURLToPath(here)}: run \`npm run build:lib\``);
}

/** A pool of worker threads that run batches of seeds. */
export class BatchPool {
  private readonly pool: Tinypool;

  constructor(readonly threads: number) {
    this.pool = new Tinypool({
      filename: workerModule().href,
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
