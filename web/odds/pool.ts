import { SweepAggregate } from '../../sim/odds/aggregate.js';
import type { SweepPlan } from '../../sim/odds/plan.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { WorkerInputError } from '../worker/client.js';
import type { OddsReply, OddsRequest } from './protocol.js';

type Body<T> = T extends unknown ? Omit<T, 'id'> : never;

/** One Web Worker and the requests waiting on it. */
class OddsWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, (r: OddsReply) => void>();
  private nextId = 1;

  constructor(index: number) {
    this.worker = new Worker(new URL('./odds.worker.ts', import.meta.url), { type: 'module', name: `locklab-odds-${index}` });
    this.worker.onmessage = (ev: MessageEvent<OddsReply>) => {
      const resolve = this.pending.get(ev.data.id);
      this.pending.delete(ev.data.id);
      resolve?.(ev.data);
    };
  }

  call(body: Body<OddsRequest>): Promise<OddsReply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ ...body, id } as OddsRequest);
    });
  }

  terminate(): void {
    this.worker.terminate();
    for (const resolve of this.pending.values()) resolve({ id: 0, ok: false, source: 'sweep', issues: [{ path: '', message: 'stopped' }] });
    this.pending.clear();
  }
}

/** The browser's cores, as it admits to them (at least one, at most eight: more only crowds a laptop). */
export function browserCores(): number {
  return Math.max(1, Math.min(8, navigator.hardwareConcurrency || 2));
}

export interface SweepProgress {
  readonly agg: SweepAggregate;
  readonly elapsedMs: number;
}

/**
 * Workers that finished a sweep, kept for the next: a worker that has run
 * thousands of seeds has its code compiled, and a new one loads its module
 * and runs its first seeds interpreted, which on this lab's bench took
 * more of a sweep than the runs after them.
 */
const idle: OddsWorker[] = [];
let made = 0;

/** Starts the workers a sweep will want, so that they load while the form is filled in. */
export function warmWorkers(threads: number = browserCores()): void {
  while (idle.length < threads) idle.push(new OddsWorker(made++));
}

/** Lets go of the idle workers (the Odds view does when it closes with no sweep running). */
export function releaseWorkers(): void {
  for (const w of idle.splice(0)) w.terminate();
}

/**
 * A sweep on Web Workers, one per core: each worker keeps one batch in
 * flight and takes the next as soon as it answers, and every answer is
 * merged at once, so the plot fills in as counts arrive. A sweep that ends
 * hands its workers back for the next one; stopping terminates them, and
 * what was counted stays, marked partial.
 */
export class OddsSweep {
  private readonly workers: OddsWorker[];
  private stopped = false;

  constructor(readonly threads: number = browserCores()) {
    this.workers = Array.from({ length: threads }, () => idle.pop() ?? new OddsWorker(made++));
  }

  async run(plan: SweepPlan, onProgress: (p: SweepProgress) => void): Promise<SweepProgress> {
    const agg = new SweepAggregate(plan);
    const started = performance.now();
    let next = 0;
    const lane = async (w: OddsWorker): Promise<void> => {
      while (!this.stopped && next < plan.batches.length) {
        const b = plan.batches[next++]!;
        const r = await w.call({ type: 'batch', scenario: plan.combinations[b.combo]!.scenario, from: b.from, to: b.to });
        if (this.stopped) return;
        if (!r.ok) throw new WorkerInputError(r.source, r.issues);
        if (r.type !== 'batch') throw new Error('a sweep worker answered a batch with something else');
        agg.accept(b.key, r.tally);
        onProgress({ agg, elapsedMs: performance.now() - started });
      }
    };
    try {
      await Promise.all(this.workers.map(lane));
    } catch (err) {
      // The other workers may be in the middle of a batch: they go, as on a stop.
      this.stop();
      throw err;
    }
    if (!this.stopped) idle.push(...this.workers);
    return { agg, elapsedMs: performance.now() - started };
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.workers) w.terminate();
  }
}

/** Shrinks one failing run in a worker of its own. */
export async function shrinkInWorker(scenario: Scenario, seed: number): Promise<{ scenario: Scenario; changes: string[]; runs: number }> {
  const w = new OddsWorker(0);
  try {
    const r = await w.call({ type: 'shrink', scenario, seed });
    if (!r.ok) throw new WorkerInputError(r.source, r.issues);
    if (r.type !== 'shrink') throw new Error('a sweep worker answered a shrink with something else');
    return r;
  } finally {
    w.terminate();
  }
}
