import type { TraceEvent } from '../../trace/types.js';
import { clientOf, type IntervalTracker } from '../intervals.js';
import { Listed } from '../listed.js';
import { CheckError } from '../refuse.js';
import type { RefusedHolder, StaleCause, StaleWrite, UnprotectedWrite } from '../verdict.js';

/**
 * Safety of the resource: a write is stale when a newer holder had been
 * granted the same key before it reached the resource, after its writer's
 * latest holding began (whether or not that holding had ended), or when
 * its writer never held the lock. Accepted stale writes are damage;
 * rejected ones are fencing doing its job. A write after its writer's own
 * holding ended, with nobody granted the key since, overwrote nobody's
 * work: it is reported apart, as unprotected. A write refused although its
 * writer still held the lock is reported apart too: fencing without a
 * token refuses good writes as well.
 */
export class StaleWrites {
  readonly found: Listed<StaleWrite>;
  readonly refusedHolders: Listed<RefusedHolder>;
  readonly unprotected: Listed<UnprotectedWrite>;
  /** Whether any stale write was found, and whether any was accepted: the outcome, listed or not. */
  anyStale = false;
  anyAccepted = false;
  /** The highest fencing token the resource has accepted so far. */
  private highestSeen: number | null = null;

  constructor(
    private readonly intervals: IntervalTracker,
    listed: number = Infinity,
  ) {
    this.found = new Listed(listed);
    this.refusedHolders = new Listed(listed);
    this.unprotected = new Listed(listed);
  }

  write(e: TraceEvent): void {
    if (e.owner === undefined)
      throw new CheckError(e.seq, 'owner', `${e.kind} must name the writer's owner token: the checker judges each write by its writer's lock`);
    const client = e.peer ?? clientOf(e.owner);
    const accepted = e.kind === 'write.accepted';
    const seen = this.highestSeen;
    if (accepted && e.fence !== undefined && (seen === null || e.fence > seen)) this.highestSeen = e.fence;
    const mine = this.intervals.holdingsOf(e.owner)?.findLast((h) => h.startUs <= e.timeUs);
    const newer = mine === undefined ? undefined : this.intervals.newerHolder(mine, e.timeUs);
    const fence = e.fence ?? null;
    if (mine !== undefined && newer === undefined) {
      if (mine.endUs === undefined || mine.endUs > e.timeUs) {
        if (!accepted) this.refusedHolders.push({ seq: e.seq, timeUs: e.timeUs, client, owner: e.owner, seqs: [e.seq] });
        return;
      }
      this.unprotected.push({
        seq: e.seq,
        timeUs: e.timeUs,
        client,
        owner: e.owner,
        fence,
        endedUs: mine.endUs,
        how: mine.how ?? 'lost',
        reason: mine.endReason ?? null,
        seqs: [e.seq, mine.endSeq!],
      });
      return;
    }
    const cause: StaleCause =
      mine === undefined
        ? { kind: 'never-held' }
        : mine.endUs !== undefined && mine.endUs <= e.timeUs
          ? { kind: 'ended', atUs: mine.endUs, how: mine.how ?? 'lost', reason: mine.endReason ?? null, seq: mine.endSeq! }
          : { kind: 'superseded', atUs: newer!.startUs, client: newer!.client, owner: newer!.owner, seq: newer!.startSeq };
    this.anyStale = true;
    if (accepted) this.anyAccepted = true;
    this.found.push({
      seq: e.seq,
      timeUs: e.timeUs,
      client,
      owner: e.owner,
      fence,
      accepted,
      cause,
      newer: newer === undefined ? null : { client: newer.client, owner: newer.owner, fence: newer.fence ?? null, atUs: newer.startUs, seq: newer.startSeq },
      highestSeen: seen,
      seqs: cause.kind === 'never-held' ? [e.seq] : [e.seq, cause.seq],
    });
  }
}
