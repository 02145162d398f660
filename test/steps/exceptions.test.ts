import { describe, expect, it } from 'vitest';
import { one, pick, results, runSteps, S } from '../support/steps-harness.js';

/* One test per way a Symfony Lock 5.4 call throws, with the chain it builds. */

describe('the exceptions a script sees', () => {
  it('LockConflictedException: refresh() of a lock someone else now holds; the client stops believing', () => {
    const doc = runSteps(
      'redis',
      [
        { name: 'A', ttlMs: 500, steps: [S.acquire(), S.sleep(1000), S.refresh()] },
        { name: 'B', machine: 'app2', startMs: 600, steps: [S.acquire(), S.sleep(2000), S.release] },
      ],
      [],
    );
    const e = one(doc, 'exception.conflicted', 'A');
    expect(e).toMatchObject({
      reason: 'not the owner any more',
      data: { method: 'refresh', thrown: 'LockConflictedException', chain: ['LockConflictedException'] },
    });
    expect(e.believes).toEqual({ holds: false });
    expect(one(doc, 'client.done', 'A').reason).toBe('uncaught LockConflictedException: not the owner any more');
  });

  it('LockExpiredException from acquire(): wrapped twice, the key deleted first', () => {
    const doc = runSteps(
      'redis',
      [{ name: 'A', startMs: 10, ttlMs: 1000, requestTimeoutMs: 5000, steps: [S.acquire()] }],
      [{ kind: 'latency-spike', atMs: 0, durationMs: 3000, extraMs: 600, machines: ['app'] }],
    );
    expect(one(doc, 'exception.expired', 'A')).toMatchObject({
      reason: 'Failed to store the "job" lock.',
      data: { method: 'acquire', thrown: 'LockAcquiringException', chain: ['LockAcquiringException', 'LockAcquiringException', 'LockExpiredException'] },
    });
    expect(pick(doc, 'release.request', 'A')).toHaveLength(1);
  });

  it('LockExpiredException from refresh(): wrapped once, the key deleted first', () => {
    const doc = runSteps(
      'redis',
      [{ name: 'A', startMs: 10, ttlMs: 10_000, requestTimeoutMs: 5000, steps: [S.acquire(), S.sleep(100), S.refresh(1000)] }],
      [{ kind: 'latency-spike', atMs: 50, durationMs: 3000, extraMs: 600, machines: ['app'] }],
    );
    expect(one(doc, 'exception.expired', 'A').data).toEqual({
      method: 'refresh',
      thrown: 'LockAcquiringException',
      chain: ['LockAcquiringException', 'LockExpiredException'],
    });
    expect(pick(doc, 'release.request', 'A')).toHaveLength(1);
    expect(pick(doc, 'refresh.ok', 'A')).toEqual([]);
  });

  it('LockAcquiringException from acquire(): the store cannot be reached (RedisException inside); a blocking acquire throws instead of polling', () => {
    const restart = [{ kind: 'store-restart', target: 'redis', atMs: 0, downMs: 5000 }];
    const tried = runSteps('redis', [{ name: 'A', startMs: 10, steps: [S.acquire()] }], restart);
    expect(one(tried, 'exception.acquiring', 'A').data).toEqual({
      method: 'acquire',
      thrown: 'LockAcquiringException',
      chain: ['LockAcquiringException', 'RedisException'],
    });
    const blocked = runSteps('redis', [{ name: 'A', startMs: 10, steps: [S.acquire({ blocking: true })] }], restart);
    expect(pick(blocked, 'acquire.request', 'A')).toHaveLength(1);
    expect(results(blocked, 'A')).toEqual(['exception.acquiring']);
    // A loop of tries around it catches each one and gives up in the end, as the lifecycle's retries do.
    const retried = runSteps('redis', [{ name: 'A', startMs: 10, steps: [S.acquire({ retries: 3, retryDelayMs: 100 })] }], restart);
    expect(pick(retried, 'acquire.error', 'A')).toHaveLength(4);
    expect(pick(retried, 'exception.acquiring', 'A')).toHaveLength(1);
  });

  it('LockAcquiringException from refresh(): no answer in time (a partition); the client stops believing', () => {
    const doc = runSteps(
      'redis',
      [{ name: 'A', ttlMs: 10_000, steps: [S.acquire(), S.sleep(500), S.refresh()] }],
      [{ kind: 'partition', atMs: 300, durationMs: 3000, groups: [['app'], ['db']] }],
    );
    expect(one(doc, 'refresh.timeout', 'A').believes).toEqual({ holds: false });
    expect(one(doc, 'exception.acquiring', 'A').data).toMatchObject({ method: 'refresh', chain: ['LockAcquiringException', 'RedisException'] });
  });

  it('LockReleasingException: release() cannot reach the store; the key stays until its TTL', () => {
    const doc = runSteps(
      'redis',
      [{ name: 'A', ttlMs: 3000, steps: [S.acquire(), S.sleep(500), S.release] }],
      [{ kind: 'partition', atMs: 300, durationMs: 2000, groups: [['app'], ['db']] }],
    );
    expect(one(doc, 'exception.releasing', 'A')).toMatchObject({
      reason: 'Failed to release the "job" lock.',
      data: { method: 'release', thrown: 'LockReleasingException', chain: ['LockReleasingException', 'RedisException'] },
    });
    expect(one(doc, 'lock.expired')).toMatchObject({ owner: 'A:1' });
  });

  it('no exception where the Symfony store swallows the error: Memcached’s release and ZooKeeper’s are quiet, Combined counts a failed store', () => {
    const down = (target: string) => [{ kind: 'store-restart', target, atMs: 300, downMs: 2000 }];
    const mc = runSteps('memcached', [{ name: 'A', steps: [S.acquire(), S.sleep(500), S.release, S.isAcquired] }], down('memcached'));
    expect(results(mc, 'A')).toEqual(['acquire', 'release:lost', '!isAcquired']);
    const zk = runSteps(
      'zookeeper',
      [{ name: 'A', steps: [S.acquire(), S.sleep(500), S.release] }],
      [{ kind: 'partition', atMs: 300, durationMs: 2000, groups: [['app'], ['db']] }],
    );
    expect(results(zk, 'A')).toEqual(['acquire', 'release:lost']);
    const combined = runSteps('combined', [{ name: 'A', steps: [S.acquire(), S.sleep(500), S.release] }], down('r1'));
    expect(results(combined, 'A')).toEqual(['acquire', 'release']);
  });

  it('InvalidTtlException: a TTL under 1 s on Memcached or PdoStore, from acquire() after the initial save, from refresh() before any request', () => {
    for (const kind of ['memcached', 'sql']) {
      const doc = runSteps(kind, [{ name: 'A', ttlMs: 5000, autoRelease: false, steps: [S.acquire(), S.refresh(999), S.isAcquired] }]);
      expect(one(doc, 'exception.invalid-ttl', 'A').data, kind).toEqual({
        method: 'refresh',
        thrown: 'LockAcquiringException',
        chain: ['LockAcquiringException', 'InvalidTtlException'],
      });
      expect(pick(doc, 'refresh.request'), kind).toEqual([]);
      // The lock is still held with its old TTL: the script ended uncaught, and without autoRelease nothing releases it.
      expect(pick(doc, 'lock.released'), kind).toEqual([]);
    }
  });

  it('the store’s own exception, uncaught by isAcquired(): RedisException from a down Redis', () => {
    const doc = runSteps(
      'redis',
      [{ name: 'A', steps: [S.acquire(), S.sleep(500), S.isAcquired] }],
      [{ kind: 'store-restart', target: 'redis', atMs: 300, downMs: 2000 }],
    );
    expect(one(doc, 'exception.store', 'A')).toMatchObject({
      reason: 'refused',
      data: { method: 'isAcquired', thrown: 'RedisException', chain: ['RedisException'] },
    });
  });

  it('an Error for a wait the store does not have: waitAndSave() on Redis, waitAndSaveRead() on a semaphore; flock has waitAndSaveRead() and waits', () => {
    const redis = runSteps('redis', [{ name: 'A', steps: [S.acquire({ native: true })] }]);
    expect(one(redis, 'exception.unsupported', 'A')).toMatchObject({
      reason: 'Call to undefined method RedisStore::waitAndSave()',
      data: { thrown: 'Error', chain: ['Error'] },
    });
    const sem = runSteps('semaphore', [{ name: 'A', steps: [S.acquireRead({ native: true })] }]);
    expect(one(sem, 'exception.unsupported', 'A').reason).toBe('Call to undefined method SemaphoreStore::waitAndSaveRead()');
    const flock = runSteps('flock', [
      { name: 'W', steps: [S.acquire(), S.sleep(300), S.release] },
      { name: 'R', startMs: 100, steps: [S.acquireRead({ native: true }), S.release] },
    ]);
    expect(results(flock, 'R')).toEqual(['acquire', 'release']);
    expect(pick(flock, 'lock.queued')).toHaveLength(1);
  });

  it('the resource’s refusal is an exception of the script’s own: a fenced write, and an unanswered one', () => {
    const fenced = runSteps(
      'redis',
      [
        { name: 'A', ttlMs: 500, steps: [S.acquire(), S.sleep(1500), S.write] },
        { name: 'B', machine: 'app2', startMs: 700, steps: [S.acquire(), S.write, S.release] },
      ],
      [],
      { resource: { fencing: true } },
    );
    expect(one(fenced, 'exception.resource', 'A').reason).toBe('the resource rejected the write: it has seen a newer fencing token');
    const silent = runSteps(
      'redis',
      [{ name: 'A', steps: [S.acquire(), S.sleep(100), S.write] }],
      [{ kind: 'partition', atMs: 50, durationMs: 3000, groups: [['app'], ['db']] }],
    );
    expect(one(silent, 'exception.resource', 'A').reason).toBe('no answer from the resource (timeout)');
  });

  it('the script’s own throw: recorded, skipping what follows, ending the script unless a loop catches it', () => {
    const doc = runSteps('redis', [{ name: 'A', steps: [S.acquire(), { step: 'throw', message: 'boom' }, S.write] }]);
    expect(one(doc, 'exception.user', 'A')).toMatchObject({
      reason: 'boom',
      data: { method: 'throw', thrown: 'RuntimeException', chain: ['RuntimeException'] },
    });
    expect(pick(doc, 'write.request')).toEqual([]);
    expect(one(doc, 'client.done', 'A').reason).toBe('uncaught RuntimeException: boom');
    const caught = runSteps('redis', [{ name: 'A', steps: [S.acquire(), S.attempt({ step: 'throw', message: 'boom' }), S.write, S.release] }]);
    expect(results(caught, 'A')).toEqual(['acquire', 'exception.user', 'write', 'release']);
    expect(one(caught, 'client.done', 'A').reason).toBeUndefined();
  });
});
