import { describe, expect, it } from 'vitest';
import { InputError } from '../../sim/errors.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { one, pick, results, runSteps, S } from '../support/steps-harness.js';

/* The fidelity fixes found while testing the models against Symfony's store tests (issue 8, point 4). */

const MS = 1000;
const SEC = 1_000_000;

describe('deploys are honoured or refused', () => {
  const deployTo = (store: Record<string, unknown>, patch: Record<string, unknown>) =>
    runSteps(
      store,
      [
        { name: 'A', steps: [S.acquire(), S.sleep(2000), S.write, S.release] },
        { name: 'B', machine: 'app2', startMs: 1000, steps: [S.acquire(), S.write, S.release] },
      ],
      [{ kind: 'deploy', atMs: 500, clients: ['B'], store: patch }],
      { machines: [{ name: 'app' }, { name: 'app2' }, { name: 'db' }, { name: 'db2' }] },
    );

  it('a deploy that moves clients to another server gives them another lock: two holders of one resource (C68)', () => {
    for (const kind of ['redis', 'memcached', 'sql', 'mongodb', 'postgres', 'zookeeper', 'etcd', 'lock-row']) {
      const doc = deployTo({ kind, machine: 'db' }, { machine: 'db2' });
      const granted = pick(doc, 'lock.granted').map((e) => [e.owner, e.actor]);
      expect(granted, kind).toEqual([
        ['A:1', kind === 'lock-row' ? 'locks' : kind],
        ['B:1', `${kind === 'lock-row' ? 'locks' : kind}@db2`],
      ]);
      expect(doc.verdict.doubleOwnership, kind).toHaveLength(1);
    }
  });

  it('Combined takes a deploy of other stores: a client on two of three stores and one on the others both hold a majority of theirs', () => {
    const stores = [1, 2, 3].map((i) => ({ kind: 'redis', name: `r${i}`, machine: 'db' }));
    const other = [3, 4, 5].map((i) => ({ kind: 'redis', name: `r${i}`, machine: 'db2' }));
    const doc = deployTo({ kind: 'combined', strategy: 'consensus', stores }, { stores: other.map((s, i) => (i === 0 ? stores[2] : s)) });
    expect(results(doc, 'B')).toEqual(['acquire', 'write', 'release']);
    expect(doc.verdict.doubleOwnership).toMatchObject([{ clients: ['A', 'B'] }]);
    const strategy = deployTo({ kind: 'combined', strategy: 'consensus', stores }, { strategy: 'unanimous' });
    expect(results(strategy, 'B')).toEqual(['acquire:false', 'write', 'release:lost']);
  });

  it('a deploy of a server’s own setting is refused, naming what a deploy may change', () => {
    const base = { name: 'x', machines: [{ name: 'app' }, { name: 'db' }], clients: [{ name: 'A', machine: 'app' }] };
    const refused = (store: Record<string, unknown>, patch: Record<string, unknown>): string => {
      try {
        normalizeScenario({ ...base, store, faults: [{ kind: 'deploy', atMs: 1, clients: ['A'], store: patch }] }, 'x.json');
      } catch (e) {
        if (e instanceof InputError) return e.message;
        throw e;
      }
      return 'accepted';
    };
    expect(refused({ kind: 'redis', machine: 'db' }, { persistence: 'aof-always' })).toBe(
      'x.json: faults[0].store.persistence: a deploy cannot change "persistence" of the redis store: it is the server\'s own setting, not the clients\' (a deploy may change: keyPrefix, machine)',
    );
    expect(refused({ kind: 'memcached', machine: 'db' }, { memoryBytes: 4096 })).toMatch(/a deploy may change: keyPrefix, machine/);
    expect(refused({ kind: 'zookeeper', machine: 'db' }, { tickMs: 500 })).toMatch(/a deploy may change: machine, sessionTimeoutMs/);
    expect(refused({ kind: 'redis', machine: 'db' }, { machine: 'nowhere' })).toMatch(/faults\[0\]\.store\.machine: no machine named "nowhere"/);
    expect(refused({ kind: 'redis', machine: 'db' }, { keyPrefix: 'v2:' })).toBe('accepted');
  });
});

