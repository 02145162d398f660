import { Queue } from 'bullmq';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SweepReport } from '../sim/odds/report.js';
import { eventsFromNow } from '../sim/sweep/queue-coordinator.js';
import { QUEUE_NAME } from '../sim/sweep/queue-protocol.js';
import { connectionOf, parseRedisUrl } from '../sim/sweep/redis-url.js';
import { cli } from './support/cli.js';
import { RedisServer } from './support/redis-server.js';

/*
 * Sweeps across processes on a real Redis: a redis-server on a free loopback
 * port, `locklab worker` processes taking batches from it, and a sweep that
 * must count exactly what a local sweep counts, also when a worker is killed
 * in the middle of a batch.
 */

interface WorkerProcess {
  readonly child: ChildProcess;
  log: string;
  readonly exited: Promise<number | null>;
}

let redis: RedisServer;
const workers: WorkerProcess[] = [];

function startWorker(env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'sim/cli/start.ts', 'worker', '--queue', redis.url, '--threads', '1', '--lock-ms', '1500'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  const w: WorkerProcess = { child, log: '', exited: new Promise((r) => child.once('exit', (code) => r(code))) };
  workers.push(w);
  child.stderr!.on('data', (d: Buffer) => (w.log += d.toString()));
  return waitFor(w, /takes batches from/, 30_000).then(() => w);
}

/** Waits until the worker's log matches, or fails after `ms`. */
async function waitFor(w: WorkerProcess, pattern: RegExp, ms: number, from = 0): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pattern.test(w.log.slice(from))) {
    if (Date.now() > deadline) throw new Error(`worker log never matched ${pattern}:\n${w.log}`);
    if (w.child.exitCode !== null) throw new Error(`worker exited (${w.child.exitCode}) before its log matched ${pattern}:\n${w.log}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function stopWorkers(): Promise<void> {
  for (const w of workers.splice(0)) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
    const timer = setTimeout(() => w.child.kill('SIGKILL'), 10_000);
    await w.exited;
    clearTimeout(timer);
  }
}

const SWEEP = ['sweep', 'pause-past-expiry', '--seeds', '1..4000', '--vary', 'faults[0].durationMs=8800..9200:200', '--json'];
let local: string;

beforeAll(async () => {
  redis = await RedisServer.start();
  local = (await cli(...SWEEP, '--workers', '1')).out;
});
afterEach(stopWorkers);
afterAll(async () => {
  await stopWorkers();
  await redis?.stop();
});

describe('locklab sweep --queue with locklab worker processes', () => {
  it('counts exactly what a local sweep counts, and reports each worker', async () => {
    const [a, b] = await Promise.all([startWorker(), startWorker()]);
    const r = await cli(...SWEEP, '--queue', redis.url, '--batch', '250');
    expect(r.code).toBe(0);
    expect(r.out).toBe(local);
    expect((JSON.parse(r.out) as SweepReport).runs).toBe(12000);
    // Both workers took part, and the sweep says how fast each one went.
    for (const w of [a!, b!]) expect(w.log).toMatch(/batch .* started: seeds/);
    expect(r.err.match(/^worker \S+: [\d,]+ runs in \d+ batch(es)?, [\d,]+ runs\/s while busy$/gm)).toHaveLength(2);
  });

  it('survives a worker killed in the middle of a batch: the batch runs again elsewhere and counts once', async () => {
    const [victim] = await Promise.all([startWorker(), startWorker()]);
    const mark = victim!.log.length;
    const sweep = cli(...SWEEP, '--queue', redis.url, '--batch', '1000');
    await waitFor(victim!, /batch .* started: seeds/, 30_000, mark);
    victim!.child.kill('SIGKILL');
    const r = await sweep;
    expect(r.code).toBe(0);
    expect(await victim!.exited).toBe(null);
    expect(r.out).toBe(local);
    expect(r.err).toMatch(/^1 batch retried after a worker stopped mid-batch$/m);
  });

  it('refuses a worker of another code version, naming both versions', async () => {
    const stale = await startWorker({ LOCKLAB_CODE_VERSION: '0.0.1+0123456789ab' });
    const r = await cli('sweep', 'pause-past-expiry', '--seeds', '1..100', '--queue', redis.url);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(
      new RegExp(
        `^locklab: --queue: ${redis.url}: a worker refused this sweep, worker \\S+ runs 0\\.0\\.1\\+0123456789ab, the sweep was planned by \\d+\\.\\d+\\.\\d+\\+[0-9a-f]{12}$`,
        'm',
      ),
    );
    expect(await stale.exited).toBe(2);
    expect(stale.log).toContain('this worker refused a sweep of another code version');
  });

  it("hears every event after the sweep began, also those written before its reader's first read reached Redis", async () => {
    const target = parseRedisUrl(redis.url);
    const queue = new Queue(QUEUE_NAME, { connection: connectionOf(target) });
    const heard: string[] = [];
    await queue.add('probe', {}, { jobId: 'probe-before' });
    const events = await eventsFromNow(target);
    try {
      events.on('added', ({ jobId }) => heard.push(jobId));
      // Written after the sweep began but before its reader runs: what a fast worker's refusal is.
      await queue.add('probe', {}, { jobId: 'probe-after' });
      void events.run();
      const deadline = Date.now() + 10_000;
      while (!heard.includes('probe-after') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      expect(heard).toEqual(['probe-after']);
    } finally {
      await Promise.all(['probe-before', 'probe-after'].map((id) => queue.remove(id)));
      await events.close();
      await queue.close();
    }
  });
});
