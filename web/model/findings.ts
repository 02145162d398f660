import type { TraceDocument, TraceEvent } from '../../sim/trace/types.js';
import { formatInstant } from '../../sim/time.js';
import { roughDuration } from './rough.js';
import { countAtOrBefore, firstAtOrAfter } from './search.js';
import { spanAt } from './state-at.js';
import type { Span, TraceModel, Write } from './types.js';

/*
 * The checker's findings as the lab marks and lists them: each tied to the
 * event it is about (its seq), with a sentence in plain words. This is the
 * one place that reads the Verdict's shape; today it finds the events of
 * double-ownership windows and lost locks by their time and owner, and when
 * the checker carries the seqs itself only this file changes.
 */

export type FindingKind = 'stale-accepted' | 'stale-rejected' | 'double-ownership' | 'lost-lock';

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

/** The holding interval the store had for a client's owner token that began last at or before an instant. */
function holdingOf(doc: TraceDocument, spans: readonly Span[], owner: string, atUs: number): Span | null {
  let found: Span | null = null;
  for (const s of spans) if (s.fromUs <= atUs && doc.events[s.seq]?.owner === owner) found = s;
  return found;
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

/** "A's lease ended 6 s ago, B holds token 34" (what makes a write stale), from the trace alone. */
function staleSentence(doc: TraceDocument, model: TraceModel, w: TraceDocument['verdict']['staleWrites'][number], highest: number | null): string {
  const lane = model.clients.find((c) => c.name === w.client);
  const mine = lane === undefined ? null : holdingOf(doc, lane.truth, w.owner, w.timeUs);
  const ended = mine !== null && mine.end !== 'open' && mine.toUs <= w.timeUs ? `${w.client}'s lease ended ${roughDuration(w.timeUs - mine.toUs)} ago` : w.why;
  if (!w.accepted) {
    const rejected = doc.events[w.seq];
    const h = typeof rejected?.data?.highestFence === 'number' && rejected.data.highestFence >= 0 ? rejected.data.highestFence : highest;
    const cmp = w.fence !== null && h !== null ? `token ${w.fence} < ${h}` : 'fenced';
    return `${cmp}; ${ended}`;
  }
  const holder = holderAt(doc, model, w.timeUs, w.client);
  const since = holder === null && mine !== null ? takenSince(doc, model, mine.fromUs, w.timeUs, w.client) : null;
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
      if (s.fromUs > fromUs && s.fromUs <= toUs && (best === null || s.fromUs > best.atUs))
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
      seqs: [w.seq],
      atUs: w.timeUs,
      toUs: null,
      clients: [w.client],
      severity: w.accepted ? 'damage' : 'fenced',
      ...words(TITLES[kind], staleSentence(doc, model, w, highest.get(w.seq) ?? null), true),
    });
  });
  v.doubleOwnership.forEach((d, i) => {
    // The window opens when the second client comes to believe, and closes when either stops.
    const opens = eventAt(doc, model.times, d.fromUs, (e) => e.actor === d.clients[1] && e.believes?.holds === true) ?? firstAtOrAfter(model.times, d.fromUs);
    const closes = eventAt(doc, model.times, d.toUs, (e) => d.clients.includes(e.actor) && e.believes !== undefined);
    out.push({
      id: `double-${i}`,
      kind: 'double-ownership',
      seq: Math.min(opens, doc.events.length - 1),
      seqs: closes === null ? [opens] : [opens, closes],
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
    const at =
      eventAt(doc, model.times, l.atUs, (e) => e.owner === l.owner && (e.kind.startsWith('lock.') || e.kind === 'session.ended')) ??
      eventAt(doc, model.times, l.atUs, () => true) ??
      firstAtOrAfter(model.times, l.atUs);
    out.push({
      id: `lost-${i}`,
      kind: 'lost-lock',
      seq: Math.min(at, doc.events.length - 1),
      seqs: [at],
      atUs: l.atUs,
      toUs: null,
      clients: [l.client],
      severity: 'warning',
      ...words(TITLES['lost-lock'], `${l.client} lost ${l.key} (${l.how}${l.reason === '' ? '' : `: ${l.reason}`}) and still believes it holds it`, false),
    });
  });
  return out.sort((a, b) => a.seq - b.seq || a.id.localeCompare(b.id));
}
