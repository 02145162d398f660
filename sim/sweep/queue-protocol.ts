import type { Tally } from '../odds/tally.js';
import type { Scenario } from '../scenario/types.js';

/** The BullMQ queue every sweep and worker meet on. */
export const QUEUE_NAME = 'locklab-sweep';

/** A job: one batch of seeds of one scenario, with the code version that planned it. */
export interface BatchJob {
  readonly sweepId: string;
  readonly codeVersion: string;
  readonly key: string;
  readonly scenario: Scenario;
  readonly from: number;
  readonly to: number;
}

/** What a worker returns: the counts, who ran them and how long it took. */
export interface BatchResult {
  readonly key: string;
  readonly tally: Tally;
  readonly worker: string;
  readonly ms: number;
}

/** How a worker's refusal of another code version starts, so the sweep can tell it from a crash. */
export const VERSION_REFUSAL = 'code version mismatch:';
