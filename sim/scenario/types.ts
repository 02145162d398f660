import type { Distribution } from '../kernel/dist.js';
import type { Step } from './steps.js';

/**
 * The scenario format, as the simulation sees it after defaults are filled
 * in. The JSON Schema (docs/schema/scenario.schema.json) describes what a
 * user may write; `normalizeScenario` turns that into this shape. All
 * durations are in milliseconds, named with an `Ms` suffix.
 */
export interface Scenario {
  name: string;
  summary: string;
  seed: number;
  budget: { maxEvents: number; maxTimeMs: number };
  machines: MachineSpec[];
  network: { latencyMinMs: number; latencyMaxMs: number; distribution: LatencyDistribution; loss: number };
  store: StoreSpecBase;
  resource: { machine: string; fencing: boolean };
  clients: ClientSpec[];
  faults: FaultSpec[];
}

export type LatencyDistribution = 'uniform' | 'normal' | 'long-tail';

export interface MachineSpec {
  name: string;
  clockOffsetMs: number;
  clockDriftPpm: number;
}

/**
 * A store's settings. `kind` picks the model in sim/stores/registry.ts, and
 * each model defines (and validates) the rest; `name` names its node, or the
 * prefix of its nodes' names.
 */
export interface StoreSpecBase {
  kind: string;
  name: string;
  [field: string]: unknown;
}

export interface RedisSpec extends StoreSpecBase {
  kind: 'redis';
  /** The store node's name, used in the trace and by store faults. */
  name: string;
  machine: string;
  /** What survives a restart: nothing, the AOF fsynced every second, or every write. */
  persistence: 'none' | 'aof-everysec' | 'aof-always';
  /** The first fencing token the INCR counter hands out. */
  fencingTokenStart: number;
  /** Prepended to every key; a deploy may change it. */
  keyPrefix: string;
}

export type AcquireMode = 'try' | 'blocking';
export type AcquireMethod = 'atomic' | 'exists-then-set';
export type ReleaseMethod = 'token-checked' | 'plain-del';

export interface ClientSpec {
  name: string;
  machine: string;
  startMs: number;
  key: string;
  ttlMs: number;
  acquire: {
    mode: AcquireMode;
    /** Take a shared (read) lock; such a client only reads, so it has no writes. */
    shared: boolean;
    /**
     * Blocking mode: whether the client may fall back to polling (about every
     * 100 ms, as Symfony does) on a store that cannot block. false demands a
     * store that blocks natively.
     */
    poll: boolean;
    method: AcquireMethod;
    /** Try mode: further attempts after a refusal. */
    retries: number;
    retryDelayMs: number;
    /** Blocking mode: give up after this long; null waits for ever (bounded by the run's budget). */
    waitTimeoutMs: number | null;
  };
  /** Time spent working while holding the lock, before each write. */
  workMs: number;
  /** When set, the work time is drawn afresh for every acquisition instead of `workMs`. */
  workTime?: Distribution;
  /** After each acquisition, with `probability`, the process pauses for a duration drawn from `duration`. */
  pauseAfterAcquire?: { probability: number; duration: Distribution };
  /** Random crashes at this rate (per second of true time); absent, never. */
  crashRatePerS?: number;
  /** Refresh the lease this often while working; null never refreshes. */
  refreshEveryMs: number | null;
  /** Check the remaining lifetime by the client's own clock before writing. */
  checkRemaining: boolean;
  writes: number;
  release: { method: ReleaseMethod; inFinally: boolean };
  iterations: number;
  thinkMs: number;
  requestTimeoutMs: number;
  /**
   * Symfony Lock's API as a script (sim/scenario/steps.ts); null runs the
   * lifecycle fields above, which are then a shorthand for the same steps.
   */
  steps: Step[] | null;
  /** The Lock object releases the lock when it is destroyed (script end, normal exit); false leaves it to its TTL. */
  autoRelease: boolean;
}

export type FaultSpec =
  | { kind: 'pause'; atMs: number; target: string; durationMs: number }
  | { kind: 'crash'; atMs: number; target: string }
  | { kind: 'store-restart'; atMs: number; target: string; downMs: number }
  | { kind: 'partition'; atMs: number; durationMs: number; groups: string[][] }
  | { kind: 'clock-jump'; atMs: number; machine: string; byMs: number }
  | { kind: 'clock-drift'; atMs: number; machine: string; driftPpm: number }
  | { kind: 'latency-spike'; atMs: number; durationMs: number; extraMs: number; machines: string[] | null }
  // Store-specific faults: only stores that list the kind in their `faults` accept them.
  | { kind: 'eviction'; atMs: number; target: string; key: string | null }
  | { kind: 'memory-pressure'; atMs: number; target: string; durationMs: number; writesPerSec: number; itemBytes: number }
  | { kind: 'session-expiry'; atMs: number; target: string }
  | { kind: 'connection-loss'; atMs: number; target: string }
  | { kind: 'ipc-removal'; atMs: number; machine: string }
  | { kind: 'lock-file-cleanup'; atMs: number; machine: string; dir: string | null }
  | { kind: 'deploy'; atMs: number; clients: string[]; store: Record<string, unknown> };

export type FaultKind = FaultSpec['kind'];

/** Faults every store accepts; the rest must be listed in the store kind's `faults`. */
/** A client's work time when it gives none (`workMs`); a client that draws its work time (`workTime`) keeps this one, unused. */
export const WORK_MS_DEFAULT = 100;

export const GENERIC_FAULTS: readonly FaultKind[] = ['pause', 'crash', 'partition', 'clock-jump', 'clock-drift', 'latency-spike'];
