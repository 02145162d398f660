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
  | ({ readonly invariant: 'refused-holder' } & RefusedHolder);
