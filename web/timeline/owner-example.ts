import type { TraceModel } from '../model/types.js';
import { ordinal } from '../model/ordinal.js';

/** The legend's example of a belief bar's label, and what it says. */
export interface OwnerExample {
  readonly label: string;
  readonly words: string;
}

/** The example the help shows, with no run to take one from. */
export const GENERIC_OWNER: OwnerExample = { label: 'A:1 #33', words: 'A’s 1st acquisition, fencing token 33' };

/** A bar's label: owner `<client>:<n>`, then ` #<token>` when the store hands out fencing tokens. */
const LABEL = /^(.+):(\d+)(?: #(\d+))?$/;

/**
 * The legend's example, read from the first acquisition of the runs shown,
 * so it names a client and a token that are on the screen: a run whose
 * tokens are #1 and #2 shows one of those, a Redlock run names client1 (its
 * A to E are Redis nodes), and a run with no tokens says nothing of one.
 * Null when no run shows an acquisition.
 */
export function ownerExample(models: readonly TraceModel[]): OwnerExample | null {
  for (const model of models) {
    let first: { fromUs: number; seq: number; label: string } | null = null;
    for (const c of model.clients)
      for (const b of c.belief) if (first === null || b.fromUs < first.fromUs || (b.fromUs === first.fromUs && b.seq < first.seq)) first = b;
    const m = first === null ? null : LABEL.exec(first.label);
    if (first === null || m === null) continue;
    const token = m[3] === undefined ? '' : `, fencing token ${m[3]}`;
    return { label: first.label, words: `${m[1]}’s ${ordinal(Number(m[2]))} acquisition${token}` };
  }
  return null;
}
