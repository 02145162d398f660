import type { StaleWrite } from '../../sim/check/verdict.js';
import type { TraceDocument, TraceEvent } from '../../sim/trace/types.js';
import { formatInstant } from '../../sim/time.js';
import { roughDuration } from './rough.js';
import { countAtOrBefore, firstAtOrAfter } from './search.js';
import { spanAt } from './state-at.js';
import type { TraceModel, Write } from './types.js';

/*
 * The checker's findings as the lab marks and lists them: each tied to the
 * event it is about (the seqs the checker gives), with a sentence in plain
 * words. This is the one place that reads the Verdict's shape.
 */

export type FindingKind = 'stale-accepted' | 'stale-rejected' | 'double-ownership' | 'lost-lock' | 'refused-holder';

export interface Finding {
  readonly id: string;
  readonly kind: FindingKind;
  /** The event the finding is marked on, and the one "jump to finding" stops at. */
  readonly seq: number;
  /** Every event the finding concerns (the window's start and end, the write, the loss). */
  readonly seqs: readonly number[];
  readonly atUs: number;
  /** Where a window ends (double ownership). */
  readonly toUs: number | null;
  readonly clients: readonly string[];
  /** damage: the resource took a stale write; fenced: fencing stopped one; warning: the lock failed, no damage by itself. */
  readonly severity: 'damage' | 'fenced' | 'warning';
  readonly title: string;
  /** What happened, after the title ("A's lease ended 6 s ago, B holds token 34"). */
  readonly detail: string;
  /** Title and detail as one flag ("stale write accepted: A's lease ended 6 s ago, B holds token 34"). */
  readonly sentence: string;
}

const TITLES: Readonly<Record<FindingKind, string>> = {
  'stale-accepted': 'Stale write accepted',
  'stale-rejected': 'Stale write rejected by fencing',
  'double-ownership': 'Double ownership',
  'lost-lock': 'Lock lost while believed',
  'refused-holder': 'Write refused from the holder',
};

/** The highest fencing token the resource had accepted before each write, by the write's seq. */
export function highestTokensBefore(writes: readonly Write[]): Map<number, number | null> {
  const out = new Map<number, number | null>();
  let highest: number | null = null;
  for (const w of writes) {
    out.set(w.seq, highest);
    if (w.accepted && w.fence !== null && (highest === null || w.fence > highest)) highest = w.fence;
  }
  return out;
}

/** The first event at `atUs` that matches, searching the events of that instant only. */
function eventAt(doc: TraceDocument, times: Float64Array, atUs: number, match: (e: TraceEvent) => boolean): number | null {
  const end = countAtOrBefore(times, atUs);
  for (let i = firstAtOrAfter(times, atUs); i < end; i++) if (match(doc.events[i]!)) return i;
  return null;
}

/** Who the store says holds the lock at an instant, other than `except`, with the token it was granted. */
function holderAt(doc: TraceDocument, model: TraceModel, atUs: number, except: string): { client: string; fence: number | undefined } | null {
  for (const c of model.clients) {
    if (c.name === except) continue;
    const s = spanAt(c.truth, atUs);
    if (s !== null) return { client: c.name, fence: doc.events[s.seq]?.fence };
  }
  return null;
}

/** Why the write was stale, said from the write's moment: "A's lease ended 6 s ago". */
function causeWords(w: StaleWrite): string {
  const c = w.cause;
  if (c.kind === 'never-held') return `${w.client} never held the lock`;
  const ago = roughDuration(w.timeUs - c.atUs);
  if (c.kind === 'superseded') return `${c.client} was granted the lock ${ago} before`;
  const reason = c.reason === null || c.reason === '' ? '' : ` (${c.reason})`;
  switch (c.how) {
    case 'expired':
      return `${w.client}'s lease ended ${ago} ago`;
    case 'released':
      return `${w.client} had released the lock ${ago} before`;
    default:
      return `${w.client}'s lock was ${c.how} ${ago} ago${reason}`;
  }
}

