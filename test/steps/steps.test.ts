import { describe, expect, it } from 'vitest';
import { POLL_INTERVAL_US, POLL_JITTER_US } from '../../sim/clients/lifecycle.js';
import { one, pick, results, runSteps, S } from '../support/steps-harness.js';

/* One test (at least) per step of the vocabulary, on what it sends, returns and makes the client believe. */

const MS = 1000;

describe('acquire', () => {
  it('a try that finds the lock held returns false: `return` ends the script, `ignore` carries on without the lock', () => {
    const holder = { name: 'H', steps: [S.acquire(), S.sleep(1000), S.release] };
    const ret = runSteps('redis', [holder, { name: 'A', startMs: 100, steps: [{ step: 'acquire' }, S.write] }]);
    expect(results(ret, 'A')).toEqual(['acquire:false']);
    expect(pick(ret, 'write.request', 'A')).toEqual([]);
    const ignored = runSteps('redis', [holder, { name: 'A', startMs: 100, steps: [{ step: 'acquire', onFailure: 'ignore' }, S.write] }]);
    expect(results(ignored, 'A')).toEqual(['acquire:false', 'write']);
    // The write of a client that never held the lock is stale: never-held.
    expect(ignored.verdict.staleWrites).toMatchObject([{ owner: 'A:1', cause: { kind: 'never-held' } }]);
  });

  it('`next-iteration` goes on with the enclosing repeat', () => {
    const doc = runSteps('redis', [
      { name: 'H', steps: [S.acquire(), S.sleep(250), S.release] },
      {
        name: 'A',
        startMs: 100,
        steps: [{ step: 'repeat', times: 3, steps: [S.sleep(100), { step: 'acquire', onFailure: 'next-iteration' }, S.write, S.release] }],
      },
    ]);
    expect(results(doc, 'A')).toEqual(['acquire:false', 'acquire', 'write', 'release', 'acquire', 'write', 'release']);
  });

  it('blocking on a store that cannot block polls every 100 ms ±10 ms and only for a conflict; in a store that can, one request waits', () => {
    const polled = runSteps('redis', [
      { name: 'H', steps: [S.acquire(), S.sleep(1000), S.release] },
      { name: 'A', startMs: 10, steps: [S.acquire({ blocking: true }), S.release] },
    ]);
    const asks = pick(polled, 'acquire.request', 'A').map((e) => e.timeUs);
    expect(asks.length).toBeGreaterThan(8);
    for (let i = 1; i < asks.length; i++) {
      expect(asks[i]! - asks[i - 1]!).toBeGreaterThanOrEqual(POLL_INTERVAL_US - POLL_JITTER_US);
      expect(asks[i]! - asks[i - 1]!).toBeLessThan(POLL_INTERVAL_US + POLL_JITTER_US + 5 * MS);
    }
    const waited = runSteps('postgres', [
      { name: 'H', steps: [S.acquire(), S.sleep(1000), S.release] },
      { name: 'A', startMs: 10, steps: [S.acquire({ blocking: true }), S.release] },
    ]);
    expect(pick(waited, 'acquire.request', 'A')).toHaveLength(1);
    expect(one(waited, 'lock.queued')).toMatchObject({ owner: 'A:1' });
    expect(one(waited, 'acquire.ok', 'A').timeUs).toBeGreaterThan(1000 * MS);
  });

  it('waitTimeoutMs gives a blocking acquire up (Symfony 5.4 itself waits for ever)', () => {
    const doc = runSteps('redis', [
      { name: 'H', steps: [S.acquire(), S.sleep(3000), S.release] },
      { name: 'A', startMs: 10, steps: [S.acquire({ blocking: true, waitTimeoutMs: 500 })] },
    ]);
    const giveup = one(doc, 'acquire.giveup', 'A');
    expect(giveup.timeUs).toBeGreaterThanOrEqual(500 * MS);
    expect(giveup.timeUs).toBeLessThan(700 * MS);
  });

  it('retries repeat a try retryDelayMs apart', () => {
    const doc = runSteps('redis', [
      { name: 'H', steps: [S.acquire(), S.sleep(3000), S.release] },
      { name: 'A', startMs: 10, steps: [S.acquire({ retries: 2, retryDelayMs: 300 })] },
    ]);
    expect(pick(doc, 'acquire.request', 'A')).toHaveLength(3);
    expect(one(doc, 'acquire.giveup', 'A').data).toEqual({ attempts: 3 });
  });

  it('the exists-then-set method is the hand-written race, where the store has plain GET and SET', () => {
    const doc = runSteps('redis', [
      { name: 'A', steps: [S.acquire({ method: 'exists-then-set' }), S.sleep(300), S.release] },
      { name: 'B', machine: 'app2', steps: [S.acquire({ method: 'exists-then-set' }), S.sleep(300), S.release] },
    ]);
    expect(pick(doc, 'exists.reply').map((e) => e.data?.free)).toEqual([true, true]);
    expect(doc.verdict.doubleOwnership).toHaveLength(1);
  });
});

