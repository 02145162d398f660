import fc from 'fast-check';
import { parentPort, workerData } from 'node:worker_threads';
import { TOKEN_KINDS } from '../support/random-scenario.js';
import { fencingTarget } from './fencing-target.js';
import { holds } from './property.js';
import { TARGETS, type Target } from './targets.js';

/*
 * One fuzz worker: runs cases `from` to `to` of one target, case i drawn
 * from seed `seed + i`, and reports each case's start and outcome, so the
 * main thread can bound each case's time and stop a worker that hangs.
 */

export interface Job {
  readonly target: string;
  readonly seed: number;
  readonly from: number;
  readonly to: number;
}

export type WorkerMessage =
  | { type: 'start'; index: number }
  | { type: 'done'; index: number; kind: 'accepted' | 'rejected' | 'unnamed' | 'crashed'; message: string; ms: number }
  | { type: 'finished' };

export const ALL_TARGETS: ReadonlyArray<Target<never>> = [...TARGETS, ...TOKEN_KINDS.map(fencingTarget)] as unknown as ReadonlyArray<Target<never>>;

async function main(job: Job): Promise<void> {
  const target = ALL_TARGETS.find((t) => t.name === job.target);
  if (target === undefined) throw new Error(`no fuzz target named ${job.target}`);
  for (let i = job.from; i < job.to; i++) {
    parentPort!.postMessage({ type: 'start', index: i } satisfies WorkerMessage);
    const started = performance.now();
    const [input] = fc.sample(target.arbitrary, { seed: job.seed + i, numRuns: 1 });
    const outcome = await target.run(input as never);
    const problem = holds(outcome);
    const kind = outcome.kind === 'rejected' ? (outcome.named ? 'rejected' : 'unnamed') : outcome.kind;
    parentPort!.postMessage({ type: 'done', index: i, kind, message: problem ?? '', ms: performance.now() - started } satisfies WorkerMessage);
  }
  parentPort!.postMessage({ type: 'finished' } satisfies WorkerMessage);
}

if (parentPort !== null) void main(workerData as Job);
