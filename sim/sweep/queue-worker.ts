import { UnrecoverableError, Worker } from 'bullmq';
import { hostname } from 'node:os';
import { BatchPool } from './pool.js';
import { QUEUE_NAME, VERSION_REFUSAL, type BatchJob, type BatchResult } from './queue-protocol.js';
import { connectionOf, probeRedis, type RedisTarget } from './redis-url.js';

export interface QueueWorkerOptions {
  readonly threads: number;
  readonly codeVersion: string;
  /** How long a batch's lock lasts without renewal: after this a dead worker's batch goes back on the queue. */
  readonly lockMs: number;
  /** Lines for the operator: ready, each batch, refusals. */
  readonly log: (line: string) => void;
}

export interface RunningWorker {
  readonly name: string;
  /** Resolves when the worker stops: `refused` when it met a sweep of another code version. */
  readonly stopped: Promise<'closed' | 'refused'>;
  close(): Promise<void>;
}

/**
 * Takes batches from the queue and runs them on a pool of threads. The
 * batches run off the main thread, so the worker keeps renewing its locks
 * while it computes; a worker that dies stops renewing, and its batch goes
 * back on the queue for another worker.
 */
export async function startQueueWorker(target: RedisTarget, o: QueueWorkerOptions): Promise<RunningWorker> {
  await probeRedis(target);
  const name = `${hostname()}:${process.pid}`;
  const pool = new BatchPool(o.threads);
  let resolveStopped: (how: 'closed' | 'refused') => void = () => undefined;
  const stopped = new Promise<'closed' | 'refused'>((r) => (resolveStopped = r));
  let refused = false;

  const worker = new Worker<BatchJob, BatchResult>(
    QUEUE_NAME,
    async (job) => {
      const d = job.data;
      if (d.codeVersion !== o.codeVersion) {
        const why = `${VERSION_REFUSAL} worker ${name} runs ${o.codeVersion}, the sweep was planned by ${d.codeVersion}`;
        refused = true;
        o.log(`refused batch ${d.key}: ${why.slice(VERSION_REFUSAL.length).trim()}`);
        setImmediate(() => void close());
        throw new UnrecoverableError(why);
      }
      o.log(`batch ${job.id} started: seeds ${d.from}..${d.to}`);
      const started = performance.now();
      const tally = await pool.run({ scenario: d.scenario, from: d.from, to: d.to });
      return { key: d.key, tally, worker: name, ms: Math.round(performance.now() - started) };
    },
    {
      connection: connectionOf(target),
      concurrency: o.threads,
      lockDuration: o.lockMs,
      stalledInterval: Math.max(500, Math.floor(o.lockMs / 2)),
      maxStalledCount: 10,
    },
  );
  worker.on('error', (err) => o.log(`queue error: ${err.message}`));
  await worker.waitUntilReady();
  o.log(`worker ${name} takes batches from ${target.url} (${o.threads} thread${o.threads === 1 ? '' : 's'}, code version ${o.codeVersion})`);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await worker.close();
      await pool.close();
      resolveStopped(refused ? 'refused' : 'closed');
    })();
    return closing;
  };
  return { name, stopped, close };
}