describe('acquireRead', () => {
  it('takes a shared lock where the store shares, and an exclusive one where it does not', () => {
    const readers = [
      { name: 'R1', steps: [S.acquireRead(), S.sleep(300), S.release] },
      { name: 'R2', startMs: 100, steps: [S.acquireRead(), S.release] },
    ];
    const shared = runSteps('redis', readers);
    expect(results(shared, 'R2')).toEqual(['acquire', 'release']);
    expect(one(shared, 'acquire.ok', 'R1').believes).toMatchObject({ shared: true });
    const exclusive = runSteps('memcached', readers);
    expect(results(exclusive, 'R2')).toEqual(['acquire:false', 'release:lost']);
    expect(one(exclusive, 'acquire.ok', 'R1').believes?.shared).toBeUndefined();
  });

  it('blocking on flock polls, as Lock does for a store that is no BlockingSharedLockStoreInterface; on PostgreSQL it waits in the server', () => {
    const script = (kind: string) =>
      runSteps(kind, [
        { name: 'W', steps: [S.acquire(), S.sleep(500), S.release] },
        { name: 'R', startMs: 50, steps: [S.acquireRead({ blocking: true }), S.release] },
      ]);
    expect(pick(script('flock'), 'acquire.request', 'R').length).toBeGreaterThan(3);
    expect(pick(script('postgres'), 'acquire.request', 'R')).toHaveLength(1);
  });
});

describe('refresh', () => {
  it('extends by the lock’s TTL, or by ttlMs; the lease then runs from the request, by the client’s clock', () => {
    const doc = runSteps('redis', [
      { name: 'A', ttlMs: 1000, steps: [S.acquire(), S.sleep(500), S.refresh(), S.lifetime, S.refresh(3000), S.lifetime, S.release] },
    ]);
    const [first, second] = pick(doc, 'lifetime.read', 'A').map((e) => e.data!.remainingUs as number);
    expect(first).toBeGreaterThan(990 * MS);
    expect(first).toBeLessThanOrEqual(1000 * MS);
    expect(second).toBeGreaterThan(2990 * MS);
    expect(pick(doc, 'lock.refreshed').map((e) => e.ttlUs)).toEqual([1000 * MS, 3000 * MS]);
  });

  it('does nothing on stores whose locks never expire and whose Symfony class asks nothing (flock, ZooKeeper)', () => {
    for (const kind of ['flock', 'zookeeper']) {
      const doc = runSteps(kind, [{ name: 'A', steps: [S.acquire(), S.refresh(), S.release] }]);
      expect(pick(doc, 'refresh.request'), kind).toEqual([]);
      expect(results(doc, 'A'), kind).toEqual(['acquire', 'refresh', 'release']);
    }
  });
});

describe('isAcquired', () => {
  it('asks the store, and the answer sets what the client believes', () => {
    const doc = runSteps('redis', [{ name: 'A', ttlMs: 500, steps: [S.acquire(), S.isAcquired, S.sleep(800), S.isAcquired] }]);
    expect(pick(doc, 'isAcquired.request', 'A')).toHaveLength(2);
    expect(one(doc, 'isAcquired.yes', 'A').believes).toMatchObject({ holds: true, owner: 'A:1' });
    expect(one(doc, 'isAcquired.no', 'A').believes).toEqual({ holds: false });
  });

  it('flock and semaphores answer from the Key’s own state: true though the semaphore was removed under it', () => {
    const doc = runSteps('semaphore', [{ name: 'A', steps: [S.acquire(), S.sleep(500), S.isAcquired] }], [{ kind: 'ipc-removal', atMs: 100, machine: 'app' }]);
    expect(pick(doc, 'isAcquired.request')).toEqual([]);
    expect(results(doc, 'A').slice(0, 2)).toEqual(['acquire', 'isAcquired']);
    expect(one(doc, 'lock.lost')).toMatchObject({ owner: 'A:1' });
  });
});

