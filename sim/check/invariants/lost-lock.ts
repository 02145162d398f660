import type { Holding, IntervalTracker } from '../intervals.js';
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
  private pending: Array<{ h: Holding; atUs: number; seq: number; releasedBy: string | undefined }> = [];

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
    const keep: typeof this.pending = [];
    for (const p of this.pending) {
      if (p.atUs >= beforeUs) {
        keep.push(p);
        continue;
      }
      const beliefs = this.intervals.beliefsOf(p.h.owner) ?? [];
      const b = beliefs.find((x) => x.startUs <= p.atUs && (x.endUs === undefined || x.endUs > p.atUs) && x.client !== p.releasedBy);
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
    this.pending = keep;
  }
}
