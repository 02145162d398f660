import { formatDuration, formatInstant } from '../time.js';
import { grouped } from '../scenario/limits.js';
import { counted, percent2 } from '../words.js';
import { deriveIntervals, type IntervalTracker } from './intervals.js';
import type { TraceEvent } from '../trace/types.js';
import { lockOutShares, type ClientAvailability, type StaleWrite, type Verdict } from './verdict.js';

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

/**
 * Why fencing could not stop an accepted stale write: the newer holder's
 * token had not reached the resource yet, and a resource can only reject a
 * token lower than one it has seen.
 */
function tooEarly(w: StaleWrite): string {
  const n = w.newer;
  if (w.fence === null || n === null || n.fence === null || n.fence <= w.fence) return '';
  if (w.highestSeen !== null && w.highestSeen > w.fence) return '';
  const seen = w.highestSeen === null ? 'no token at all' : `token ${w.highestSeen} at most`;
  return ` Fencing could not reject it: ${n.client} held token ${n.fence} from ${formatInstant(n.atUs)}, but had not written yet, and the resource had seen ${seen}; it can only refuse a token lower than one it has seen.`;
}

/**
 * "B waited 4.2 s for the lock, 4.2 s of it while nobody was using the lock
 * (its lock-out time): 3.9 s while its holder A was gone (…), and 0.3 s while
 * the key was free and B had not taken it yet." Said as time nobody used the
 * lock, not as time B was "locked out": a share while the key was free would
 * read as a contradiction.
 */
function lockOutSentence(a: ClientAvailability): string {
  const held = new Map<string, number>();
  let free = 0;
  // A verdict that lists only its first spans says what all of them add up to.
  for (const s of a.lockOutByWhy ?? lockOutShares(a.lockOut)) {
    if (s.why === 'free') free += s.us;
    else {
      const id = `${s.why}\u0000${s.holder ?? '?'}`;
      held.set(id, (held.get(id) ?? 0) + s.us);
    }
  }
  const parts = [...held].map(([id, us]) => {
    const [why, holder] = id.split('\u0000');
    const what =
      why === 'orphaned'
        ? 'still held it without using it (an error skipped its release, or it stopped believing it held it)'
        : 'was gone (crashed or exited without releasing)';
    return `${formatDuration(us)} while its holder ${holder} ${what}`;
  });
  if (free > 0) parts.push(`${formatDuration(free)} while the key was free and ${a.client} had not taken it yet`);
  return `${a.client} waited ${formatDuration(a.waitedUs)} for the lock, ${formatDuration(a.lockOutUs)} of it while nobody was using the lock (its lock-out time): ${parts.join(', and ')}.`;
}

/** The verdict's sentences by what they are about: one per finding, one or two per client kept waiting or working unlocked, then the outcome's. */
export interface Sentences {
  readonly doubleOwnership: string[];
  readonly lostLocks: string[];
  readonly staleWrites: string[];
  readonly unprotectedWrites: string[];
  readonly availability: string[];
  readonly outcome: string[];
}

/** One sentence per finding, then one that sums the outcome up. */
export function summarize(v: Verdict): string[] {
  const s = sentences(v);
  return [...s.doubleOwnership, ...s.lostLocks, ...s.staleWrites, ...s.unprotectedWrites, ...s.availability, ...s.outcome];
}