describe('getRemainingLifetime and isExpired', () => {
  it('read the lease by the client’s own clock, with no request', () => {
    const doc = runSteps(
      'redis',
      [{ name: 'A', ttlMs: 1000, autoRelease: false, steps: [S.acquire(), S.lifetime, S.isExpired, S.sleep(1200), S.lifetime, S.isExpired] }],
      [{ kind: 'clock-jump', atMs: 100, machine: 'app', byMs: 300 }],
    );
    const [before, after] = pick(doc, 'lifetime.read', 'A').map((e) => e.data!.remainingUs as number);
    expect(before).toBeGreaterThan(990 * MS);
    // The lease ran out 0.2 s ago by the time the sleep ends, and 0.3 s more by a clock that jumped forward.
    expect(after).toBeLessThan(-495 * MS);
    expect(after).toBeGreaterThan(-510 * MS);
    expect(pick(doc, 'isAcquired.request')).toEqual([]);
    expect(results(doc, 'A').slice(0, 3)).toEqual(['acquire', 'isExpired:false', 'isExpired:true']);
    expect(one(doc, 'check.expired', 'A').believes).toEqual({ holds: false });
  });

  it('say null and never for a lock that does not expire', () => {
    const doc = runSteps('flock', [{ name: 'A', steps: [S.acquire(), S.lifetime, S.isExpired, S.release] }]);
    expect(one(doc, 'lifetime.read', 'A').data).toBeUndefined();
    expect(one(doc, 'check.ok', 'A').data).toBeUndefined();
  });
});

describe('work, sleep and write', () => {
  it('work takes its duration and counts as work; sleep does not; refreshEveryMs refreshes along the way', () => {
    const doc = runSteps('redis', [
      { name: 'A', ttlMs: 1000, steps: [S.acquire(), { step: 'work', durationMs: 2500, refreshEveryMs: 800 }, S.sleep(500), S.release] },
    ]);
    expect(pick(doc, 'refresh.ok', 'A')).toHaveLength(3);
    expect(pick(doc, 'lock.expired')).toEqual([]);
    const a = doc.verdict.availability.find((x) => x.client === 'A')!;
    expect(a.workedUs).toBeGreaterThanOrEqual(2500 * MS);
    expect(a.workedUs).toBeLessThan(2520 * MS);
    expect(a.workWithoutLockUs).toBe(0);
  });

  it('write carries the fencing token of the store', () => {
    const doc = runSteps({ kind: 'redis', machine: 'db', fencingTokenStart: 33 }, [{ name: 'A', steps: [S.acquire(), S.write, S.release] }]);
    expect(one(doc, 'write.accepted')).toMatchObject({ owner: 'A:1', fence: 33 });
  });
});

describe('release', () => {
  it('deletes our key; after the lock was lost it returns quietly and leaves the new holder’s key', () => {
    const doc = runSteps('redis', [
      { name: 'A', ttlMs: 300, steps: [S.acquire(), S.sleep(600), S.release] },
      { name: 'B', machine: 'app2', startMs: 400, steps: [S.acquire(), S.sleep(500), S.release] },
    ]);
    expect(results(doc, 'A')).toEqual(['acquire', 'release:lost']);
    expect(results(doc, 'B')).toEqual(['acquire', 'release']);
  });

  it('plain-del is the hand-written mistake: it deletes whoever holds the key', () => {
    const doc = runSteps('redis', [
      { name: 'A', ttlMs: 300, steps: [S.acquire(), S.sleep(600), { step: 'release', method: 'plain-del' }] },
      { name: 'B', machine: 'app2', startMs: 400, steps: [S.acquire(), S.sleep(500), S.release] },
    ]);
    expect(one(doc, 'lock.deleted')).toMatchObject({ owner: 'B:1' });
  });
});

