/**
 * Sweep figures for `npm run bench`: seeds per second of a pause-past-expiry
 * sweep on the worker pool at one and two worker processes (and the parallel
 * efficiency between them), and what the BullMQ queue adds per batch over
 * the local pool, measured against a redis-server started on loopback.
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { planSweep, type SweepPlan } from '../sim/odds/plan.js';
import { parseSeedRange } from '../sim/odds/range.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { BatchPool } from '../sim/sweep/pool.js';
import { sweepOnQueue } from '../sim/sweep/queue-coordinator.js';
import { startQueueWorker } from '../sim/sweep/queue-worker.js';
import { parseRedisUrl } from '../sim/sweep/redis-url.js';
import { codeVersion } from '../sim/sweep/version.js';
import { RedisServer } from '../test/support/redis-server.js';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function plan(seeds: number, batchSize: number): SweepPlan {
  const base = normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry');
  return planSweep({
    scenarioRef: 'pause-past-expiry',
    base,
    sets: [],
    varies: [],
    seeds: parseSeedRange(`1..${seeds}`),
    codeVersion: codeVersion(),
    batchSize,
  });
}

interface Rate {
  /** Seeds per second of wall-clock time. */
  readonly wall: number;
  /**
   * Seeds per second of the machine's busy CPU time (every process: the
   * workers are processes of their own): what the pool gets done per core
   * it keeps busy. On a shared machine it counts the others' work too.
   */
  readonly cpu: number;
}

/** Milliseconds every core of the machine has spent busy since boot. */
function machineBusyMs(): number {
  return cpus().reduce((ms, c) => ms + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0);
}

/** Seeds per second on a warm pool: every batch of the plan, two in flight per worker. */
async function warmRate(pool: BatchPool, threads: number, p: SweepPlan, inFlightPerThread = 2): Promise<Rate> {
  const scenario = p.combinations[0]!.scenario;
  let next = 0;
  const busy0 = machineBusyMs();
  const t0 = performance.now();
  const lane = async (): Promise<void> => {
    while (next < p.batches.length) {
      const b = p.batches[next++]!;
      await pool.run({ scenario, from: b.from, to: b.to });
    }
  };
  await Promise.all(Array.from({ length: threads * inFlightPerThread }, lane));
  const seeds = p.seeds.to - p.seeds.from + 1;
  const wallS = (performance.now() - t0) / 1000;
  return { wall: seeds / wallS, cpu: seeds / ((machineBusyMs() - busy0) / 1000) };
}

async function poolRates(threads: number, reps: number): Promise<Rate[]> {
  const pool = new BatchPool(threads);
  try {
    await warmRate(pool, threads, plan(4000, 500)); // JIT warm-up in every thread
    const rates: Rate[] = [];
    for (let i = 0; i < reps; i++) rates.push(await warmRate(pool, threads, plan(40_000, 1000)));
    return rates;
  } finally {
    await pool.close();
  }
}

export async function runSweepBench(): Promise<Record<string, unknown>> {
  const reps = 5;
  const one = await poolRates(1, reps);
  const two = await poolRates(2, reps);
  const r1 = median(one.map((r) => r.wall));
  const r2 = median(two.map((r) => r.wall));
  const c1 = median(one.map((r) => r.cpu));
  const c2 = median(two.map((r) => r.cpu));

  // The same batches on a warm local thread and through Redis to one warm `locklab worker` thread, one batch in flight each, run
  // in alternation so both see the same load on a shared machine. Batches of one seed make the computing negligible, so the
  // difference per batch is what the queue costs (a sweep's real batches hold hundreds or thousands of seeds).
  const batches = 200;
  const batchSize = 1;
  const p = plan(batches * batchSize, batchSize);
  const pairs: Array<{ localMs: number; queueMs: number }> = [];
  const redis = await RedisServer.start();
  const pool = new BatchPool(1);
  try {
    const target = parseRedisUrl(redis.url);
    const worker = await startQueueWorker(target, { threads: 1, codeVersion: codeVersion(), lockMs: 10_000, log: () => undefined });
    try {
      await sweepOnQueue(plan(400, 2), target, () => undefined); // warm the worker's thread
      await warmRate(pool, 1, plan(400, 2), 1);
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        await warmRate(pool, 1, p, 1);
        const t1 = performance.now();
        await sweepOnQueue(p, target, () => undefined);
        pairs.push({ localMs: t1 - t0, queueMs: performance.now() - t1 });
      }
    } finally {
      await worker.close();
    }
  } finally {
    await pool.close();
    await redis.stop();
  }
  const localMs = median(pairs.map((x) => x.localMs));
  const queueMs = median(pairs.map((x) => x.queueMs));
  const overheadPerBatch = median(pairs.map((x) => (x.queueMs - x.localMs) / batches));
  return {
    workload: 'pause-past-expiry, seeds 1..40000 in batches of 1000, counts only (no traces), warm worker processes',
    seedsPerSec1Worker: Math.round(r1),
    seedsPerSec2Workers: Math.round(r2),
    parallelEfficiency: Math.round((r2 / (2 * r1)) * 100) / 100,
    targetParallelEfficiency: 0.85,
    // Wall-clock efficiency needs two idle cores; the busy-CPU rates say whether the pool itself scales (1.0: no loss per worker).
    cpuSeedsPerSec1Worker: Math.round(c1),
    cpuSeedsPerSec2Workers: Math.round(c2),
    cpuEfficiency: Math.round((c2 / c1) * 100) / 100,
    loadAverage1m: Math.round(loadavg()[0]! * 10) / 10,
    cores: availableParallelism(),
    samples: { oneWorker: one.map((r) => Math.round(r.wall)), twoWorkers: two.map((r) => Math.round(r.wall)) },
    queue: {
      workload: `${batches} batches of one seed, one worker process and one batch in flight either way, redis-server on loopback`,
      localPoolMs: Math.round(localMs),
      bullmqMs: Math.round(queueMs),
      overheadPerBatchMs: Math.round(overheadPerBatch * 100) / 100,
      pairs: pairs.map((x) => ({ localMs: Math.round(x.localMs), queueMs: Math.round(x.queueMs) })),
    },
  };
}
