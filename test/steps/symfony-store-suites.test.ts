import { describe, expect, it } from 'vitest';
import { KINDS, one, pick, results, runSteps, S } from '../support/steps-harness.js';

/*
 * Symfony Lock's own store test suites (src/Symfony/Component/Lock/Tests/Store:
 * AbstractStoreTestCase, ExpiringStoreTestTrait, BlockingStoreTestTrait,
 * SharedLockStoreTestTrait), restated as scenarios and run against every model
 * each applies to. A Key of theirs is a client here (one Lock object each, its
 * own owner token); their store calls are the steps that make them
 * (acquire → save, isAcquired → exists, release → delete, refresh → putOffExpiration).
 */

/** Stores that share (SharedLockStoreInterface, or a model of the same), with the Symfony suites that cover them. */
const SHARING = ['redis', 'flock', 'postgres', 'combined'];
/** Stores whose locks expire by a TTL the client sets (ExpiringStoreTestTrait), with the smallest delay their clock can tell. */
const EXPIRING: Record<string, number> = { redis: 250, mongodb: 250, combined: 250, redlock: 250, memcached: 1000, sql: 1000 };
/** Stores that wait in the store (BlockingStoreTestTrait). */
const BLOCKING = ['flock', 'semaphore', 'postgres', 'zookeeper-recipe', 'etcd'];

describe('AbstractStoreTestCase, against every model', () => {
  for (const kind of KINDS) {
    describe(kind, () => {
      it('save: a key exists once saved and no longer once deleted', () => {
        const doc = runSteps(kind, [{ name: 'K', steps: [S.isAcquired, S.acquire(), S.isAcquired, S.release, S.isAcquired] }]);
        expect(results(doc, 'K')).toEqual(['!isAcquired', 'acquire', 'isAcquired', 'release', '!isAcquired']);
      });

      it('save with different resources: two keys live side by side, and deleting one leaves the other', () => {
        const doc = runSteps(kind, [
          { name: 'K1', key: 'res1', steps: [S.acquire(), S.sleep(200), S.isAcquired, S.release, S.sleep(200), S.isAcquired] },
          { name: 'K2', key: 'res2', startMs: 100, steps: [S.acquire(), S.sleep(200), S.isAcquired, S.release] },
        ]);
        expect(results(doc, 'K1')).toEqual(['acquire', 'isAcquired', 'release', '!isAcquired']);
        expect(results(doc, 'K2')).toEqual(['acquire', 'isAcquired', 'release']);
      });

      it('save with different keys on the same resource: the second is refused, the first is untouched, and after a delete the second saves', () => {
        const doc = runSteps(kind, [
          { name: 'K1', steps: [S.acquire(), S.sleep(300), S.isAcquired, S.release] },
          { name: 'K2', startMs: 100, steps: [S.acquire(), S.isAcquired, S.sleep(400), S.acquire(), S.isAcquired, S.release] },
        ]);
        expect(results(doc, 'K1')).toEqual(['acquire', 'isAcquired', 'release']);
        expect(results(doc, 'K2')).toEqual(['acquire:false', '!isAcquired', 'acquire', 'isAcquired', 'release']);
      });

      it('save twice: saving a key it already holds succeeds', () => {
        const doc = runSteps(kind, [{ name: 'K', steps: [S.acquire(), S.acquire(), S.isAcquired, S.release] }]);
        expect(results(doc, 'K')).toEqual(['acquire', 'acquire', 'isAcquired', 'release']);
        expect(pick(doc, 'lock.granted')).toHaveLength(kind === 'redlock' || kind === 'combined' ? 3 : 1);
      });

      it('delete isolated: deleting another key leaves ours alone', () => {
        const doc = runSteps(kind, [
          { name: 'K1', key: 'res1', steps: [S.acquire(), S.sleep(300), S.isAcquired] },
          { name: 'K2', key: 'res2', startMs: 100, steps: [S.release] },
        ]);
        // K1's script ends holding it: its Lock object's destructor asks, and releases.
        expect(results(doc, 'K1')).toEqual(['acquire', 'isAcquired', 'destruct', 'isAcquired', 'release']);
        expect(results(doc, 'K2')).toEqual(['release:lost']);
      });
    });
  }
});