describe('if and repeat', () => {
  it('if runs then or else on the condition: isExpired, isAcquired, remainingLifetimeBelowMs (null counts as below)', () => {
    const doc = runSteps('redis', [
      {
        name: 'A',
        ttlMs: 1000,
        steps: [
          S.acquire(),
          { step: 'if', condition: { isExpired: true }, then: [{ step: 'throw' }], else: [S.write] },
          { step: 'if', condition: { isAcquired: true }, then: [S.write] },
          { step: 'if', condition: { remainingLifetimeBelowMs: 500 }, then: [S.refresh()], else: [S.write] },
          S.release,
        ],
      },
    ]);
    expect(results(doc, 'A')).toEqual(['acquire', 'isExpired:false', 'write', 'isAcquired', 'write', 'write', 'release']);
    const flock = runSteps('flock', [
      { name: 'A', steps: [S.acquire(), { step: 'if', condition: { remainingLifetimeBelowMs: 500 }, then: [S.refresh()] }, S.release] },
    ]);
    expect(results(flock, 'A')).toEqual(['acquire', 'refresh', 'release']);
  });

  it('repeat runs its body `times` times; finally runs after each pass, even a throwing one; newLock makes a new Lock, and token, per pass', () => {
    const doc = runSteps('redis', [
      {
        name: 'A',
        steps: [{ step: 'repeat', times: 2, catch: true, newLock: true, steps: [S.acquire(), { step: 'throw', message: 'x' }], finally: [S.release] }],
      },
    ]);
    expect(results(doc, 'A')).toEqual(['acquire', 'exception.user', 'release', 'acquire', 'exception.user', 'release']);
    expect(pick(doc, 'lock.granted').map((e) => e.owner)).toEqual(['A:1', 'A:2']);
    expect(pick(doc, 'release.skipped')).toEqual([]);
  });

  it('without newLock, one Lock object keeps its token: acquiring it again after a release is the same owner', () => {
    const doc = runSteps('redis', [{ name: 'A', steps: [{ step: 'repeat', times: 2, steps: [S.acquire(), S.release] }] }]);
    expect(pick(doc, 'lock.granted').map((e) => e.owner)).toEqual(['A:1', 'A:1']);
  });
});

describe('fork, autoRelease and the end of a script', () => {
  it('fork starts a child with a copy of the Lock; the child exiting releases the parent’s lock (autoRelease)', () => {
    const doc = runSteps('redis', [{ name: 'A', steps: [S.acquire(), { step: 'fork', steps: [] }, S.sleep(100), S.isAcquired] }]);
    expect(one(doc, 'client.start', 'A/child1').believes).toMatchObject({ holds: true, owner: 'A:1' });
    expect(one(doc, 'lock.released')).toMatchObject({ owner: 'A:1', peer: 'A/child1' });
    expect(results(doc, 'A')).toEqual(['acquire', '!isAcquired']);
  });

  it('autoRelease releases a lock still held when the script ends, even after an uncaught exception; false leaves it to its TTL', () => {
    const steps = [S.acquire(), { step: 'throw', message: 'x' }];
    const on = runSteps('redis', [{ name: 'A', ttlMs: 5000, steps }]);
    expect(results(on, 'A')).toEqual(['acquire', 'exception.user', 'destruct', 'isAcquired', 'release']);
    const off = runSteps('redis', [{ name: 'A', ttlMs: 5000, autoRelease: false, steps }]);
    expect(results(off, 'A')).toEqual(['acquire', 'exception.user']);
    expect(one(off, 'lock.expired')).toMatchObject({ owner: 'A:1' });
  });

  it('a crashed process runs no destructor', () => {
    const doc = runSteps('redis', [{ name: 'A', ttlMs: 2000, steps: [S.acquire(), S.sleep(1000)] }], [{ kind: 'crash', target: 'A', atMs: 500 }]);
    expect(pick(doc, 'autorelease.check')).toEqual([]);
    expect(one(doc, 'lock.expired')).toMatchObject({ owner: 'A:1' });
  });

  it('ZooKeeper: a process that ends normally closes its session, so its node goes at once; a killed one leaves it until the session times out', () => {
    const holder = { name: 'A', autoRelease: false, steps: [S.acquire(), S.sleep(500)] };
    const closed = runSteps('zookeeper', [holder]);
    expect(one(closed, 'lock.released')).toMatchObject({ owner: 'A:1', reason: 'session closed' });
    expect(one(closed, 'lock.released').timeUs).toBeLessThan(600 * MS);
    const killed = runSteps('zookeeper', [holder], [{ kind: 'crash', target: 'A', atMs: 300 }]);
    expect(pick(killed, 'lock.released')).toEqual([]);
    expect(one(killed, 'lock.lost')).toMatchObject({ owner: 'A:1', reason: 'session expired' });
    expect(one(killed, 'lock.lost').timeUs).toBeGreaterThan(10_000 * MS);
  });
});
