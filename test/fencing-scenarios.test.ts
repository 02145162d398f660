import { describe, expect, it } from 'vitest';
import { explainStaleWrites, type FencingLimit } from './support/fencing-limits.js';
import { pinOutcomes, reproduce, runBuiltin, type Pinned } from './support/pinned.js';

/** The built-in scenarios that show each documented limit of fencing (docs/fencing.md), and the fixes where there are any. */
const PINNED: Pinned[] = [
  { name: 'fencing-newer-token-unseen', sets: [], outcome: 'unsafe' },
  { name: 'redis-aof-token-reuse', sets: [], outcome: 'unsafe' },
  { name: 'redis-aof-token-reuse', sets: ['store.persistence=aof-always'], outcome: 'safe' },
  { name: 'redis-aof-token-reuse', sets: ['faults[0].downMs=10000'], outcome: 'safe' },
  { name: 'deploy-splits-fencing-counter', sets: [], outcome: 'unsafe' },
  { name: 'deploy-splits-fencing-counter', sets: ['faults[0].store.keyPrefix=v1:'], outcome: 'safe' },
];

/** Each limit and the scenario (with overrides) that shows it with fencing on. */
const SHOWN_BY: ReadonlyArray<{ limit: FencingLimit; name: string; sets: string[] }> = [
  { limit: 'newer-token-unseen', name: 'fencing-newer-token-unseen', sets: [] },
  { limit: 'counter-lost-in-restart', name: 'redis-aof-token-reuse', sets: [] },
  { limit: 'counter-lost-in-restart', name: 'redis-restart-without-persistence', sets: ['resource.fencing=true'] },
  { limit: 'tokens-from-two-counters', name: 'deploy-splits-fencing-counter', sets: [] },
];

describe('the limits of fencing, each shown by a built-in scenario', () => {
  pinOutcomes(new URL('./golden/fencing.json', import.meta.url), PINNED);

  for (const s of SHOWN_BY) {
    it(`${[s.name, ...s.sets].join(' ')} gets a stale write past fencing by ${s.limit}`, () => {
      const doc = runBuiltin(s.name, s.sets);
      expect(doc.scenario.resource.fencing).toBe(true);
      expect(
        explainStaleWrites(doc).map((x) => x.limit),
        reproduce(s.name, s.sets, doc.seed),
      ).toContain(s.limit);
    });
  }

  it('redis-aof-token-reuse: the restart within the fsync second loses A’s lock and the counter, and B is handed A’s token again', () => {
    const doc = runBuiltin('redis-aof-token-reuse');
    const grants = doc.events.filter((e) => e.kind === 'lock.granted').map((e) => [e.owner, e.fence]);
    expect(grants).toEqual([
      ['A:1', 1],
      ['B:1', 1],
    ]);
    expect(doc.events.find((e) => e.kind === 'lock.lost')?.reason).toBe('restart lost writes since the last AOF fsync');
    expect(doc.verdict.staleWrites.map((w) => [w.client, w.fence, w.accepted])).toEqual([
      ['A', 1, true],
      ['A', 1, true],
    ]);
  });

  it('every fencing-limit scenario stays unsafe across seeds', () => {
    for (let seed = 0; seed < 20; seed++) {
      for (const p of PINNED.filter((q) => q.outcome === 'unsafe'))
        expect(runBuiltin(p.name, p.sets, seed).verdict.outcome, reproduce(p.name, p.sets, seed)).toBe('unsafe');
    }
  });
});
