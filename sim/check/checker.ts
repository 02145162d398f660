import { KIND_NAMES } from '../trace/kinds.js';
import type { TraceEvent } from '../trace/types.js';
import { doubleOwnership } from './invariants/double-ownership.js';
import { Availability, roleOf, type ClientState } from './invariants/availability.js';
import { LostLocks } from './invariants/lost-lock.js';
import { StaleWrites } from './invariants/stale-write.js';
import { IntervalTracker, kindFacts, type ActorRecord, type KindFacts } from './intervals.js';
import { lockOutShares, type Finding, type FindingList, type Verdict } from './verdict.js';

interface KindInfo {
  readonly facts: KindFacts | undefined;
  readonly role: number;
}

/** Each kind of event with what the interval derivation and the availability judgement make of it: one look-up per event for both. */
const KINDS: ReadonlyMap<string, KindInfo> = new Map(KIND_NAMES.map((k) => [k, { facts: kindFacts(k), role: roleOf(k) }]));

/**
 * The kinds of a waiter's polls, most events of a contended lock: compared
 * before the look-up, which costs more than the comparisons do.
 */
const REQUEST = KINDS.get('acquire.request')!;
const DENIED = KINDS.get('acquire.denied')!;

/** What each judgement keeps of one actor, found with one look-up per event. */
interface ActorSlot {
  readonly intervals: ActorRecord;
  availability: ClientState | undefined;
}

/**
 * How many lock-out spans, and spans of work without the lock, a bounded
 * judgement lists per client, and how many findings of each kind: with 200
 * clients (maxClients), a verdict so cut stays a few MB, well within one
 * line of a JSON Lines trace (maxTraceLineBytes).
 */
export const SPANS_KEPT = 100;
export const FINDINGS_KEPT = 1000;

/**
 * A verdict cut as a bounded judgement cuts it: each list to its first
 * FINDINGS_KEPT, each client's spans to their first SPANS_KEPT, with what
 * was cut counted in `omitted`. The last line of a JSON Lines trace holds
 * its verdict so, whichever way the run was judged, so that the file can
 * always be read back and `locklab check` finds the same.
 */
export function capVerdict(v: Verdict): Verdict {
  const omitted: Partial<Record<FindingList, number>> = { ...v.omitted };
  const cut = <T>(list: FindingList, items: T[]): T[] => {
    if (items.length <= FINDINGS_KEPT) return items;
    omitted[list] = (omitted[list] ?? 0) + items.length - FINDINGS_KEPT;
    return items.slice(0, FINDINGS_KEPT);
  };
  const out: Verdict = {
    outcome: v.outcome,
    doubleOwnership: cut('doubleOwnership', v.doubleOwnership),
    staleWrites: cut('staleWrites', v.staleWrites),
    lostLocks: cut('lostLocks', v.lostLocks),
    refusedHolders: cut('refusedHolders', v.refusedHolders),
    unprotectedWrites: cut('unprotectedWrites', v.unprotectedWrites),
    availability: v.availability.map((a) => {
      if (a.lockOut.length <= SPANS_KEPT && a.workWithoutLock.length <= SPANS_KEPT) return a;
      const c = { ...a, lockOut: a.lockOut.slice(0, SPANS_KEPT), workWithoutLock: a.workWithoutLock.slice(0, SPANS_KEPT) };
      if (a.lockOut.length > SPANS_KEPT) {
        c.lockOutOmitted = (a.lockOutOmitted ?? 0) + a.lockOut.length - SPANS_KEPT;
        // What the cut spans add up to stays said, by why and holder, as a bounded judgement says it.
        c.lockOutByWhy = a.lockOutByWhy ?? lockOutShares(a.lockOut);
      }
      if (a.workWithoutLock.length > SPANS_KEPT) c.workWithoutLockOmitted = (a.workWithoutLockOmitted ?? 0) + a.workWithoutLock.length - SPANS_KEPT;
      return c;
    }),
  };
  if (Object.keys(omitted).length > 0) out.omitted = omitted;
  return out;
}

/** How a checker keeps its findings: all of them, unless it judges in bounded memory. */
export interface CheckerOptions {
  /** See IntervalOptions.forgetAfterUs: set, the judgement runs in bounded memory. */
  readonly forgetAfterUs?: number;
  /** How many findings of each kind to list (bounded: FINDINGS_KEPT), and how many spans of each kind per client (bounded: SPANS_KEPT). */
  readonly findingsListed?: number;
  readonly spansListed?: number;
  /**
   * How long a client's list of lock-out may grow and still take a span of
   * a free key: SPANS_KEPT, or `spansListed` when that is given. Spans with
   * a holder, the findings among them, are listed up to `spansListed`.
   */
  readonly freeSpansListed?: number;
}

