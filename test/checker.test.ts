import { staleWhy, summarize } from '../sim/check/summary.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check } from '../sim/check/checker.js';
import { TraceBuilder } from './support/trace-builder.js';

describe('checker', () => {
  it('calls a run with one holder at a time safe', () => {
    const t = new TraceBuilder()
      .granted(10, 'A:1')
      .believes(20, 'A', 'A:1')
      .write(30, 'A:1', true, 1)
      .believes(40, 'A', null)
      .ended(50, 'lock.released', 'A:1')
      .granted(60, 'B:1')
      .believes(70, 'B', 'B:1')
      .write(80, 'B:1', true, 2);
    const v = check(t.events);
    expect(v.outcome).toBe('safe');
    expect(v.doubleOwnership).toEqual([]);
    expect(v.staleWrites).toEqual([]);
    expect(v.lostLocks).toEqual([]);
  });

  it('reports the window in which two clients both believe, and who', () => {
    const t = new TraceBuilder()
      .granted(0, 'A:1')
      .believes(5, 'A', 'A:1')
      .ended(100, 'lock.expired', 'A:1')
      .granted(110, 'B:1')
      .believes(120, 'B', 'B:1')
      .believes(300, 'B', null)
      .believes(400, 'A', null);
    const v = check(t.events);
    // Each finding points at the events it is about: where the two beliefs began, where the holding ended.
    expect(v.doubleOwnership).toEqual([{ key: 'job', fromUs: 120, toUs: 300, clients: ['A', 'B'], owners: ['A:1', 'B:1'], seqs: [1, 4] }]);
    expect(v.lostLocks).toEqual([{ key: 'job', client: 'A', owner: 'A:1', atUs: 100, how: 'expired', reason: 'expired', seqs: [2, 1] }]);
    // Nobody wrote while both believed, so the resource took no harm.
    expect(v.outcome).toBe('safe');
  });

  it('ignores overlaps on different keys', () => {
    const t = new TraceBuilder().granted(0, 'A:1', 'a').believes(1, 'A', 'A:1', 'a').granted(2, 'B:1', 'b').believes(3, 'B', 'B:1', 'b');
    expect(check(t.events).doubleOwnership).toEqual([]);
  });

  it('an accepted write after the lock expired, with nobody granted it since, is unprotected: reported, not damage', () => {
    const t = new TraceBuilder().granted(0, 'A:1').believes(1, 'A', 'A:1').ended(100, 'lock.expired', 'A:1').write(150, 'A:1', true, 33);
    const v = check(t.events);
    expect(v.outcome).toBe('safe');
    expect(v.staleWrites).toEqual([]);
    expect(v.unprotectedWrites).toEqual([
      { seq: 3, timeUs: 150, client: 'A', owner: 'A:1', fence: 33, endedUs: 100, how: 'expired', reason: 'expired', seqs: [3, 2] },
    ]);
    expect(summarize(v).join(' ')).toMatch(
      /A's write at 0\.000 s came after its own lock had ended .* nobody else had been granted the lock since: an unprotected write, not damage/,
    );
  });

  it('an accepted write after the lock expired and another client took it is a stale write and makes the run unsafe', () => {
    const t = new TraceBuilder().granted(0, 'A:1').believes(1, 'A', 'A:1').ended(100, 'lock.expired', 'A:1').granted(120, 'B:1').write(150, 'A:1', true, 33);
    const v = check(t.events);
    expect(v.outcome).toBe('unsafe');
    expect(v.staleWrites).toEqual([
      {
        seq: 4,
        timeUs: 150,
        client: 'A',
        owner: 'A:1',
        fence: 33,
        accepted: true,
        cause: { kind: 'ended', atUs: 100, how: 'expired', reason: 'expired', seq: 2 },
        newer: { client: 'B', owner: 'B:1', fence: null, atUs: 120, seq: 3 },
        highestSeen: null,
        seqs: [4, 2],
      },
    ]);
    expect(v.unprotectedWrites).toEqual([]);
  });

  it('a stale write rejected by fencing leaves the run fenced, not unsafe', () => {
    const t = new TraceBuilder()
      .granted(0, 'A:1')
      .believes(1, 'A', 'A:1')
      .ended(100, 'lock.expired', 'A:1')
      .granted(110, 'B:1')
      .believes(111, 'B', 'B:1')
      .write(120, 'B:1', true, 34)
      .write(150, 'A:1', false, 33);
    const v = check(t.events);
    expect(v.outcome).toBe('fenced');
    expect(v.staleWrites.map((w) => [w.owner, w.accepted])).toEqual([['A:1', false]]);
  });

  it('a write by a holder whose lock was granted to someone newer is stale even if its own never ended (two stores granted it)', () => {
    const t = new TraceBuilder().granted(0, 'A:1', 'job', 'flock@app1').granted(10, 'B:1', 'job', 'flock@app2').write(20, 'B:1', true).write(30, 'A:1', true);
    const v = check(t.events);
    expect(v.staleWrites.map((w) => [w.owner, staleWhy(w)])).toEqual([['A:1', 'B had been granted the lock at 0.000 s']]);
    expect(v.outcome).toBe('unsafe');
  });

  it('a crash ends a belief: an expiry after the crash is not a lost lock', () => {
    const t = new TraceBuilder().granted(0, 'A:1').believes(1, 'A', 'A:1').crash(50, 'A').ended(100, 'lock.expired', 'A:1');
    expect(check(t.events).lostLocks).toEqual([]);
  });

  it('a belief still open at the end of the trace runs to the last event', () => {
    const t = new TraceBuilder()
      .granted(0, 'A:1')
      .believes(1, 'A', 'A:1')
      .ended(10, 'lock.deleted', 'A:1')
      .granted(11, 'B:1')
      .believes(12, 'B', 'B:1')
      .write(90, 'B:1', true);
    expect(check(t.events).doubleOwnership).toEqual([{ key: 'job', fromUs: 12, toUs: 90, clients: ['A', 'B'], owners: ['A:1', 'B:1'], seqs: [1, 4] }]);
  });

  it('finds every overlap planted into a trace of random belief intervals', () => {
    const interval = fc.record({
      client: fc.constantFrom('A', 'B', 'C', 'D'),
      start: fc.integer({ min: 0, max: 1000 }),
      length: fc.integer({ min: 1, max: 300 }),
    });
    fc.assert(
      fc.property(fc.array(interval, { minLength: 1, maxLength: 12 }), (planted) => {
        // Each client's intervals must not overlap themselves: keep them apart per client.
        const byClient = new Map<string, Array<{ start: number; end: number; owner: string }>>();
        for (const p of planted) {
          const list = byClient.get(p.client) ?? [];
          const start = list.length === 0 ? p.start : list[list.length - 1]!.end + 1 + p.start;
          list.push({ start, end: start + p.length, owner: `${p.client}:${list.length + 1}` });
          byClient.set(p.client, list);
        }
        const marks: Array<{ t: number; client: string; owner: string | null }> = [];
        for (const [client, list] of byClient) for (const i of list) marks.push({ t: i.start, client, owner: i.owner }, { t: i.end, client, owner: null });
        marks.sort((a, b) => a.t - b.t || (a.owner === null ? -1 : 1));
        const b = new TraceBuilder();
        for (const m of marks) b.believes(m.t, m.client, m.owner);
        const found = check(b.events).doubleOwnership;

        const expected: string[] = [];
        const all = [...byClient].flatMap(([client, list]) => list.map((i) => ({ client, ...i })));
        for (let x = 0; x < all.length; x++) {
          for (let y = x + 1; y < all.length; y++) {
            const p = all[x]!;
            const q = all[y]!;
            if (p.client === q.client) continue;
            const from = Math.max(p.start, q.start);
            const to = Math.min(p.end, q.end);
            if (to > from) expected.push(`${[p.owner, q.owner].sort().join('&')}@${from}-${to}`);
          }
        }
        const got = found.map((d) => `${[...d.owners].sort().join('&')}@${d.fromUs}-${d.toUs}`);
        expect(got.sort()).toEqual(expected.sort());
      }),
      { numRuns: 300 },
    );
  });

  it('a lock on a group of nodes is held while a quorum of them hold it, and lost when it drops below', () => {
    const g = { group: 'redlock', quorum: 2 };
    const t = new TraceBuilder()
      .granted(0, 'A:1', 'job', 'r1', g)
      .granted(5, 'A:1', 'job', 'r2', g)
      .believes(6, 'A', 'A:1')
      .granted(7, 'A:1', 'job', 'r3', g)
      .ended(50, 'lock.expired', 'A:1', 'job', 'r1', g)
      .ended(60, 'lock.lost', 'A:1', 'job', 'r3', g)
      .granted(65, 'B:1')
      .write(70, 'A:1', true);
    const v = check(t.events);
    // Two of three still held after r1 expired; r3's loss at 60 dropped it to one.
    expect(v.lostLocks).toEqual([
      { key: 'job', client: 'A', owner: 'A:1', atUs: 60, how: 'lost', reason: 'lost', seqs: [t.events.find((e) => e.timeUs === 60)!.seq, expect.any(Number)] },
    ]);
    expect(v.staleWrites.map((w) => staleWhy(w))).toEqual(['its lock had ended at 0.000 s (lost: lost)']);
  });

  it('two holders of a majority each are both holding: the earlier one is superseded', () => {
    const g = { group: 'redlock', quorum: 2 };
    const t = new TraceBuilder()
      .granted(0, 'A:1', 'job', 'r1', g)
      .granted(1, 'A:1', 'job', 'r2', g)
      .ended(10, 'lock.lost', 'A:1', 'job', 'r2', g)
      .granted(11, 'A:1', 'job', 'r3', g)
      .granted(20, 'B:1', 'job', 'r2', g)
      .granted(21, 'B:1', 'job', 'r4', g)
      .write(30, 'A:1', true);
    expect(check(t.events).staleWrites.map((w) => staleWhy(w))).toEqual(['B had been granted the lock at 0.000 s']);
  });

  it('shared (read) locks overlap without double ownership, and do not supersede a writer', () => {
    const t = new TraceBuilder()
      .granted(0, 'R:1', 'job', 'pg', { shared: true })
      .believesShared(1, 'R', 'R:1')
      .granted(2, 'S:1', 'job', 'pg', { shared: true })
      .believesShared(3, 'S', 'S:1');
    expect(check(t.events).doubleOwnership).toEqual([]);
    const w = new TraceBuilder()
      .granted(0, 'A:1')
      .believes(1, 'A', 'A:1')
      .granted(2, 'R:1', 'job', 'redis2', { shared: true })
      .believesShared(3, 'R', 'R:1')
      .write(5, 'A:1', true);
    const v = check(w.events);
    expect(v.staleWrites).toEqual([]);
    expect(v.doubleOwnership.map((d) => d.clients)).toEqual([['A', 'R']]);
  });

  it('judges the key the client protects, even when stores see it under other names', () => {
    const t = new TraceBuilder()
      .granted(0, 'A:1', 'v1:job')
      .believes(1, 'A', 'A:1')
      .granted(2, 'B:1', 'v2:job')
      .believes(3, 'B', 'B:1')
      .write(4, 'B:1', true)
      .write(5, 'A:1', true);
    expect(check(t.events).staleWrites.map((w) => w.owner)).toEqual(['A:1']);
  });
});
