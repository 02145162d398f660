import { REDIS } from './redis.js';
import type { Capabilities, StoreKind } from './types.js';

/** Every store kind the simulator models, in the order the lab and `locklab stores` list them. */
export const STORE_KINDS: readonly StoreKind[] = [REDIS];

export function storeKind(kind: string): StoreKind | undefined {
  return STORE_KINDS.find((k) => k.kind === kind);
}

/** One row of the capability table: a store kind, what it can do, and the built-in scenario that shows its hazard. */
export interface StoreRow extends Capabilities {
  readonly name: string;
  readonly title: string;
  readonly hazardScenario: string;
}

export const STORE_TABLE: readonly StoreRow[] = STORE_KINDS.map((k) => ({ name: k.kind, title: k.title, hazardScenario: k.hazardScenario, ...k.capabilities }));