/**
 * A bounded judgement of a simulated run whose slowest message takes
 * `latencyMaxMs`: it remembers an acquisition for ten minutes of simulated
 * time after it ended, or a hundred of the slowest messages, whichever is
 * longer. Only a message can name an acquisition after its client and its
 * store are done with it, so no event of the run comes that late.
 */
export function boundedFor(latencyMaxMs: number): CheckerOptions {
  return { forgetAfterUs: Math.max(600_000_000, Math.round(100 * latencyMaxMs * 1000)) };
}

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

  private readonly availability: Availability;
  /** What the judgements keep of each actor whose events they read (see `ActorSlot`). */
  private readonly actors = new Map<string, ActorSlot>();

  /**
   * With `forgetAfterUs`, the judgement runs in bounded memory, for a run
   * whose events are not kept: see IntervalOptions. Each client's lists of
   * lock-out spans and of work without the lock then keep their first
   * `SPANS_KEPT` entries and count the rest, and each list of findings its
   * first `FINDINGS_KEPT`; totals and the outcome stay exact.
   *
   * Judged whole, every finding is listed, and every span of lock-out with
   * a holder; of the spans of a free key, those that come while the list is
   * shorter than `SPANS_KEPT`. The waiters on a contended lock have one such
   * span each per grant: a 100,000-cycle run of the bench workload has about
   * five million, more than it has events, and nobody reads them one by one.
   */
  constructor(options: CheckerOptions = {}) {
    const bounded = options.forgetAfterUs !== undefined;
    const findings = options.findingsListed ?? (bounded ? FINDINGS_KEPT : Infinity);
    const spans = options.spansListed ?? (bounded ? SPANS_KEPT : Infinity);
    this.availability = new Availability(spans, options.freeSpansListed ?? options.spansListed ?? SPANS_KEPT);
    this.intervals = new IntervalTracker(
      {
        holdingStarted: (h) => this.availability.holdingStarted(h),
        holdingEnded: (h, e) => {
          this.lost.holdingEnded(h, e.timeUs, e.seq, h.how === 'released' ? e.peer : undefined);
          this.availability.holdingEnded(h);
        },
        forgot: (owner) => this.availability.forgot(owner),
      },
      bounded ? { forgetAfterUs: options.forgetAfterUs, windowsListed: findings } : { windowsListed: findings },
    );
    this.lost = new LostLocks(this.intervals, findings);
    this.stale = new StaleWrites(this.intervals, findings);
  }

  push(e: TraceEvent): void {
    const kind = e.kind;
    const k = kind === 'acquire.request' ? REQUEST : kind === 'acquire.denied' ? DENIED : KINDS.get(kind);
    this.lost.advance(e.timeUs);
    this.availability.advance(e);
    // Only an event that says what its client believes, or a client's, is filed under its actor: a store's grants and releases are not.
    if (e.believes !== undefined || k === undefined || k.facts?.client === true) {
      const slot = this.actor(e.actor);
      this.intervals.push(e, k?.facts, slot.intervals);
      slot.availability = this.availability.push(e, k?.role ?? 0, slot.availability);
    } else {
      this.intervals.push(e, k.facts);
      this.availability.push(e, k.role);
    }
    if (kind === 'write.accepted' || kind === 'write.rejected') this.stale.write(e);
  }

  private actor(name: string): ActorSlot {
    let slot = this.actors.get(name);
    if (slot === undefined) {
      slot = { intervals: this.intervals.actor(name), availability: undefined };
      this.actors.set(name, slot);
    }
    return slot;
  }

  finish(): Verdict {
    this.intervals.finish();
    this.lost.finish();
    // The outcome judges the resource: damage is a stale write it accepted. Double
    // ownership without any stale write (say, the late holder checked its lease
    // and skipped its write) is reported, but did no harm.
    const outcome = this.stale.anyAccepted ? 'unsafe' : this.stale.anyStale ? 'fenced' : 'safe';
    const verdict: Verdict = {
      outcome,
      doubleOwnership: doubleOwnership(this.intervals.windows),
      staleWrites: this.stale.found.items,
      lostLocks: this.lost.found.items,
      refusedHolders: this.stale.refusedHolders.items,
      unprotectedWrites: this.stale.unprotected.items,
      availability: this.availability.finish(),
    };
    // Written out rather than built from a list of pairs: a short run is judged in a few microseconds, and this is paid once per run.
    let omitted: Partial<Record<FindingList, number>> | undefined;
    const omit = (name: FindingList, n: number): void => {
      if (n > 0) (omitted ??= {})[name] = n;
    };
    omit('doubleOwnership', this.intervals.windowsOmitted);
    omit('staleWrites', this.stale.found.omitted);
    omit('lostLocks', this.lost.found.omitted);
    omit('refusedHolders', this.stale.refusedHolders.omitted);
    omit('unprotectedWrites', this.stale.unprotected.omitted);
    if (omitted !== undefined) verdict.omitted = omitted;
    return verdict;
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
