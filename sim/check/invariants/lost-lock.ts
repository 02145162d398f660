import type { BeliefInterval, Holding, IntervalTracker } from '../intervals.js';
import { Listed } from '../listed.js';
import type { LostLock } from '../verdict.js';

/**
 * A lock is lost when its holding ends while a client's belief in that very
 * acquisition is still open at that instant: ended other than by release,
 * or released by another process than the believer (a forked child's
 * destructor releasing its parent's lock). A belief that begins at the same
 * microsecond counts too, so the answer for an instant waits until the
 * trace has moved past it.
 */
export class LostLocks {
  readonly found: Listed<LostLock>;
  private readonly pending: Array<{ h: Holding; atUs: number; seq: number; releasedBy: string | undefined }> = [];

  constructor(
    private readonly intervals: IntervalTracker,
    listed: number = Infinity,
  ) {
    this.found = new Listed(listed);
  }

  holdingEnded(h: Holding, atUs: number, seq: number, by: string | undefined): void {
    if (h.how !== 'released') this.pending.push({ h, atUs, seq, releasedBy: undefined });
    else if (by !== undefined) this.pending.push({ h, atUs, seq, releasedBy: by });
  }

  /**
   * Called before each event: settles the losses of every instant before
   * `nowUs`. No closure here: one that captured `nowUs` would have its
   * context made at every call, that is at every event of the run.
   */
  advance(nowUs: number): void {
    if (this.pending.length === 0 || this.pending[0]!.atUs >= nowUs) return;
    this.settle(nowUs);
  }

  finish(): void {
    this.settle(Infinity);
  }

  /** Settles the losses of every instant before `beforeUs`. */
  private settle(beforeUs: number): void {
    // Kept in place, and searched without a closure: this runs after every holding that ended, and made two objects each time.
    const pending = this.pending;
    let kept = 0;
    for (let i = 0; i < pending.length; i++) {
      const p = pending[i]!;
      if (p.atUs >= beforeUs) {
        pending[kept++] = p;
        continue;
      }
      const b = openAt(this.intervals.beliefsOf(p.h.owner), p.atUs, p.releasedBy);
      if (b !== undefined) {
        const h = p.h;
        this.found.push({
          key: h.key,
          client: h.client,
          owner: h.owner,
          atUs: p.atUs,
          how: h.how ?? 'lost',
          reason: p.releasedBy === undefined ? (h.endReason ?? '') : `released by ${p.releasedBy}`,
          seqs: [p.seq, b.startSeq],
        });
      }
    }
    while (pending.length > kept) pending.pop();
  }
}

/** The first of `beliefs` open at `atUs` whose client is not `releasedBy`. */
function openAt(beliefs: readonly BeliefInterval[] | undefined, atUs: number, releasedBy: string | undefined): BeliefInterval | undefined {
  if (beliefs === undefined) return undefined;
  for (const x of beliefs) if (x.startUs <= atUs && (x.endUs === undefined || x.endUs > atUs) && x.client !== releasedBy) return x;
  return undefined;
}
