import type { HoldingEnd } from '../trace/kinds.js';

/**
 * The checker's findings, in DESIGN.md's vocabulary. Times are true
 * microseconds; `seqs` are the sequence numbers of the events each finding is
 * about, so the lab and the CLI can point at them. The verdict is data only:
 * its sentences are rendered when shown (sim/check/summary.ts).
 */
export interface Verdict {
  /**
   * unsafe: some stale write was accepted. fenced: there were stale writes
   * and fencing rejected every one. safe: no stale write reached the
   * resource (double ownership, if any, is still listed).
   */
  outcome: 'safe' | 'fenced' | 'unsafe';
  doubleOwnership: DoubleOwnership[];
  staleWrites: StaleWrite[];
  lostLocks: LostLock[];
  /** Writes fencing refused although their writer did hold the lock (it carried no token to check). */
  refusedHolders: RefusedHolder[];
  /** Writes after their writer's own holding had ended, with no newer holder before them: unprotected, but no damage. */
  unprotectedWrites: UnprotectedWrite[];
  /** How long each client waited for a lock nobody could be using, and worked without holding it. */
  availability: ClientAvailability[];
  /**
   * Findings a judgement in bounded memory (a run whose events were not
   * kept) counted but did not list, by list; absent when it listed all. The
   * outcome counts them all.
   */
  omitted?: Partial<Record<FindingList, number>>;
}

/** The verdict's lists of findings. */
export type FindingList = 'doubleOwnership' | 'staleWrites' | 'lostLocks' | 'refusedHolders' | 'unprotectedWrites';

/**
 * A write that reached the resource after its writer's holding had ended,
 * when nobody else had been granted the lock since it began: nothing was
 * overwritten, but nothing protected it either — had another client been
 * granted the lock first, it would have been a stale write.
 */
export interface UnprotectedWrite {
  seq: number;
  timeUs: number;
  client: string;
  owner: string;
  fence: number | null;
  /** When and how the writer's holding had ended, and in which event. */
  endedUs: number;
  how: HoldingEnd;
  reason: string | null;
  /** The write, and the event that ended the holding. */
  seqs: [number, number];
}

/** A stretch of true time, with the events that began and ended it. */
export interface Span {
  fromUs: number;
  toUs: number;
  seqs: number[];
}

/**
 * Availability, per client. Lock-out time is time spent waiting for the
 * lock (after the store first kept the client out, until the grant, the
 * give-up, an exception or the process's end) while the key was free in
 * truth, or held only by processes that are gone or no longer believe they
 * hold it: time nobody gained from. Work without the lock is time spent in work steps while the
 * client's lock (the owner token its work names) was held by no store.
 */
export interface ClientAvailability {
  client: string;
  waitedUs: number;
  lockOutUs: number;
  /**
   * Spans of lock-out, with why: the key was free, its holder was gone
   * (crashed, or exited without releasing), or its holder runs on but no
   * longer believes it holds it (orphaned: an exception skipped the
   * release), naming the holder.
   */
  lockOut: Array<Span & { why: 'free' | 'holder-gone' | 'orphaned'; holder: string | null }>;
  workedUs: number;
  workWithoutLockUs: number;
  workWithoutLock: Span[];
  /**
   * Spans counted but not listed; absent when none. A judgement in bounded
   * memory (a run whose events were not kept) lists a client's first
   * SPANS_KEPT spans; a trace judged whole lists every span with a holder,
   * and the spans of a free key that came while the list was shorter than
   * SPANS_KEPT (see Checker).
   */
  lockOutOmitted?: number;
  workWithoutLockOmitted?: number;
  /**
   * With `lockOutOmitted`: `lockOutUs` by why and holder, over every span,
   * listed or not (the listed ones alone would not add up to it). In the
   * order each first occurred; absent when every span is listed.
   */
  lockOutByWhy?: LockOutShare[];
}

/** Part of a client's lock-out time: for one reason, and one holder (null while the key was free). */
export interface LockOutShare {
  why: 'free' | 'holder-gone' | 'orphaned';
  holder: string | null;
  us: number;
}

