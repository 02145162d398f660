import type { Belief, TraceDocument } from '../../sim/trace/types.js';
import { countAtOrBefore } from './search.js';
import type { ClientLane, MachineClock, Span, TraceModel } from './types.js';

/** A machine's own clock at a true instant: the last reading on that machine, advanced at its drift rate. */
export function localAt(clock: MachineClock, trueUs: number, fallbackOffsetUs = 0): number {
  const i = countAtOrBefore(clock.trueUs, trueUs) - 1;
  if (i < 0) return Math.round(trueUs + fallbackOffsetUs);
  const drift = clock.driftPpm[i]!;
  return Math.round(clock.localUs[i]! + (trueUs - clock.trueUs[i]!) * (1 + drift / 1_000_000));
}

export interface ClientView {
  readonly name: string;
  readonly machine: string;
  readonly belief: Belief | null;
  /** Lease left by the client's own clock at the playhead, when it believes it holds a lease. */
  readonly ttlLeftUs: number | null;
  /** The holding interval the store has for this client at the playhead, if any. */
  readonly truth: Span | null;
  readonly paused: boolean;
}

/** The last span that covers an instant, for a row whose spans do not overlap. */
export function spanAt(spans: readonly Span[], atUs: number): Span | null {
  for (let lo = 0, hi = spans.length; lo < hi; ) {
    const mid = (lo + hi) >>> 1;
    if (spans[mid]!.fromUs <= atUs) lo = mid + 1;
    else hi = mid;
    if (lo >= hi) {
      const s = spans[lo - 1];
      return s !== undefined && s.fromUs <= atUs && atUs < s.toUs + (s.end === 'open' ? 1 : 0) ? s : null;
    }
  }
  return null;
}

/**
 * What a client believes at the playhead (the `believes` of its last event
 * at or before the cursor) beside what the store holds for it then.
 */
export function clientViewAt(doc: TraceDocument, model: TraceModel, lane: ClientLane, cursor: number, atUs: number): ClientView {
  const k = countAtOrBefore(lane.beliefSeqs, cursor) - 1;
  const e = k >= 0 ? doc.events[lane.beliefSeqs[k]!] : undefined;
  const belief = e?.believes ?? null;
  let ttlLeftUs: number | null = null;
  if (e !== undefined && belief?.holds === true && belief.ttlLeftUs !== undefined && e.localUs !== undefined) {
    const clock = model.machines.find((m) => m.name === e.machine);
    const nowLocal = clock === undefined ? e.localUs + (atUs - e.timeUs) : localAt(clock, atUs);
    ttlLeftUs = belief.ttlLeftUs - (nowLocal - e.localUs);
  }
  return {
    name: lane.name,
    machine: lane.machine,
    belief,
    ttlLeftUs,
    truth: spanAt(lane.truth, atUs),
    paused: spanAt(lane.pauses, atUs) !== null,
  };
}

/** Holding intervals of a store lane that cover an instant (one per key at most, unless the store is broken). */
export function holdsAt(spans: readonly Span[], atUs: number): Span[] {
  const out: Span[] = [];
  // Spans are sorted by start; those starting after the instant cannot cover it.
  const end = countAtOrBefore(
    spans.map((s) => s.fromUs),
    atUs,
  );
  for (let i = 0; i < end; i++) {
    const s = spans[i]!;
    if (atUs < s.toUs || (s.end === 'open' && atUs <= s.toUs)) out.push(s);
  }
  return out;
}
