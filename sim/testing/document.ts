import type { AcquireMethod, AcquireMode, LatencyDistribution, ReleaseMethod } from '../scenario/types.js';

/*
 * A scenario document as a user writes it (docs/scenarios.md): every field the
 * normalizer has a default for is optional. The builder produces these, and
 * `normalizeScenario` validates them exactly as it validates a JSON file.
 */

export interface MachineDocument {
  name: string;
  clockOffsetMs?: number;
  clockDriftPpm?: number;
}

export interface NetworkDocument {
  latencyMinMs?: number;
  latencyMaxMs?: number;
  distribution?: LatencyDistribution;
  loss?: number;
}

/** A `store` object: `kind` and that kind's own fields (see `locklab stores` and the scenario schema). */
export interface StoreDocument {
  kind: string;
  name?: string;
  [field: string]: unknown;
}

/** A client's settings, all optional but the name: the lifecycle's defaults are in docs/scenarios.md. */
export interface ClientOptions {
  /** Default: a machine of its own, `app1`, `app2`, … in the order clients are added. */
  machine?: string;
  startMs?: number;
  key?: string;
  ttlMs?: number;
  acquire?: {
    mode?: AcquireMode;
    shared?: boolean;
    poll?: boolean;
    method?: AcquireMethod;
    retries?: number;
    retryDelayMs?: number;
    waitTimeoutMs?: number | null;
  };
  workMs?: number;
  refreshEveryMs?: number | null;
  checkRemaining?: boolean;
  writes?: number;
  release?: { method?: ReleaseMethod; inFinally?: boolean };
  iterations?: number;
  thinkMs?: number;
  requestTimeoutMs?: number;
}

export interface ClientDocument extends ClientOptions {
  name: string;
  machine: string;
}

/** A fault as the JSON format writes it; the builder's methods make these. */
export interface FaultDocument {
  kind: string;
  atMs: number;
  [field: string]: unknown;
}

export interface ScenarioDocument {
  name: string;
  summary?: string;
  seed?: number;
  budget?: { maxEvents?: number; maxTimeMs?: number };
  machines: MachineDocument[];
  network?: NetworkDocument;
  store?: StoreDocument;
  resource?: { machine?: string; fencing?: boolean };
  clients: ClientDocument[];
  faults: FaultDocument[];
}
