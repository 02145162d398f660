import type { TraceEvent } from '../trace/types.js';
import { doubleOwnership } from './invariants/double-ownership.js';
import { Availability } from './invariants/availability.js';
import { LostLocks } from './invariants/lost-lock.js';
import { StaleWrites } from './invariants/stale-write.js';
import { IntervalTracker } from './intervals.js';
import type { Finding, Verdict } from './verdict.js';

/**
 * Reads a trace and judges it. It looks at events only — never at the
 * simulation — so a trace recorded against real servers is judged the same
 * way. Events are fed one at a time, in trace order, so a run whose events
 * are never kept is judged exactly like a trace read from a file.
 */
export class Checker {
  /** The intervals the verdict was derived from, for measures of a run that are not findings (a sweep's lock-out time). */
  readonly intervals: IntervalTracker;
  private readonly lost: LostLocks;
  private readonly stale: StaleWrites;

  private readonly availability = new Availability();

  constructor() {
    this.intervals = new IntervalTracker({
      holdingStarted: (h) => this.availability.holdingStarted(h),
      holdingEnded: (h, e) => {
        this.lost.holdingEnded(h, e.timeUs, e.seq, h.how === 'released' ? e.peer : undefined);
        this.availability.holdingEnded(h);
      },
    });
    this.lost = new LostLocks(this.intervals);
    this.stale = new StaleWrites(this.intervals);
  }

  push(e: TraceEvent): void {
    this.lost.advance(e.timeUs);
    this.availability.advance(e);
    this.intervals.push(e);
    this.availability.push(e);
    if (e.kind === 'write.accepted' || e.kind === 'write.rejected') this.stale.write(e);
  }

  finish(): Verdict {
    this.intervals.finish();
    this.lost.finish();
    const staleWrites = this.stale.found;
    // The outcome judges the resource: damage is a stale write it accepted. Double
    // ownership without any stale write (say, the late holder checked its lease
    // and skipped its write) is reported, but did no harm.
    const outcome = staleWrites.some((w) => w.accepted) ? 'unsafe' : staleWrites.length > 0 ? 'fenced' : 'safe';
    return {
      outcome,
      doubleOwnership: doubleOwnership(this.intervals.windows),
      staleWrites,
      lostLocks: this.lost.found,
      refusedHolders: this.stale.refusedHolders,
      unprotectedWrites: this.stale.unprotected,
      availability: this.availability.finish(),
    };
  }
}

/** Judges a whole trace. Throws a CheckError when the trace lacks what an invariant needs. */
export function check(events: readonly TraceEvent[]): Verdict {
  const c = new Checker();
  for (const e of events) c.push(e);
  return c.finish();
}

/** Every finding of a verdict as one list in time order (ties: the order the invariants are listed in). */
export function findingsOf(v: Verdict): Finding[] {
  const all: Finding[] = [
    ...v.doubleOwnership.map((d) => ({ invariant: 'double-ownership' as const, timeUs: d.fromUs, ...d })),
    ...v.lostLocks.map((l) => ({ invariant: 'lost-lock' as const, timeUs: l.atUs, ...l })),
    ...v.staleWrites.map((w) => ({ invariant: 'stale-write' as const, ...w })),
    ...v.refusedHolders.map((r) => ({ invariant: 'refused-holder' as const, ...r })),
    ...v.unprotectedWrites.map((w) => ({ invariant: 'unprotected-write' as const, ...w })),
  ];
  return all.sort((a, b) => a.timeUs - b.timeUs);
}
