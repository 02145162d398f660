/** The checker's findings, in DESIGN.md's vocabulary. Times are true microseconds. */
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
  /** One sentence per finding, for people. */
  summary: string[];
}

/** Two clients believed they held the same key over the same stretch of true time. */
export interface DoubleOwnership {
  key: string;
  fromUs: number;
  toUs: number;
  clients: [string, string];
  owners: [string, string];
}

/** A write that reached the resource after its writer's lock had ended or been superseded. */
export interface StaleWrite {
  /** Sequence number of the resource's write event. */
  seq: number;
  timeUs: number;
  client: string;
  owner: string;
  fence: number | null;
  accepted: boolean;
  /** Why the write was stale. */
  why: string;
}

/** A holding interval that ended without a release while its client still believed. */
export interface LostLock {
  key: string;
  client: string;
  owner: string;
  atUs: number;
  /** expired, deleted, overwritten, lost (restart, eviction, session) */
  how: string;
  reason: string;
}