/** `lockOutByWhy` summed from spans (every one of them): the free time first, then each holder's share as it first occurred; zero-length shares are left out. */
export function lockOutShares(spans: ReadonlyArray<{ fromUs: number; toUs: number; why: LockOutShare['why']; holder: string | null }>): LockOutShare[] {
  let freeUs = 0;
  const held = new Map<string, LockOutShare>();
  for (const s of spans) {
    if (s.why === 'free') freeUs += s.toUs - s.fromUs;
    else addShare(held, s.why, s.holder, s.toUs - s.fromUs);
  }
  return withFree(freeUs, held);
}

/** The shares in `lockOutByWhy`'s order: the free time first, then `held` as it first occurred, zero-length ones left out. */
export function withFree(freeUs: number, held: ReadonlyMap<string, LockOutShare> | undefined): LockOutShare[] {
  const shares: LockOutShare[] = freeUs > 0 ? [{ why: 'free', holder: null, us: freeUs }] : [];
  for (const share of held?.values() ?? []) if (share.us > 0) shares.push({ ...share });
  return shares;
}

/** Adds `us` to the share for `why` and `holder` in `shares`, making it on first use. */
export function addShare(shares: Map<string, LockOutShare>, why: LockOutShare['why'], holder: string | null, us: number): void {
  const id = holder === null ? why : `${why}\u0000${holder}`;
  const share = shares.get(id);
  if (share === undefined) shares.set(id, { why, holder, us });
  else share.us += us;
}

/** Two clients believed they held the same key over the same stretch of true time. */
export interface DoubleOwnership {
  key: string;
  fromUs: number;
  toUs: number;
  clients: [string, string];
  owners: [string, string];
  /** Where each of the two beliefs began. */
  seqs: [number, number];
}

/** Why a write was stale. */
export type StaleCause =
  | { readonly kind: 'never-held' }
  /** The writer's holding had ended (expired, lost, released...) at `atUs`, in event `seq`. */
  | { readonly kind: 'ended'; readonly atUs: number; readonly how: HoldingEnd; readonly reason: string | null; readonly seq: number }
  /** Another client had been granted the lock at `atUs`, in event `seq`. */
  | { readonly kind: 'superseded'; readonly atUs: number; readonly client: string; readonly owner: string; readonly seq: number };

/** A write that reached the resource after its writer's lock had ended or been superseded. */
export interface StaleWrite {
  /** Sequence number of the resource's write event. */
  seq: number;
  timeUs: number;
  client: string;
  owner: string;
  fence: number | null;
  accepted: boolean;
  cause: StaleCause;
  /** The first holder granted the key after the writer's holding began, if any, with its fencing token. */
  newer: { client: string; owner: string; fence: number | null; atUs: number; seq: number } | null;
  /** The highest fencing token the resource had accepted before this write (null: none yet): fencing rejects only tokens below it. */
  highestSeen: number | null;
  /** The write, and the event that made it stale (when there is one). */
  seqs: number[];
}

/** A holding interval that ended without a release while its client still believed. */
export interface LostLock {
  key: string;
  client: string;
  owner: string;
  atUs: number;
  how: HoldingEnd;
  reason: string;
  /** The event that ended the holding, and the one where the belief began. */
  seqs: [number, number];
}

/** A write the resource refused though its writer held the lock: without a token it cannot tell good writes from stale ones. */
export interface RefusedHolder {
  seq: number;
  timeUs: number;
  client: string;
  owner: string;
  seqs: [number];
}

/** Every finding of a verdict, one kind of invariant each, in time order. */
export type Finding =
  | ({ readonly invariant: 'double-ownership'; readonly timeUs: number } & DoubleOwnership)
  | ({ readonly invariant: 'stale-write' } & StaleWrite)
  | ({ readonly invariant: 'lost-lock'; readonly timeUs: number } & LostLock)
  | ({ readonly invariant: 'refused-holder' } & RefusedHolder)
  | ({ readonly invariant: 'unprotected-write' } & UnprotectedWrite);
