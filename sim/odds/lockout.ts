import type { IntervalTracker } from '../check/intervals.js';
import type { TraceEvent } from '../trace/types.js';

/*
 * Lock-out time: how long the store held a lock for an owner that was not
 * using it — it had crashed, stopped believing without releasing (no finally,
 * a failed check), its release failed, or it never heard it had been granted.
 * For that time every other client was kept out for nothing: the price of a
 * long TTL (the lesson's "TTL too long"). A holder that is merely paused still
 * believes, so a GC pause is not lock-out; that is the double-ownership side.
 *
 * The holdings come from the checker's own derivation of intervals; this
 * meter only notes, event by event, since when each owner stopped using its
 * lock.
 */

/** Measures a run's lock-out time: feed it the run's events, then its intervals. */
export class LockoutMeter {
  /** Owner token → stretches of true time [fromUs, toUs) in which nobody used its lock; toUs undefined while still idle. */
  private readonly idle = new Map<string, Array<{ fromUs: number; toUs: number | undefined }>>();
  /** Client → the owner token it currently believes it holds the lock as. */
  private readonly current = new Map<string, string>();

  push(e: TraceEvent): void {
    const b = e.believes;
    if (b !== undefined) {
      const was = this.current.get(e.actor);
      if (b.holds && b.owner !== undefined) {
        if (was !== b.owner) {
          if (was !== undefined) this.startIdle(was, e.timeUs);
          this.current.set(e.actor, b.owner);
          this.endIdle(b.owner, e.timeUs);
        }
      } else if (!b.holds && was !== undefined) {
        this.current.delete(e.actor);
        // A release on its way frees the lock a message later; anything else leaves it to the TTL.
        if (e.kind !== 'release.request') this.startIdle(was, e.timeUs);
      }
    }
    if ((e.kind === 'release.failed' || e.kind === 'release.timeout' || e.kind === 'release.error') && e.owner !== undefined) this.startIdle(e.owner, e.timeUs);
  }

  /** The run's lock-out time in microseconds; holdings still open count up to the last event. */
  finish(intervals: IntervalTracker): number {
    let totalUs = 0;
    for (const h of intervals.holdings) {
      const endUs = h.endUs ?? intervals.lastUs;
      if (intervals.beliefsOf(h.owner) === undefined) {
        totalUs += endUs - h.startUs;
        continue;
      }
      for (const s of this.idle.get(h.owner) ?? []) {
        const from = Math.max(s.fromUs, h.startUs);
        const to = Math.min(s.toUs ?? endUs, endUs);
        if (to > from) totalUs += to - from;
      }
    }
    return totalUs;
  }

  private startIdle(owner: string, atUs: number): void {
    const list = this.idle.get(owner);
    const last = list?.[list.length - 1];
    if (last !== undefined && last.toUs === undefined) return;
    if (list === undefined) this.idle.set(owner, [{ fromUs: atUs, toUs: undefined }]);
    else list.push({ fromUs: atUs, toUs: undefined });
  }

  private endIdle(owner: string, atUs: number): void {
    const list = this.idle.get(owner);
    const last = list?.[list.length - 1];
    if (last !== undefined && last.toUs === undefined) last.toUs = atUs;
  }
}