/** The same sentences, grouped (see `Sentences`): a printer that shows the first few of each can say how many it left out. */
export function sentences(v: Verdict): Sentences {
  const out: Sentences = { doubleOwnership: [], lostLocks: [], staleWrites: [], unprotectedWrites: [], availability: [], outcome: [] };
  let lines = out.doubleOwnership;
  for (const d of v.doubleOwnership) {
    lines.push(
      `${d.clients[0]} and ${d.clients[1]} both believed they held ${d.key} from ${formatInstant(d.fromUs)} to ${formatInstant(d.toUs)} (${formatDuration(d.toUs - d.fromUs)}).`,
    );
  }
  lines = out.lostLocks;
  for (const l of v.lostLocks) {
    lines.push(`${l.client} lost ${l.key} at ${formatInstant(l.atUs)} (${l.how}${l.reason === '' ? '' : `: ${l.reason}`}) while it still believed it held it.`);
  }
  lines = out.staleWrites;
  for (const w of v.staleWrites) {
    const token = w.fence === null ? 'without a fencing token' : `with fencing token ${w.fence}`;
    const result = w.accepted ? 'was ACCEPTED: the resource is corrupted' : 'was rejected by fencing';
    lines.push(`${w.client}'s write ${token} at ${formatInstant(w.timeUs)} ${result}; ${staleWhy(w)}.${w.accepted ? tooEarly(w) : ''}`);
  }
  lines = out.unprotectedWrites;
  for (const w of v.unprotectedWrites) {
    const detail = w.how !== 'released' && w.reason !== null ? `: ${w.reason}` : '';
    lines.push(
      `${w.client}'s write at ${formatInstant(w.timeUs)} came after its own lock had ended at ${formatInstant(w.endedUs)} (${w.how}${detail}), but nobody else had been granted the lock since: an unprotected write, not damage — had another client taken the lock first, it would have been a stale write.`,
    );
  }
  lines = out.availability;
  for (const a of v.availability) {
    if (a.lockOutUs > 0) lines.push(lockOutSentence(a));
    if (a.workWithoutLockUs > 0)
      lines.push(`${a.client} worked ${formatDuration(a.workWithoutLockUs)} of its ${formatDuration(a.workedUs)} of work without holding the lock.`);
  }
  lines = out.outcome;
  const doubles = v.doubleOwnership.length;
  if (v.outcome === 'safe' && doubles === 0 && v.unprotectedWrites.length === 0) lines.push('No double ownership and no stale write: mutual exclusion held.');
  if (v.outcome === 'safe' && doubles === 0 && v.unprotectedWrites.length > 0)
    lines.push('No two clients held the lock at once, and no stale write reached the resource; but a write went out after its lock had ended.');
  if (v.outcome === 'safe' && doubles > 0) lines.push('Mutual exclusion failed for a while, but no stale write reached the resource.');
  if (v.outcome === 'fenced') lines.push('Mutual exclusion failed, but fencing rejected every stale write: the resource is intact.');
  const refused = v.refusedHolders.length;
  if (refused > 0) {
    lines.push(
      `Fencing also refused ${refused} write${refused === 1 ? '' : 's'} from a client that did hold the lock: without a fencing token the resource cannot tell good writes from stale ones.`,
    );
  }
  return out;
}

/**
 * A word on the scenario to say beside the verdict: clients that lock
 * different keys (a typo in one of them, say) never keep each other out,
 * and no finding can show it, since each key is judged on its own; yet
 * they share the one resource. Undefined when every client locks the same key.
 */
export function keysApart(clients: ReadonlyArray<{ readonly name: string; readonly key: string }>): string | undefined {
  const byKey = new Map<string, string[]>();
  for (const c of clients) byKey.set(c.key, [...(byKey.get(c.key) ?? []), c.name]);
  if (byKey.size < 2) return undefined;
  const who = [...byKey].map(([key, names]) => `${names.join(', ')} on ${JSON.stringify(key)}`).join('; ');
  return `Note: the clients lock different keys (${who}): a lock on one key keeps no one off another, so clients on different keys never kept each other out, though they share the one resource. Each key is judged on its own.`;
}

/**
 * A run's lock cycles, as a sweep counts them in its thousands of runs: each
 * acquisition that succeeded, until its client stopped believing it held the
 * lock, and how many of them another client's belief overlapped.
 */
export interface LockCycles {
  readonly begun: number;
  readonly doubleOwned: number;
}

/** The lock cycles an interval derivation counted (final once it finished). */
export function lockCyclesOf(t: Pick<IntervalTracker, 'beliefsBegun' | 'beliefsDoubleOwned'>): LockCycles {
  return { begun: t.beliefsBegun, doubleOwned: t.beliefsDoubleOwned };
}

/** The lock cycles of a whole trace's events. */
export function lockCyclesIn(events: readonly TraceEvent[]): LockCycles {
  return lockCyclesOf(deriveIntervals(events));
}

/** "60 lock cycles, 3 of them double-owned (5.0 %)": one run's share of jobs two clients both owned, the figure a sweep gives the odds of. */
export function lockCyclesLine(cycles: LockCycles): string {
  const { begun, doubleOwned } = cycles;
  if (begun === 0) return 'No lock cycle: no client ever believed it held the lock.';
  const of = counted(begun, 'lock cycle', { show: grouped });
  if (doubleOwned === 0) return `${of}, ${begun === 1 ? 'not' : 'none of them'} double-owned.`;
  if (doubleOwned === begun) return `${of}, ${begun === 2 ? 'both' : 'all of them'} double-owned.`;
  return `${of}, ${grouped(doubleOwned)} of them double-owned (${percent2(doubleOwned / begun)} %).`;
}
