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

/** How many spans start at or before an instant (spans are sorted by start). */
function startedBy(spans: readonly Span[], atUs: number): number {
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (spans[mid]!.fromUs <= atUs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether a span covers an instant; a span the trace left open also covers its last instant. */
const covers = (s: Span, atUs: number): boolean => s.fromUs <= atUs && (atUs < s.toUs || (s.end === 'open' && atUs <= s.toUs));

/** The last span that covers an instant, for a row whose spans do not overlap. */
export function spanAt(spans: readonly Span[], atUs: number): Span | null {
  const s = spans[startedBy(spans, atUs) - 1];
  return s !== undefined && covers(s, atUs) ? s : null;
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

const reach = new WeakMap<readonly Span[], Float64Array>();

/** The latest end among spans 0..i, so a backwards scan knows when nothing earlier can still cover an instant. */
function reachOf(spans: readonly Span[]): Float64Array {
  let r = reach.get(spans);
  if (r === undefined) {
    r = new Float64Array(spans.length);
    let max = -Infinity;
    spans.forEach((s, i) => {
      max = Math.max(max, s.toUs + (s.end === 'open' ? 1 : 0));
      r![i] = max;
    });
    reach.set(spans, r);
  }
  return r;
}

/** Spans of a row that cover an instant, where spans may overlap (several keys on one store). */
export function spansAt(spans: readonly Span[], atUs: number): Span[] {
  const r = reachOf(spans);
  const out: Span[] = [];
  for (let i = startedBy(spans, atUs) - 1; i >= 0 && r[i]! > atUs; i--) if (covers(spans[i]!, atUs)) out.push(spans[i]!);
  return out.reverse();
}
