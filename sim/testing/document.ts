import type { StepName } from '../scenario/steps.js';
import type { ClientSpec, LatencyDistribution } from '../scenario/types.js';

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

/**
 * A client's settings, all optional: the lifecycle's defaults are in
 * docs/scenarios.md. Derived from the normalized client, so a field the
 * format gains is one the builder takes.
 */
export type ClientOptions = Partial<Omit<ClientSpec, 'name' | 'machine' | 'acquire' | 'release' | 'steps'>> & {
  /** Default: a machine of its own, `app1`, `app2`, … in the order clients are added. */
  machine?: string;
  acquire?: Partial<ClientSpec['acquire']>;
  release?: Partial<ClientSpec['release']>;
  /** Symfony Lock's API as steps, written as in a scenario file (docs/scenarios.md): each step's defaults may be left out. */
  steps?: StepDocument[];
};

/** A step as a scenario file writes it: its name and whichever of its fields differ from the defaults. */
export type StepDocument = { step: StepName } & Record<string, unknown>;

export type ClientDocument = ClientOptions & {
  name: string;
  machine: string;
};

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
