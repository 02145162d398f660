import type { LockCycles } from '../../sim/check/summary.js';
import type { DoubleOwnership } from '../../sim/check/verdict.js';

/** A stretch of true time on one lane row, e.g. "A believes it holds A:1 #33". */
export interface Span {
  readonly fromUs: number;
  readonly toUs: number;
  readonly label: string;
  /** The event that began it. */
  readonly seq: number;
  /** How it ended: an event kind (lock.expired, process.resume, ...) or "open" when the trace ends first. */
  readonly end: string;
}

/** Something that happened at one instant on a lane (a crash, a clock jump, a write). */
export interface Mark {
  readonly atUs: number;
  readonly seq: number;
  readonly kind: string;
  readonly label: string;
}

export interface Write extends Mark {
  readonly owner: string;
  readonly fence: number | null;
  readonly accepted: boolean;
  /** The checker found the writer's lock had already ended. */
  readonly stale: boolean;
}

export interface ClientLane {
  readonly name: string;
  readonly machine: string;
  /** The client whose process forked this one (its Lock object a copy of the parent's), or null. */
  readonly parent: string | null;
  /** When the client believed it held a lock (from its events' believes.holds). */
  readonly belief: readonly Span[];
  /** When the store actually held a lock for it (lock.granted until it ended). */
  readonly truth: readonly Span[];
  readonly pauses: readonly Span[];
  readonly marks: readonly Mark[];
  /** Sequence numbers of this client's events that say what it believes, in order. */
  readonly beliefSeqs: Int32Array;
}

export interface StoreLane {
  readonly name: string;
  readonly machine: string;
  /** Who held each key: one span per holding interval, labelled with the owner. */
  readonly holds: readonly Span[];
  readonly downs: readonly Span[];
  readonly marks: readonly Mark[];
}

/** A partition as the lanes draw it: when, and which machines were cut from which. */
export interface Partition {
  readonly fromUs: number;
  readonly toUs: number;
  readonly seq: number;
  readonly groups: readonly (readonly string[])[];
}

/** One message's journey: request on the sender's lane, handling at the other end, reply back. */
export interface Arrow {
  readonly msg: number;
  readonly hops: readonly { atUs: number; lane: string }[];
  /** Where the message was dropped (a partition, loss), and the lane it was meant for. */
  readonly lost?: { readonly atUs: number; readonly toLane: string };
}

/** Enough of a machine's clock history to read it at any true time. */
export interface MachineClock {
  readonly name: string;
  /** Events on this machine that carry a local reading: (true, local) pairs, in time order. */
  readonly trueUs: Float64Array;
  readonly localUs: Float64Array;
  /** Drift in ppm from each sample on, as the scenario and clock.drift events set it. */
  readonly driftPpm: Float64Array;
}

/**
 * Everything the timeline and the side panel draw, derived once from an
 * immutable trace. Built in one pass, so a 100k-event trace costs tens of
 * milliseconds, and never changed afterwards.
 */
export interface TraceModel {
  readonly startUs: number;
  readonly endUs: number;
  readonly times: Float64Array;
  readonly clients: readonly ClientLane[];
  readonly stores: readonly StoreLane[];
  readonly resource: { readonly name: string; readonly machine: string; readonly writes: readonly Write[] };
  readonly faultBands: readonly Span[];
  /** Each partition, with its groups of machines: a machine in one group cannot reach those in the others. */
  readonly partitions: readonly Partition[];
  readonly faultMarks: readonly Mark[];
  readonly doubleOwnership: readonly DoubleOwnership[];
  readonly arrows: readonly Arrow[];
  readonly machines: readonly MachineClock[];
  /** The run's lock cycles and how many were double-owned, from the same derivation as the lanes. */
  readonly lockCycles: LockCycles;
}
