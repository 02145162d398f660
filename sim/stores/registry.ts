import { REDIS_CAPABILITIES } from './redis.js';
import type { Capabilities } from './types.js';

/** One row of the capability table: a store kind, what it can do, and the built-in scenario that shows its hazard. */
export interface StoreRow extends Capabilities {
  readonly name: string;
  readonly title: string;
  readonly hazardScenario: string;
}

/** Every store kind the simulator models, in the order the lab lists them. */
export const STORE_TABLE: readonly StoreRow[] = [{ name: 'redis', title: 'Redis (single node)', hazardScenario: 'pause-past-expiry', ...REDIS_CAPABILITIES }];
