import type { OwnershipWindow } from '../intervals.js';
import type { DoubleOwnership } from '../verdict.js';

/**
 * Mutual exclusion: no two clients believe they hold the same key at the
 * same true time. The windows come from the interval derivation; this only
 * states them as findings.
 */
export function doubleOwnership(windows: readonly OwnershipWindow[]): DoubleOwnership[] {
  return windows.map((w) => ({ key: w.key, fromUs: w.fromUs, toUs: w.toUs, clients: w.clients, owners: w.owners, seqs: w.seqs }));
}