describe('ZooKeeper and etcd', () => {
  it('a retry after a lost reply does not lock its own owner out', () => {
    for (const kind of ['zookeeper', 'etcd']) {
      const doc = runSteps(
        kind,
        [{ name: 'A', ttlMs: 5000, requestTimeoutMs: 200, steps: [S.acquire({ retries: 5, retryDelayMs: 100 }), S.write, S.release] }],
        [],
        {
          network: { latencyMinMs: 0.5, latencyMaxMs: 2, loss: 0 },
          faults: [{ kind: 'partition', atMs: 0.1, durationMs: 150, groups: [['app'], ['db']] }],
        },
      );
      expect(results(doc, 'A'), kind).toEqual(['acquire', 'write', 'release']);
    }
  });

  it('messages on one connection arrive in order: an abandoned session’s close never overtakes its create, so retries never meet their own node', () => {
    // Latencies wide enough to reorder a close sent after a create, and a timeout short enough to abandon sessions often.
    let acquired = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const doc = runSteps(
        'zookeeper',
        [{ name: 'A', requestTimeoutMs: 6, steps: [S.attempt(S.acquire({ retries: 30, retryDelayMs: 1 })), S.sleep(50), S.release] }],
        [],
        {
          seed,
          network: { latencyMinMs: 0.1, latencyMaxMs: 8, loss: 0 },
        },
      );
      expect(
        pick(doc, 'acquire.denied', 'A').filter((e) => e.data?.holder === 'A:1'),
        `seed ${seed}`,
      ).toEqual([]);
      if (pick(doc, 'acquire.ok', 'A').length > 0) acquired++;
    }
    expect(acquired).toBeGreaterThan(10);
  });

  it('a ZooKeeper ensemble keeps serving while a majority runs, and stops without one; a session survives either', () => {
    const ensemble = { kind: 'zookeeper', servers: [1, 2, 3].map((i) => ({ name: `zk${i}`, machine: 'db' })) };
    const one_down = runSteps(
      ensemble,
      [{ name: 'A', steps: [S.acquire(), S.sleep(5000), S.isAcquired, S.release] }],
      [{ kind: 'store-restart', target: 'zk1', atMs: 1000, downMs: 20_000 }],
    );
    expect(results(one_down, 'A')).toEqual(['acquire', 'isAcquired', 'release']);
    expect(one(one_down, 'release.request', 'A').peer).toBe('zk2');
    const two_down = runSteps(
      ensemble,
      [
        { name: 'A', steps: [S.acquire(), S.sleep(25_000), S.isAcquired, S.release] },
        { name: 'B', machine: 'app2', startMs: 3000, steps: [S.acquire()] },
      ],
      [
        { kind: 'store-restart', target: 'zk1', atMs: 1000, downMs: 15_000 },
        { kind: 'store-restart', target: 'zk2', atMs: 1000, downMs: 15_000 },
      ],
    );
    // Without a quorum nobody is served — B's attempt fails — and no session expires; A's lock is still there after.
    expect(pick(two_down, 'acquire.error', 'B').length + pick(two_down, 'acquire.timeout', 'B').length).toBeGreaterThan(0);
    expect(results(two_down, 'A')).toEqual(['acquire', 'isAcquired', 'release']);
    expect(pick(two_down, 'lock.lost')).toEqual([]);
  });
});

describe('PdoStore on PostgreSQL rounds now to the nearest second; on MySQL it truncates', () => {
  it('a 1 s lease granted at 10.4 s on the server’s clock ends at 10.5 s with PostgreSQL, at 11 s with MySQL', () => {
    const end = (database: string) => {
      const doc = runSteps({ kind: 'sql', machine: 'db', database }, [{ name: 'A', startMs: 10_400, ttlMs: 1000, autoRelease: false, steps: [S.acquire()] }]);
      return one(doc, 'lock.expired').timeUs;
    };
    expect(end('postgresql')).toBeGreaterThanOrEqual(10_500 * MS);
    expect(end('postgresql')).toBeLessThan(10_510 * MS);
    expect(end('mysql')).toBeGreaterThanOrEqual(11 * SEC);
    expect(end('mysql')).toBeLessThan(11_010 * MS);
  });
});