/** "A's lease ended 6 s ago, B holds token 34" (what makes a write stale), from the trace alone. */
function staleSentence(doc: TraceDocument, model: TraceModel, w: StaleWrite, highest: number | null): string {
  const ended = causeWords(w);
  if (!w.accepted) {
    const rejected = doc.events[w.seq];
    const h = typeof rejected?.data?.highestFence === 'number' && rejected.data.highestFence >= 0 ? rejected.data.highestFence : highest;
    const cmp = w.fence !== null && h !== null ? `token ${w.fence} < ${h}` : 'fenced';
    return `${cmp}; ${ended}`;
  }
  const holder = holderAt(doc, model, w.timeUs, w.client);
  const sinceUs = w.cause.kind === 'never-held' ? 0 : w.cause.atUs;
  const since = holder === null && w.cause.kind !== 'superseded' ? takenSince(doc, model, sinceUs, w.timeUs, w.client) : null;
  const now =
    holder !== null
      ? `${holder.client} holds ${holder.fence === undefined ? 'the lock' : `token ${holder.fence}`}`
      : since !== null
        ? `and ${since.client} has since held ${since.fence === undefined ? 'the lock' : `token ${since.fence}`}`
        : highest !== null && w.fence !== null && highest > w.fence
          ? `the resource had already seen token ${highest}`
          : '';
  const noToken = w.fence === null ? '; the write carried no fencing token to check' : '';
  return `${ended}${now === '' ? '' : `, ${now}`}${noToken}`;
}

/** The latest other client the store granted the lock to between the writer's grant and its write. */
function takenSince(doc: TraceDocument, model: TraceModel, fromUs: number, toUs: number, except: string): { client: string; fence: number | undefined } | null {
  let best: { client: string; fence: number | undefined; atUs: number } | null = null;
  for (const c of model.clients) {
    if (c.name === except) continue;
    for (const s of c.truth)
      if (s.fromUs >= fromUs && s.fromUs <= toUs && (best === null || s.fromUs > best.atUs))
        best = { client: c.name, fence: doc.events[s.seq]?.fence, atUs: s.fromUs };
  }
  return best;
}

/** The title, the detail, and the flag sentence: "stale write accepted: …" leads with its title, the others say it all in the detail. */
function words(title: string, detail: string, titled: boolean): { title: string; detail: string; sentence: string } {
  return { title, detail, sentence: titled ? `${title.toLowerCase()}: ${detail}` : detail };
}

/** The lab's findings of a trace, in event order. */
export function findingsOf(doc: TraceDocument, model: TraceModel): Finding[] {
  const v = doc.verdict;
  const out: Finding[] = [];
  const highest = highestTokensBefore(model.resource.writes);
  v.staleWrites.forEach((w, i) => {
    const kind: FindingKind = w.accepted ? 'stale-accepted' : 'stale-rejected';
    out.push({
      id: `stale-${i}`,
      kind,
      seq: w.seq,
      seqs: w.seqs,
      atUs: w.timeUs,
      toUs: null,
      clients: [w.client],
      severity: w.accepted ? 'damage' : 'fenced',
      ...words(TITLES[kind], staleSentence(doc, model, w, highest.get(w.seq) ?? null), true),
    });
  });
  v.doubleOwnership.forEach((d, i) => {
    // The window opens when the second client comes to believe, and closes when either stops.
    const opens = d.seqs[1];
    const closes =
      eventAt(doc, model.times, d.toUs, (e) => d.clients.includes(e.actor) && e.believes?.holds === false) ??
      eventAt(doc, model.times, d.toUs, (e) => d.clients.includes(e.actor) && e.believes !== undefined);
    out.push({
      id: `double-${i}`,
      kind: 'double-ownership',
      seq: opens,
      seqs: closes === null ? d.seqs : [...d.seqs, closes],
      atUs: d.fromUs,
      toUs: d.toUs,
      clients: d.clients,
      severity: 'warning',
      ...words(
        TITLES['double-ownership'],
        `${d.clients[0]} and ${d.clients[1]} both believe they hold ${d.key} for ${roughDuration(d.toUs - d.fromUs)}, from ${formatInstant(d.fromUs)} to ${formatInstant(d.toUs)}`,
        false,
      ),
    });
  });
  v.lostLocks.forEach((l, i) => {
    out.push({
      id: `lost-${i}`,
      kind: 'lost-lock',
      seq: l.seqs[0],
      seqs: l.seqs,
      atUs: l.atUs,
      toUs: null,
      clients: [l.client],
      severity: 'warning',
      ...words(TITLES['lost-lock'], `${l.client} lost ${l.key} (${l.how}${l.reason === '' ? '' : `: ${l.reason}`}) and still believes it holds it`, false),
    });
  });
  v.refusedHolders.forEach((r, i) => {
    out.push({
      id: `refused-${i}`,
      kind: 'refused-holder',
      seq: r.seq,
      seqs: r.seqs,
      atUs: r.timeUs,
      toUs: null,
      clients: [r.client],
      severity: 'warning',
      ...words(TITLES['refused-holder'], `${r.client} held the lock, but its write carried no fencing token, so fencing refused it`, false),
    });
  });
  return out.sort((a, b) => a.seq - b.seq || a.id.localeCompare(b.id));
}
