import { Queue, QueueEvents, QueueKeys } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { InputError } from '../errors.js';
import { SweepAggregate } from '../odds/aggregate.js';
import type { SweepPlan } from '../odds/plan.js';
import type { OnProgress } from './local.js';
import { QUEUE_NAME, VERSION_REFUSAL, type BatchJob, type BatchResult } from './queue-protocol.js';
import { connectionOf, probeRedis, type RedisTarget } from './redis-url.js';

/** Seeds and busy time per worker, for the throughput report. */
export interface WorkerShare {
  readonly worker: string;
  seeds: number;
  batches: number;
  ms: number;
}

export interface QueueSweep {
  readonly aggregate: SweepAggregate;
  readonly workers: readonly WorkerShare[];
  /** Batches whose worker vanished mid-batch and that were put back on the queue. */
  readonly stalled: number;
  /** Results that arrived for a batch already counted. */
  readonly duplicates: number;
}

/**
 * A reader of the queue's events that starts right after the newest event
 * there now, and is not yet running. BullMQ's own default starts at whatever
 * is newest when its first read reaches Redis, a round trip after it is made:
 * a batch refused or finished in that gap was never heard of, and the sweep
 * waited for it for ever.
 */
export async function eventsFromNow(target: RedisTarget): Promise<QueueEvents> {
  const lastEventId = await probeRedis(target, '--queue', new QueueKeys().toKey(QUEUE_NAME, 'events'));
  return new QueueEvents(QUEUE_NAME, { connection: connectionOf(target), lastEventId, autorun: false });
}

/** How many times a batch is tried before the sweep gives up on it. */
const ATTEMPTS = 5;

/**
 * Puts every batch of the plan on the BullMQ queue and merges what the
 * workers return. A worker that dies mid-batch loses its lock; another
 * worker's stalled-job check puts the batch back, and it runs again
 * elsewhere. Results are keyed by batch, so a batch that completes twice
 * counts once.
 */
export async function sweepOnQueue(plan: SweepPlan, target: RedisTarget, onProgress: OnProgress, signal?: AbortSignal): Promise<QueueSweep> {
  const events = await eventsFromNow(target);
  const connection = connectionOf(target);
  const sweepId = randomUUID();
  const queue = new Queue<BatchJob, BatchResult>(QUEUE_NAME, { connection });
  const agg = new SweepAggregate(plan);
  const total = plan.batches.reduce((n, b) => n + (b.to - b.from + 1), 0);
  const workers = new Map<string, WorkerShare>();
  const jobIds = plan.batches.map((_, i) => `${sweepId}-${i}`);
  const mine = new Set(jobIds);
  let stalled = 0;
  let duplicates = 0;
  const pending = new Set<string>();

  try {
    await events.waitUntilReady();
    const finished = new Promise<void>((resolve, reject) => {
      const onAbort = (): void => resolve();
      signal?.addEventListener('abort', onAbort, { once: true });
      events.on('completed', ({ jobId, returnvalue }) => {
        if (!mine.has(jobId)) return;
        const r = (typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue) as BatchResult;
        try {
          if (agg.accept(r.key, r.tally) === 'duplicate') duplicates++;
          else {
            const w = workers.get(r.worker) ?? { worker: r.worker, seeds: 0, batches: 0, ms: 0 };
            w.seeds += r.tally.runs;
            w.batches++;
            w.ms += r.ms;
            workers.set(r.worker, w);
          }
        } catch (err) {
          reject(err as Error);
          return;
        }
        pending.delete(jobId);
        onProgress(agg.seedsDone, total);
        if (agg.complete) resolve();
      });
      events.on('stalled', ({ jobId }) => {
        if (mine.has(jobId)) stalled++;
      });
      events.on('failed', ({ jobId, failedReason }) => {
        if (!mine.has(jobId)) return;
        if (failedReason.startsWith(VERSION_REFUSAL))
          reject(
            new InputError('--queue', [
              { path: '', message: `${target.url}: a worker refused this sweep, ${failedReason.slice(VERSION_REFUSAL.length).trim()}` },
            ]),
          );
        else
          void queue.getJob(jobId).then((job) => {
            // A failed attempt is retried by BullMQ; only the last one ends the sweep.
            if (job === undefined || job.attemptsMade >= ATTEMPTS)
              reject(new Error(`batch ${jobId} failed ${ATTEMPTS} times on the workers, last: ${failedReason}`));
          });
      });
      events.run().catch((err: unknown) => reject(err as Error));
    });
    for (const id of jobIds) pending.add(id);
    await queue.addBulk(
      plan.batches.map((b, i) => ({
        name: 'batch',
        data: { sweepId, codeVersion: plan.codeVersion, key: b.key, scenario: plan.combinations[b.combo]!.scenario, from: b.from, to: b.to },
        opts: { jobId: jobIds[i]!, attempts: ATTEMPTS, removeOnComplete: { age: 600 }, removeOnFail: { age: 3600 } },
      })),
    );
    await finished;
    return { aggregate: agg, workers: [...workers.values()].sort((a, b) => (a.worker < b.worker ? -1 : 1)), stalled, duplicates };
  } finally {
    // Batches nobody took yet are taken back, so a stopped sweep leaves no work behind on the queue.
    await Promise.all([...pending].map((id) => queue.remove(id).catch(() => 0)));
    await events.close();
    await queue.close();
  }
}
