import { combinedKind } from './combined.js';
import { ETCD } from './etcd.js';
import { FLOCK } from './flock.js';
import { LOCK_ROW } from './lock-row.js';
import { MEMCACHED } from './memcached.js';
import { MONGODB } from './mongodb.js';
import { POSTGRES } from './postgres.js';
import { REDIS } from './redis.js';
import { REDLOCK } from './redlock.js';
import { SEMAPHORE } from './semaphore.js';
import { SQL } from './sql.js';
import { ZOOKEEPER, ZOOKEEPER_RECIPE } from './zookeeper.js';
import type { Capabilities, StoreKind } from './types.js';

/** Every store kind the simulator models, in the order the lab and `locklab stores` list them. */
export const STORE_KINDS: readonly StoreKind[] = [
  REDIS,
  FLOCK,
  SEMAPHORE,
  MEMCACHED,
  SQL,
  MONGODB,
  REDLOCK,
  // Combined looks its stores' kinds up here, lazily: by then the list exists.
  combinedKind((kind) => storeKind(kind)),
  POSTGRES,
  ZOOKEEPER,
  ZOOKEEPER_RECIPE,
  ETCD,
  LOCK_ROW,
];

export function storeKind(kind: string): StoreKind | undefined {
  return STORE_KINDS.find((k) => k.kind === kind);
}

/** One row of the capability table: a store kind, what it can do, and the built-in scenario that shows its hazard. */
export interface StoreRow extends Capabilities {
  readonly name: string;
  readonly title: string;
  readonly hazardScenario: string;
  /** Overrides that make the hazard scenario run on this store (empty when it already does). */
  readonly hazardSets: readonly string[];
}

export const STORE_TABLE: readonly StoreRow[] = STORE_KINDS.map((k) => ({
  name: k.kind,
  title: k.title,
  hazardScenario: k.hazardScenario,
  hazardSets: k.hazardSets ?? [],
  ...k.capabilities,
}));

/** A minimal valid `store` object of `kind` on the scenario's machines (the lab's sandbox uses it to switch kinds). */
export function starterStore(kind: string, machines: readonly string[]): Record<string, unknown> {
  const k = storeKind(kind);
  if (k?.starter !== undefined) return k.starter(machines);
  return { kind, machine: machines[machines.length - 1] ?? 'db' };
}