describe('ExpiringStoreTestTrait, against the expiring models', () => {
  for (const [kind, delayMs] of Object.entries(EXPIRING)) {
    describe(kind, () => {
      it('expiration (and refresh lock): a key put off to 2 delays exists, and after 3 delays it is gone', () => {
        const doc = runSteps(kind, [{ name: 'K', steps: [S.acquire(), S.refresh(2 * delayMs), S.isAcquired, S.sleep(3 * delayMs), S.isAcquired] }]);
        expect(results(doc, 'K')).toEqual(['acquire', 'refresh', 'isAcquired', '!isAcquired']);
      });

      it('set expiration: after a 1 s refresh the remaining lifetime is between 0 and 1 s', () => {
        const doc = runSteps(kind, [{ name: 'K', steps: [S.acquire(), S.refresh(1000), S.lifetime, S.release] }]);
        const left = one(doc, 'lifetime.read', 'K').data!.remainingUs as number;
        expect(left).toBeGreaterThanOrEqual(0);
        expect(left).toBeLessThanOrEqual(1_000_000);
      });

      it('expired lock cleaned: a key whose lifetime ran out while it was saved is deleted, and another key saves', () => {
        // reduceLifetime(0) before save, here: a request slower than the TTL.
        const doc = runSteps(
          kind,
          [
            { name: 'K1', startMs: 10, ttlMs: 1000, requestTimeoutMs: 5000, steps: [S.attempt(S.acquire()), S.isAcquired] },
            { name: 'K2', machine: 'app2', startMs: 4000, ttlMs: 1000, steps: [S.acquire(), S.isAcquired, S.release] },
          ],
          [{ kind: 'latency-spike', atMs: 0, durationMs: 3000, extraMs: 700, machines: ['app'] }],
        );
        if (kind === 'redlock') {
          // node-redlock counts a round whose validity is gone as failed, releases everywhere, and reports no lock.
          expect(results(doc, 'K1')).toEqual(['acquire:false', '!isAcquired']);
        } else {
          expect(one(doc, 'exception.expired', 'K1').data?.chain).toContain('LockExpiredException');
          expect(results(doc, 'K1').slice(-1)).toEqual(['!isAcquired']);
        }
        expect(results(doc, 'K2')).toEqual(['acquire', 'isAcquired', 'release']);
      });

      if (kind === 'redlock') {
        // Not a Symfony store: node-redlock's extend refuses a lock whose validity is gone, as a conflict.
        it('abort after expiration: extending by 1 µs is refused (node-redlock has no LockExpiredException)', () => {
          const doc = runSteps(kind, [{ name: 'K', steps: [S.acquire(), S.refresh(0.001)] }]);
          expect(one(doc, 'exception.conflicted', 'K').data).toMatchObject({ method: 'refresh' });
        });
      } else if (kind !== 'memcached' && kind !== 'sql') {
        // Symfony skips it for Memcached and PDO, which refuse TTLs under 1 s (the next test).
        it('abort after expiration: putting off by 1 µs throws LockExpiredException', () => {
          const doc = runSteps(kind, [{ name: 'K', steps: [S.acquire(), S.refresh(0.001)] }]);
          expect(one(doc, 'exception.expired', 'K').data).toMatchObject({ method: 'refresh', chain: ['LockAcquiringException', 'LockExpiredException'] });
        });
      } else {
        it('abort after expiration: a TTL under 1 s is refused by putOffExpiration, before any request', () => {
          const doc = runSteps(kind, [{ name: 'K', steps: [S.acquire(), S.refresh(0.001)] }]);
          expect(one(doc, 'exception.invalid-ttl', 'K').data).toMatchObject({ method: 'refresh', chain: ['LockAcquiringException', 'InvalidTtlException'] });
          expect(pick(doc, 'refresh.request')).toEqual([]);
        });
      }
    });
  }
});

