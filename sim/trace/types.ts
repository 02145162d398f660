import type { Verdict } from '../check/verdict.js';
import type { Scenario } from '../scenario/types.js';

/** The trace format's name and version; bumped on any incompatible change. */
export const TRACE_SCHEMA = 'locklab.trace/1';

/** A JSON value, as event data may carry (partition groups stay arrays, deploy patches objects). */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** What a client believes at the moment of an event, by its own clock. */
export interface Belief {
  readonly holds: boolean;
  readonly owner?: string;
  readonly fence?: number;
  /** A shared (read) lock. */
  readonly shared?: boolean;
  /** Lease time left by the client's own clock; negative once it has run out; absent for locks that do not expire. */
  readonly ttlLeftUs?: number;
}

/**
 * One event of a run. Fields appear in this order in JSON, and absent fields
 * are left out rather than written as null, so that a trace's bytes are
 * a fingerprint of the run.
 */
export interface TraceEvent {
  /** Position in the trace, from 0. */
  seq: number;
  /** True (global) time, integer microseconds since the run began. */
  timeUs: number;
  kind: string;
  /** The client, store node, resource, network or fault injector that acted. */
  actor: string;
  machine: string;
  /** The reading of `machine`'s local clock at `timeUs`. */
  localUs?: number;
  key?: string;
  /** The owner token of the acquisition this event concerns. */
  owner?: string;
  /** The fencing token of that acquisition, where the store issues one. */
  fence?: number;
  ttlUs?: number;
  /** The other party: the store node for a client event, the client for a store event. */
  peer?: string;
  /** Links a request, its handling at the other end and its reply. */
  msg?: number;
  reason?: string;
  believes?: Belief;
  data?: Record<string, JsonValue>;
}

/** Why a run stopped. Every run stops for exactly one of these. */
export type StopReason = 'completed' | 'event-budget' | 'time-budget';

/** How a run ended: the reason, kernel events processed, and the virtual time of the last one. */
export interface StopInfo {
  readonly reason: StopReason;
  readonly events: number;
  readonly timeUs: number;
}

export interface TraceDocument {
  schema: typeof TRACE_SCHEMA;
  /** "sim" for simulated runs; the real runner writes "real". */
  source: 'sim' | 'real';
  scenario: Scenario;
  seed: number;
  stop: StopInfo;
  /** Set when the run was interrupted (a real run stopped with Ctrl-C): the events end early. */
  partial?: true;
  events: TraceEvent[];
  /**
   * The checker's verdict, stored for readers of the file. It is derived from
   * the events (`locklab check` recomputes it) and is not part of the run hash.
   */
  verdict: Verdict;
}