describe('flock lock-file clean-up', () => {
  it('holders keep a lock nobody else sees; a newcomer gets a new one; a process that ended before the clean-up loses nothing', () => {
    const doc = runSteps(
      'flock',
      [
        { name: 'A', steps: [S.acquire(), S.sleep(2000), S.release] },
        { name: 'B', startMs: 1500, steps: [S.acquire(), S.sleep(100), S.release] },
      ],
      [{ kind: 'lock-file-cleanup', atMs: 1000, machine: 'app' }],
    );
    expect(results(doc, 'A')).toEqual(['acquire', 'release']);
    expect(results(doc, 'B')).toEqual(['acquire', 'release']);
    expect(doc.verdict.doubleOwnership).toMatchObject([{ clients: ['A', 'B'] }]);
    expect(doc.verdict.lostLocks).toMatchObject([{ client: 'A', how: 'deleted' }]);
    const later = runSteps(
      'flock',
      [
        { name: 'A', steps: [S.acquire(), S.sleep(500), S.release] },
        { name: 'B', startMs: 1500, steps: [S.acquire(), S.release] },
      ],
      [{ kind: 'lock-file-cleanup', atMs: 1000, machine: 'app' }],
    );
    expect(one(later, 'lock-files.deleted').data).toMatchObject({ files: 0 });
    expect(later.verdict.doubleOwnership).toEqual([]);
  });
});

describe('memcached -M (evictions: false)', () => {
  it('evicts nothing under memory pressure, and refuses to add when memory is full: MemcachedStore sees a taken key', () => {
    const store = (evictions: boolean) => ({ kind: 'memcached', machine: 'db', memoryBytes: 64 * 1024, evictions });
    const pressure = [{ kind: 'memory-pressure', target: 'memcached', atMs: 500, durationMs: 3000, writesPerSec: 1000, itemBytes: 1024 }];
    const clients = [
      { name: 'A', ttlMs: 10_000, steps: [S.acquire(), S.sleep(2000), S.isAcquired, S.release] },
      // Another key: its add needs memory the full cache does not have.
      { name: 'B', machine: 'app2', key: 'other', startMs: 1500, ttlMs: 10_000, steps: [S.acquire()] },
    ];
    const lru = runSteps(store(true), [clients[0]!], pressure);
    expect(one(lru, 'lock.lost').reason).toMatch(/evicted/);
    const m = runSteps(store(false), clients, pressure);
    expect(pick(m, 'lock.lost')).toEqual([]);
    // Even the release's cas needs memory for the new item: it fails and MemcachedStore's delete() returns quietly, but
    // Lock::release() then asks exists(), finds its own token and throws; the key waits out its TTL.
    expect(results(m, 'A')).toEqual(['acquire', 'isAcquired', 'exception.releasing']);
    expect(one(m, 'exception.releasing').reason).toMatch(/the resource is still locked/);
    expect(one(m, 'release.error').reason).toMatch(/out of memory/);
    expect(one(m, 'lock.expired')).toMatchObject({ owner: 'A:1' });
    expect(results(m, 'B')).toEqual(['acquire:false']);
    const add = pick(m, 'acquire.denied', 'B')[0]!;
    expect(add.reason).toBe('SERVER_ERROR out of memory storing object');
  });
});

describe('MongoDB expireAfterSeconds', () => {
  it('the TTL monitor deletes a document only that long after its expires_at; null (no TTL index) never deletes it', () => {
    const clients = [{ name: 'A', ttlMs: 1000, autoRelease: false, steps: [S.acquire()] }];
    const deletedAt = (expireAfterSeconds: number | null) => {
      const doc = runSteps({ kind: 'mongodb', machine: 'db', ttlMonitorSec: 10, expireAfterSeconds }, clients, [], { budget: { maxTimeMs: 200_000 } });
      return pick(doc, 'ttl.monitor').map((e) => e.timeUs);
    };
    expect(deletedAt(0)).toEqual([10 * SEC]);
    expect(deletedAt(30)).toEqual([40 * SEC]);
    expect(deletedAt(null)).toEqual([]);
  });
});

describe('a hand-written lock row with no expiry', () => {
  it('nothing frees it but its owner’s DELETE: a crashed holder keeps everyone out', () => {
    const doc = runSteps(
      'lock-row',
      [
        { name: 'A', steps: [S.acquire(), S.sleep(60_000)] },
        { name: 'B', machine: 'app2', startMs: 1000, steps: [S.acquire({ retries: 10, retryDelayMs: 1000 })] },
      ],
      [{ kind: 'crash', target: 'A', atMs: 500 }],
    );
    expect(results(doc, 'B')).toEqual(['acquire:false']);
    expect(pick(doc, 'lock.expired').concat(pick(doc, 'lock.released'))).toEqual([]);
    expect(doc.verdict.availability.find((a) => a.client === 'B')!.lockOut).toMatchObject([{ why: 'holder-gone', holder: 'A' }]);
  });
});
