import { canonicalJson } from '../trace/hash.js';
import type { Batch, SweepPlan } from './plan.js';
import { emptyTally, isTally, mergeTally, type Tally } from './tally.js';

/** What happened to a batch result handed to the aggregate. */
export type Accepted = 'counted' | 'duplicate';

/**
 * Merges batch results into one tally per combination. Results are keyed by
 * batch (code version, scenario hash, seed range): a batch that comes back
 * twice — retried after its worker vanished, say — is counted once, and its
 * two results must agree, since a run is deterministic.
 */
export class SweepAggregate {
  private readonly tallies: Tally[];
  private readonly results = new Map<string, string>();
  private readonly byKey = new Map<string, Batch>();
  seedsDone = 0;

  constructor(readonly plan: SweepPlan) {
    this.tallies = plan.combinations.map(() => emptyTally());
    for (const b of plan.batches) this.byKey.set(b.key, b);
  }

  get batchesDone(): number {
    return this.results.size;
  }

  get complete(): boolean {
    return this.results.size === this.plan.batches.length;
  }

  /** Counts one batch's tally, once. Throws on a result that does not fit its batch: it came from broken or foreign code. */
  accept(key: string, tally: unknown): Accepted {
    const batch = this.byKey.get(key);
    if (batch === undefined) throw new Error(`a result for batch ${key}, which is not part of this sweep`);
    if (!isTally(tally) || tally.runs !== batch.to - batch.from + 1)
      throw new Error(`the result for batch ${key} is not a tally of ${batch.to - batch.from + 1} runs`);
    const text = canonicalJson(tally);
    const before = this.results.get(key);
    if (before !== undefined) {
      if (before !== text) throw new Error(`batch ${key} came back twice with different counts: the simulation is not deterministic`);
      return 'duplicate';
    }
    this.results.set(key, text);
    this.tallies[batch.combo] = mergeTally(this.tallies[batch.combo]!, tally);
    this.seedsDone += tally.runs;
    return 'counted';
  }

  tally(combo: number): Tally {
    return this.tallies[combo]!;
  }
}
