import fc from 'fast-check';
import { check } from '../../sim/check/checker.js';
import type { TraceEvent } from '../../sim/trace/types.js';
import { must, outcomeOf } from './outcome.js';
import type { Target } from './targets.js';

/*
 * Planted overlaps: traces written from random belief intervals (each client
 * holding one key at a time, on two keys, some shared), with the store's
 * grants and releases around them. Every pair of intervals on one key, from
 * two clients, not both shared, that overlaps in time must be reported as
 * double ownership over exactly their common stretch, and nothing else.
 */

interface Interval {
  readonly client: string;
  readonly key: string;
  readonly shared: boolean;
  readonly gap: number;
  readonly length: number;
}

const interval = fc.record({
  client: fc.constantFrom('A', 'B', 'C', 'D'),
  key: fc.constantFrom('job', 'other'),
  shared: fc.boolean(),
  gap: fc.integer({ min: 0, max: 400 }),
  length: fc.integer({ min: 1, max: 300 }),
});

interface Placed extends Interval {
  readonly owner: string;
  readonly start: number;
  readonly end: number;
}

/** Lays each client's intervals end to end, apart by their gaps, so no client overlaps itself. */
function place(intervals: readonly Interval[]): Placed[] {
  const next = new Map<string, { at: number; n: number }>();
  return intervals.map((i) => {
    const c = next.get(i.client) ?? { at: 0, n: 0 };
    const start = c.at + i.gap;
    const placed = { ...i, owner: `${i.client}:${c.n + 1}`, start, end: start + i.length };
    next.set(i.client, { at: placed.end + 1, n: c.n + 1 });
    return placed;
  });
}

function traceOf(placed: readonly Placed[]): TraceEvent[] {
  const marks: Array<{ t: number; order: number; e: Omit<TraceEvent, 'seq'> }> = [];
  for (const p of placed) {
    const believes = { holds: true, owner: p.owner, ...(p.shared ? { shared: true } : {}) };
    const node = { actor: 'redis', machine: 'db', key: p.key, owner: p.owner, peer: p.client };
    marks.push({ t: p.start, order: 1, e: { timeUs: p.start, kind: 'lock.granted', ...node, ...(p.shared ? { data: { shared: true } } : {}) } });
    marks.push({
      t: p.start,
      order: 2,
      e: { timeUs: p.start, kind: 'acquire.ok', actor: p.client, machine: `m-${p.client}`, key: p.key, owner: p.owner, believes },
    });
    marks.push({
      t: p.end,
      order: 0,
      e: { timeUs: p.end, kind: 'release.request', actor: p.client, machine: `m-${p.client}`, key: p.key, owner: p.owner, believes: { holds: false } },
    });
    marks.push({ t: p.end, order: 0, e: { timeUs: p.end, kind: 'lock.released', ...node, reason: 'released' } });
  }
  marks.sort((a, b) => a.t - b.t || a.order - b.order);
  return marks.map((m, seq) => ({ seq, ...m.e }) as TraceEvent);
}

function expected(placed: readonly Placed[]): string[] {
  const out: string[] = [];
  for (let x = 0; x < placed.length; x++) {
    for (let y = x + 1; y < placed.length; y++) {
      const p = placed[x]!;
      const q = placed[y]!;
      if (p.client === q.client || p.key !== q.key || (p.shared && q.shared)) continue;
      const from = Math.max(p.start, q.start);
      const to = Math.min(p.end, q.end);
      if (to > from) out.push(`${p.key} ${[p.owner, q.owner].sort().join('&')} ${from}-${to}`);
    }
  }
  return out.sort();
}

export const plantedTarget: Target<Interval[]> = {
  name: 'planted overlaps',
  arbitrary: fc.array(interval, { minLength: 1, maxLength: 16 }),
  async run(intervals) {
    return outcomeOf(() => {
      const placed = place(intervals);
      const found = check(traceOf(placed))
        .doubleOwnership.map((d) => `${d.key} ${[...d.owners].sort().join('&')} ${d.fromUs}-${d.toUs}`)
        .sort();
      const want = expected(placed);
      must(JSON.stringify(found) === JSON.stringify(want), `planted ${JSON.stringify(want)}, found ${JSON.stringify(found)}`);
    });
  },
};