describe('BlockingStoreTestTrait, against the models that wait in the store', () => {
  for (const kind of BLOCKING) {
    it(`${kind}: a save of a held key is refused; waitAndSave then waits until the holder deletes it`, () => {
      const doc = runSteps(kind, [
        { name: 'child', steps: [S.acquire(), S.sleep(500), S.release] },
        { name: 'parent', startMs: 100, steps: [S.acquire(), S.acquire({ native: true }), S.isAcquired, S.release] },
      ]);
      expect(results(doc, 'parent')).toEqual(['acquire:false', 'acquire', 'isAcquired', 'release']);
      // One request waited in the store, and was answered only after the child's delete.
      const asks = pick(doc, 'acquire.request', 'parent');
      expect(asks).toHaveLength(2);
      expect(one(doc, 'acquire.ok', 'parent').timeUs).toBeGreaterThan(one(doc, 'release.request', 'child').timeUs);
    });
  }
});

describe('SharedLockStoreTestTrait, against the models that share', () => {
  for (const kind of SHARING) {
    describe(kind, () => {
      it('read first: two readers hold together, a writer is refused, and gets the lock once both have gone', () => {
        const doc = runSteps(kind, [
          { name: 'K1', steps: [S.acquireRead(), S.sleep(300), S.isAcquired, S.release] },
          { name: 'K2', startMs: 50, steps: [S.acquireRead(), S.sleep(400), S.isAcquired, S.release] },
          { name: 'K3', startMs: 150, steps: [S.acquire(), S.isAcquired, S.sleep(500), S.acquire(), S.isAcquired, S.release] },
        ]);
        expect(results(doc, 'K1')).toEqual(['acquire', 'isAcquired', 'release']);
        expect(results(doc, 'K2')).toEqual(['acquire', 'isAcquired', 'release']);
        expect(results(doc, 'K3')).toEqual(['acquire:false', '!isAcquired', 'acquire', 'isAcquired', 'release']);
        expect(doc.verdict.doubleOwnership).toEqual([]);
      });

      it('write first: a reader is refused while a writer holds, and reads once it has gone', () => {
        const doc = runSteps(kind, [
          { name: 'K1', steps: [S.acquire(), S.sleep(300), S.isAcquired, S.release] },
          { name: 'K2', startMs: 100, steps: [S.acquireRead(), S.isAcquired, S.sleep(400), S.acquireRead(), S.isAcquired, S.release] },
        ]);
        expect(results(doc, 'K1')).toEqual(['acquire', 'isAcquired', 'release']);
        expect(results(doc, 'K2')).toEqual(['acquire:false', '!isAcquired', 'acquire', 'isAcquired', 'release']);
      });

      it('promote: a reader cannot become the writer while another reads', () => {
        const doc = runSteps(kind, [
          { name: 'K1', steps: [S.acquireRead(), S.sleep(200), S.acquire(), S.release] },
          { name: 'K2', startMs: 50, steps: [S.acquireRead(), S.sleep(400), S.isAcquired, S.release] },
        ]);
        // CombinedStore cleans up a failed save with delete(), which takes K1's read lock with it.
        expect(results(doc, 'K1')).toEqual(['acquire', 'acquire:false', kind === 'combined' ? 'release:lost' : 'release']);
        expect(results(doc, 'K2')).toEqual(['acquire', 'isAcquired', 'release']);
      });

      it('promote allowed: the only reader becomes the writer, and keeps readers out until it deletes', () => {
        const doc = runSteps(kind, [
          { name: 'K1', steps: [S.acquireRead(), S.acquire(), S.sleep(300), S.isAcquired, S.release] },
          { name: 'K2', startMs: 100, steps: [S.acquireRead(), S.sleep(400), S.acquireRead(), S.isAcquired, S.release] },
        ]);
        expect(results(doc, 'K1')).toEqual(['acquire', 'acquire', 'isAcquired', 'release']);
        expect(results(doc, 'K2')).toEqual(['acquire:false', 'acquire', 'isAcquired', 'release']);
      });

      it('demote: the writer becomes a reader, and another reader joins it', () => {
        const doc = runSteps(kind, [
          { name: 'K1', steps: [S.acquire(), S.acquireRead(), S.sleep(300), S.isAcquired, S.release] },
          { name: 'K2', startMs: 100, steps: [S.acquireRead(), S.isAcquired, S.release] },
        ]);
        expect(results(doc, 'K1')).toEqual(['acquire', 'acquire', 'isAcquired', 'release']);
        expect(results(doc, 'K2')).toEqual(['acquire', 'isAcquired', 'release']);
      });
    });
  }
});
