import type { TraceEvent } from '../../trace/types.js';
import { clientOf, type Holding, type IntervalTracker } from '../intervals.js';
import { CheckError } from '../refuse.js';
import type { RefusedHolder, StaleCause, StaleWrite } from '../verdict.js';

/**
 * Safety of the resource: a write is stale when its writer's latest holding
 * had ended, or a newer holder had been granted the same key, before the
 * write reached the resource. Accepted stale writes are damage; rejected
 * ones are fencing doing its job. A write refused although its writer still
 * held the lock is reported apart: fencing without a token refuses good
 * writes too.
 */
export class StaleWrites {
  readonly found: StaleWrite[] = [];
  readonly refusedHolders: RefusedHolder[] = [];

  constructor(private readonly intervals: IntervalTracker) {}

  write(e: TraceEvent): void {
    if (e.owner === undefined)
      throw new CheckError(e.seq, 'owner', `${e.kind} must name the writer's owner token: the checker judges each write by its writer's lock`);
    const client = e.peer ?? clientOf(e.owner);
    const cause = this.staleness(e.owner, e.timeUs);
    if (cause === undefined) {
      if (e.kind === 'write.rejected') this.refusedHolders.push({ seq: e.seq, timeUs: e.timeUs, client, owner: e.owner, seqs: [e.seq] });
      return;
    }
    this.found.push({
      seq: e.seq,
      timeUs: e.timeUs,
      client,
      owner: e.owner,
      fence: e.fence ?? null,
      accepted: e.kind === 'write.accepted',
      cause,
      seqs: cause.kind === 'never-held' ? [e.seq] : [e.seq, cause.seq],
    });
  }

  /** Why a write at `t` by `owner` was stale, or undefined when its writer still solely held the lock. */
  private staleness(owner: string, t: number): StaleCause | undefined {
    // The writer's latest holding that began before the write (holdings are in start order).
    const mine = this.intervals.holdingsByOwner.get(owner)?.findLast((h) => h.startUs <= t);
    if (mine === undefined) return { kind: 'never-held' };
    if (mine.endUs !== undefined && mine.endUs <= t) {
      return { kind: 'ended', atUs: mine.endUs, how: mine.how ?? 'lost', reason: mine.endReason ?? null, seq: mine.endSeq! };
    }
    const sameKey = this.intervals.holdingsByKey.get(mine.key) ?? [];
    for (let i = positionOf(sameKey, mine) + 1; i < sameKey.length && sameKey[i]!.startUs <= t; i++) {
      const newer = sameKey[i]!;
      if (newer.owner !== owner && !newer.shared)
        return { kind: 'superseded', atUs: newer.startUs, client: newer.client, owner: newer.owner, seq: newer.startSeq };
    }
    return undefined;
  }
}

/** Where `h` stands among holdings in start order, by binary search on the grant's seq. */
function positionOf(list: readonly Holding[], h: Holding): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = list[mid]!.startSeq;
    if (s === h.startSeq) return mid;
    if (s < h.startSeq) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
