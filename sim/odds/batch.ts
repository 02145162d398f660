import { runJob } from '../run.js';
import type { Scenario } from '../scenario/types.js';
import { LockoutMeter } from './lockout.js';
import { addRun, emptyTally, type Tally } from './tally.js';

/**
 * Runs seeds `fromSeed..toSeed` (inclusive) of one normalized scenario and
 * returns their counts. No trace is kept and no run hash computed: a sweep
 * wants the odds, and any seed it names can be re-run with `locklab run`.
 */
export function runBatch(scenario: Scenario, fromSeed: number, toSeed: number): Tally {
  const t = emptyTally();
  for (let seed = fromSeed; seed <= toSeed; seed++) {
    const meter = new LockoutMeter();
    const r = runJob(scenario, seed, { hash: false, observe: (e) => meter.push(e) });
    addRun(t, seed, r, meter.finish(r.intervals), r.intervals);
  }
  return t;
}
