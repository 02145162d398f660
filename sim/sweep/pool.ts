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

/** The V8 flags a worker process starts with (see BatchPool), for the bench to run as a worker does. */
export const WORKER_EXEC_ARGV: readonly string[] = ['--single-threaded-gc', '--no-allocation-site-pretenuring'];

/**
 * A pool of worker processes that run batches of seeds. Processes rather
 * than threads, each with V8's garbage collector on its own thread
 * (`--single-threaded-gc`): in one process every thread's collector shares
 * helper threads that take a second core, so one worker thread already used
 * about 1.3 cores and two scaled to 0.66 of twice one; two processes so
 * made scale to about 0.9, and run about twice as many seeds a second
 * (docs/decisions/0011-sweep-workers-are-processes.md). A batch's task and
 * its counts are small, so the pipe between costs little.
 *
 * Nor do they let V8 pretenure by allocation site
 * (`--no-allocation-site-pretenuring`): a worker makes thousands of small
 * runs, each a graph of objects that dies with the run, and once V8 decides
 * such objects live long it allocates them where only a full collection
 * frees them, and every young object they point to survives each
 * scavenge with them. A pause-past-expiry batch ran at about 27,000 seeds/s
 * in one worker so, 35,000 without (medians of five interleaved runs).
 */
export class BatchPool {
  private readonly pool: Tinypool;

  constructor(readonly threads: number) {
    this.pool = new Tinypool({
      filename: workerModule().href,
      runtime: 'child_process',
      execArgv: [...WORKER_EXEC_ARGV],
      minThreads: threads,
      maxThreads: threads,
      // Workers live for the whole sweep: each one warms its JIT once.
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
