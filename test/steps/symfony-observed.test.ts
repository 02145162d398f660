import { describe, expect, it } from 'vitest';
import { one, pick, results, runSteps, S } from '../support/steps-harness.js';

/*
 * What the real Symfony Lock 5.4 did on real Redis 7.0, Memcached 1.6 and
 * PostgreSQL 15 (shared/STORES.md, last section), reproduced on the models.
 */

const MS = 1000;
/** A's script: take the lock, work through a pause, then ask, refresh and release as the observations did. */
const zombie = (workMs: number) => [S.acquire(), S.work(workMs), S.isAcquired, S.attempt(S.refresh()), S.release];

describe('Symfony Lock 5.4 as observed on real servers', () => {
  it('Redis, TTL 1 s, A paused 1.5 s: B acquires at about 1.2 s; A’s isAcquired() is false, refresh() throws LockConflictedException, release() returns and leaves B’s lock', () => {
    const doc = runSteps(
      'redis',
      [
        { name: 'A', ttlMs: 1000, steps: zombie(100) },
        { name: 'B', machine: 'app2', startMs: 200, ttlMs: 10_000, steps: [S.acquire({ blocking: true }), S.work(3000), S.release] },
      ],
      [{ kind: 'pause', target: 'A', atMs: 50, durationMs: 1500 }],
    );
    const granted = pick(doc, 'lock.granted').find((e) => e.owner === 'B:1')!;
    expect(granted.timeUs).toBeGreaterThan(1000 * MS);
    expect(granted.timeUs).toBeLessThan(1250 * MS);
    expect(results(doc, 'A')).toEqual(['acquire', '!isAcquired', 'exception.conflicted', 'release:lost']);
    expect(one(doc, 'exception.conflicted', 'A').data).toMatchObject({ method: 'refresh', thrown: 'LockConflictedException' });
    expect(pick(doc, 'lock.released').map((e) => e.owner)).toEqual(['B:1']);
  });

  it('PdoStore, TTL 1 s, A paused 2.5 s: B takes over after the row expires; A’s release() returns quietly', () => {
    const doc = runSteps(
      'sql',
      [
        { name: 'A', ttlMs: 1000, steps: [S.acquire(), S.work(100), S.release] },
        { name: 'B', machine: 'app2', startMs: 200, ttlMs: 10_000, steps: [S.acquire({ blocking: true }), S.work(3000), S.release] },
      ],
      [{ kind: 'pause', target: 'A', atMs: 50, durationMs: 2500 }],
    );
    const granted = pick(doc, 'lock.granted').find((e) => e.owner === 'B:1')!;
    // Whole seconds on the server: the row is taken over within a second of its TTL, and before A wakes.
    expect(granted.timeUs).toBeLessThan(2550 * MS);
    expect(results(doc, 'A')).toEqual(['acquire', 'release:lost']);
    expect(pick(doc, 'lock.released').map((e) => e.owner)).toEqual(['B:1']);
  });

  it('Combined consensus over 3 Redis, two of them restarted without persistence: A’s isAcquired() is false and release() returns', () => {
    const doc = runSteps(
      'combined',
      [{ name: 'A', ttlMs: 30_000, steps: [S.acquire(), S.work(3000), S.isAcquired, S.release] }],
      [
        { kind: 'store-restart', target: 'r1', atMs: 1000, downMs: 200 },
        { kind: 'store-restart', target: 'r2', atMs: 1000, downMs: 200 },
      ],
    );
    expect(results(doc, 'A')).toEqual(['acquire', '!isAcquired', 'release:lost']);
  });

  it('Combined consensus over 3 Redis, one node crash-restarted: B is refused and A still isAcquired()', () => {
    const doc = runSteps(
      'combined',
      [
        { name: 'A', ttlMs: 30_000, steps: [S.acquire(), S.work(3000), S.isAcquired, S.release] },
        { name: 'B', machine: 'app2', startMs: 1500, ttlMs: 30_000, steps: [S.acquire(), S.release] },
      ],
      [{ kind: 'store-restart', target: 'r1', atMs: 1000, downMs: 200 }],
    );
    expect(results(doc, 'A')).toEqual(['acquire', 'isAcquired', 'release']);
    expect(results(doc, 'B')).toEqual(['acquire:false', 'release:lost']);
  });

  it('Memcached crash-restart while A holds: B acquires; A’s isAcquired() is false, yet its refresh() succeeds once B has released (MemcachedStore re-adds a missing key)', () => {
    const doc = runSteps(
      'memcached',
      [
        { name: 'A', ttlMs: 30_000, steps: [S.acquire(), S.sleep(2000), S.isAcquired, S.sleep(2000), S.refresh(), S.isAcquired, S.release] },
        { name: 'B', machine: 'app2', startMs: 1200, ttlMs: 30_000, steps: [S.acquire({ blocking: true }), S.work(1000), S.release] },
      ],
      [{ kind: 'store-restart', target: 'memcached', atMs: 500, downMs: 500 }],
    );
    expect(results(doc, 'B')).toEqual(['acquire', 'release']);
    expect(results(doc, 'A')).toEqual(['acquire', '!isAcquired', 'refresh', 'isAcquired', 'release']);
    // The refresh found no item and added it afresh: a new holding, after B's release.
    const readded = pick(doc, 'lock.granted').filter((e) => e.owner === 'A:1');
    expect(readded).toHaveLength(2);
    expect(readded[1]!.timeUs).toBeGreaterThan(one(doc, 'release.ok', 'B').timeUs);
  });

  it('PostgreSQL advisory lock, A’s backend terminated: B acquires at once; A learns at its next query, which throws, and so does its release (no reconnect)', () => {
    const doc = runSteps(
      'postgres',
      [
        { name: 'A', steps: [S.acquire(), S.work(2000), S.attempt(S.isAcquired), S.release] },
        { name: 'B', machine: 'app2', startMs: 100, steps: [S.acquire({ blocking: true }), S.work(3000), S.release] },
      ],
      [{ kind: 'connection-loss', target: 'A', atMs: 1000 }],
    );
    const granted = pick(doc, 'lock.granted').find((e) => e.owner === 'B:1')!;
    expect(granted.timeUs).toBeGreaterThanOrEqual(1000 * MS);
    expect(granted.timeUs).toBeLessThan(1010 * MS);
    // The script's own try/catch swallows the first; the release's ends the script, and even the destructor's query fails.
    expect(results(doc, 'A')).toEqual(['acquire', 'exception.store', 'exception.releasing', 'destruct', 'exception.store']);
    expect(one(doc, 'exception.store', 'A').data).toMatchObject({ method: 'isAcquired', chain: ['PDOException'] });
    expect(one(doc, 'release.error', 'A').reason).toBe('no connection to the server');
  });

  it('a lease that ran out in flight: Symfony deletes the key and throws LockExpiredException, and A never believes the grant', () => {
    const doc = runSteps(
      'redis',
      [
        { name: 'A', startMs: 10, ttlMs: 1000, requestTimeoutMs: 5000, steps: [S.acquire(), S.write] },
        { name: 'B', machine: 'app2', startMs: 1500, ttlMs: 1000, steps: [S.acquire({ blocking: true }), S.write, S.release] },
      ],
      [{ kind: 'latency-spike', atMs: 0, durationMs: 1400, extraMs: 600, machines: ['app'] }],
    );
    expect(one(doc, 'exception.expired', 'A').data).toMatchObject({
      method: 'acquire',
      chain: ['LockAcquiringException', 'LockAcquiringException', 'LockExpiredException'],
    });
    // checkNotExpired() deletes before it throws; over a network this slow both ways the store's own expiry comes first.
    expect(one(doc, 'release.request', 'A').timeUs).toBeLessThan(one(doc, 'exception.expired', 'A').timeUs);
    expect(doc.events.filter((e) => e.actor === 'A').every((e) => e.believes?.holds !== true)).toBe(true);
    // The exception ended A's script before its write: no stale write, no double ownership.
    expect(pick(doc, 'write.request', 'A')).toEqual([]);
    expect(doc.verdict.doubleOwnership).toEqual([]);
    expect(results(doc, 'B')).toEqual(['acquire', 'write', 'release']);
  });
});
