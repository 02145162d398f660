import type { Mark, Span } from './types.js';

/**
 * Level of detail: what to draw for one row at the current zoom. Spans and
 * marks closer together than a few pixels merge into one drawn item that
 * remembers how many it stands for, so the number of SVG elements is bounded
 * by the width of the plot, not by the length of the trace.
 */
export interface DrawnSpan {
  readonly fromUs: number;
  readonly toUs: number;
  readonly first: Span;
  readonly count: number;
}

export interface DrawnMark<M extends Mark> {
  readonly atUs: number;
  /** The mark that represents the bucket (the most important one, by the caller's ranking). */
  readonly mark: M;
  readonly count: number;
}

function firstStartingAfter<T>(items: readonly T[], at: number, key: (t: T) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(items[mid]!) <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A span narrower than this many merge gaps (pixels) may merge with its neighbour; wider ones always stand alone. */
const NARROW = 3;

/**
 * Spans of a row (sorted by start) that meet [fromUs, toUs], merged where
 * gaps are under `mergeUs` and one of the two is too narrow to see alone.
 * Two wide spans that touch (a takeover: A's holding ends as B's begins)
 * stay two, so each keeps its label; the count drawn is still bounded by
 * the plot's width.
 */
export function visibleSpans(spans: readonly Span[], fromUs: number, toUs: number, mergeUs: number): DrawnSpan[] {
  const out: DrawnSpan[] = [];
  // Long spans that began before the window may still reach into it; walk back over a bounded number of them.
  let i = firstStartingAfter(spans, fromUs, (s) => s.fromUs);
  for (let back = 0; i > 0 && back < 64; back++) {
    if (spans[i - 1]!.toUs < fromUs && back > 0) break;
    i--;
  }
  let cur: { fromUs: number; toUs: number; first: Span; count: number } | null = null;
  for (; i < spans.length; i++) {
    const s = spans[i]!;
    if (s.fromUs > toUs) break;
    if (s.toUs < fromUs) continue;
    const narrow = cur !== null && (s.toUs - s.fromUs < NARROW * mergeUs || cur.toUs - cur.fromUs < NARROW * mergeUs);
    // Spans that overlap on one row (several holders at once) cannot be told apart anyway, so they merge too.
    if (cur !== null && ((s.fromUs - cur.toUs <= mergeUs && narrow) || s.fromUs < cur.toUs)) {
      cur.toUs = Math.max(cur.toUs, s.toUs);
      cur.count++;
      continue;
    }
    if (cur !== null) out.push(cur);
    cur = { fromUs: s.fromUs, toUs: s.toUs, first: s, count: 1 };
  }
  if (cur !== null) out.push(cur);
  return out;
}

/** Marks (sorted by time) inside [fromUs, toUs], bucketed so two drawn marks are at least `bucketUs` apart. */
export function visibleMarks<M extends Mark>(
  marks: readonly M[],
  fromUs: number,
  toUs: number,
  bucketUs: number,
  rank: (m: M) => number = () => 0,
): DrawnMark<M>[] {
  const out: { atUs: number; mark: M; count: number }[] = [];
  let i = firstStartingAfter(marks, fromUs - 1, (m) => m.atUs);
  // firstStartingAfter(from - 1) is the first mark at or after fromUs for integer times.
  for (; i < marks.length; i++) {
    const m = marks[i]!;
    if (m.atUs > toUs) break;
    const last = out[out.length - 1];
    if (last !== undefined && m.atUs - last.atUs < bucketUs) {
      last.count++;
      if (rank(m) > rank(last.mark)) last.mark = m;
      continue;
    }
    out.push({ atUs: m.atUs, mark: m, count: 1 });
  }
  return out;
}
