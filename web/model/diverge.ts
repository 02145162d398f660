import type { TraceEvent } from '../../sim/trace/types.js';

function same(a: TraceEvent, b: TraceEvent): boolean {
  return (
    a.timeUs === b.timeUs && a.kind === b.kind && a.actor === b.actor && a.owner === b.owner && a.fence === b.fence && a.believes?.holds === b.believes?.holds
  );
}

/**
 * The true time at which two runs first differ: the earlier of the first
 * pair of events that do not match. Null when one is a prefix of the other
 * and both end together (the same run).
 */
export function firstDivergenceUs(a: readonly TraceEvent[], b: readonly TraceEvent[]): number | null {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (!same(x, y)) return Math.min(x.timeUs, y.timeUs);
  }
  if (a.length === b.length) return null;
  return (a.length > n ? a[n]! : b[n]!).timeUs;
}
