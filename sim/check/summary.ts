import { formatDuration, formatInstant } from '../time.js';
import type { StaleWrite, Verdict } from './verdict.js';

/*
 * The verdict in sentences, for people. Rendered when shown and never
 * stored or hashed, so rewording a sentence changes no pinned run.
 */

/** Why a write was stale, as a clause: "its lock had ended at 10.000 s (expired)". */
export function staleWhy(w: StaleWrite): string {
  const c = w.cause;
  if (c.kind === 'never-held') return 'its writer never held the lock';
  if (c.kind === 'superseded') return `${c.client} had been granted the lock at ${formatInstant(c.atUs)}`;
  const detail = c.how !== 'released' && c.reason !== null ? `: ${c.reason}` : '';
  return `its lock had ended at ${formatInstant(c.atUs)} (${c.how}${detail})`;
}

/** One sentence per finding, then one that sums the outcome up. */
export function summarize(v: Verdict): string[] {
  const lines: string[] = [];
  for (const d of v.doubleOwnership) {
    lines.push(
      `${d.clients[0]} and ${d.clients[1]} both believed they held ${d.key} from ${formatInstant(d.fromUs)} to ${formatInstant(d.toUs)} (${formatDuration(d.toUs - d.fromUs)}).`,
    );
  }
  for (const l of v.lostLocks) {
    lines.push(`${l.client} lost ${l.key} at ${formatInstant(l.atUs)} (${l.how}${l.reason === '' ? '' : `: ${l.reason}`}) while it still believed it held it.`);
  }
  for (const w of v.staleWrites) {
    const token = w.fence === null ? 'without a fencing token' : `with fencing token ${w.fence}`;
    const result = w.accepted ? 'was ACCEPTED: the resource is corrupted' : 'was rejected by fencing';
    lines.push(`${w.client}'s write ${token} at ${formatInstant(w.timeUs)} ${result}; ${staleWhy(w)}.`);
  }
  const doubles = v.doubleOwnership.length;
  if (v.outcome === 'safe' && doubles === 0) lines.push('No double ownership and no stale write: mutual exclusion held.');
  if (v.outcome === 'safe' && doubles > 0) lines.push('Mutual exclusion failed for a while, but no stale write reached the resource.');
  if (v.outcome === 'fenced') lines.push('Mutual exclusion failed, but fencing rejected every stale write: the resource is intact.');
  const refused = v.refusedHolders.length;
  if (refused > 0) {
    lines.push(
      `Fencing also refused ${refused} write${refused === 1 ? '' : 's'} from a client that did hold the lock: without a fencing token the resource cannot tell good writes from stale ones.`,
    );
  }
  return lines;
}
