import { describe, expect, it } from 'vitest';
import { ETCD, leaseTtlUs } from '../../sim/stores/etcd.js';
import { pick, runDoc } from '../support/session-harness.js';
import { refusal } from '../support/refusal.js';

const S = 1_000_000;

const inputIssues = (doc: unknown): string => refusal(doc);

const store = { kind: 'etcd', machine: 'db', revisionStart: 33 };

describe('etcd (STORES.md: locks tied to a lease; the key revision is a usable fencing token)', () => {
  it('declares its capabilities: remote, blocking, expiring by its lease, not sharing, the create revision as token', () => {
    expect(ETCD.capabilities).toMatchObject({
      scope: 'remote',
      blocking: true,
      expiring: true,
      sharing: false,
      fencingToken: 'create revision of the lock key',
    });
    expect(ETCD.capabilities.losesLockWhen.join(' ')).toMatch(/lease expires/);
  });

  it('grants leases in whole seconds, rounded up, and never under the server minimum of 2 s', () => {
    expect(leaseTtlUs(5000)).toBe(5 * S);
    expect(leaseTtlUs(5001)).toBe(6 * S);
    expect(leaseTtlUs(1000)).toBe(2 * S);
  });

  it('the holder gets its key’s create revision as fencing token; later holders get higher ones', () => {
    const doc = runDoc({
      store,
      clients: [
        { name: 'A', machine: 'app1', ttlMs: 5000, workMs: 500 },
        { name: 'B', machine: 'app2', startMs: 2000, ttlMs: 5000, workMs: 500 },
        { name: 'C', machine: 'app1', startMs: 4000, ttlMs: 5000, workMs: 500 },
      ],
    });
    // Each acquisition creates a key and each release deletes it: both are revisions.
    expect(pick(doc, 'lock.granted').map((e) => [e.owner, e.fence])).toEqual([
      ['A:1', 33],
      ['B:1', 35],
      ['C:1', 37],
    ]);
    expect(pick(doc, 'write.done').map((e) => e.fence)).toEqual([33, 35, 37]);
  });

  it('refuses a second owner on a try-lock and removes its key again', () => {
    const doc = runDoc({
      store,
      clients: [
        { name: 'A', machine: 'app1', workMs: 2000 },
        { name: 'B', machine: 'app2', startMs: 500 },
      ],
    });
    expect(pick(doc, 'acquire.denied', 'B')[0]!.data).toEqual({ holder: 'A:1' });
    expect(pick(doc, 'lock.granted').map((e) => e.owner)).toEqual(['A:1']);
  });

  it('a blocking acquire waits in line in the server and is granted when the holder deletes its key', () => {
    const doc = runDoc({
      store,
      clients: [
        { name: 'A', machine: 'app1', workMs: 3000 },
        { name: 'B', machine: 'app2', startMs: 500, acquire: { mode: 'blocking', poll: false } },
      ],
    });
    expect(pick(doc, 'acquire.request', 'B')).toHaveLength(1);
    expect(pick(doc, 'lock.queued')[0]).toMatchObject({ owner: 'B:1', data: { holder: 'A:1', position: 1, created: 34 } });
    const released = pick(doc, 'lock.released')[0]!;
    expect(pick(doc, 'lock.granted')[1]).toMatchObject({ owner: 'B:1', fence: 34, timeUs: released.timeUs });
  });

  it('keep-alives every third of the TTL hold the lock through work far longer than the TTL', () => {
    const doc = runDoc({ store, clients: [{ name: 'A', machine: 'app1', ttlMs: 3000, workMs: 30000 }] });
    expect(pick(doc, 'lock.expired')).toEqual([]);
    expect(pick(doc, 'write.done', 'A')).toHaveLength(1);
    expect(doc.stop.reason).toBe('completed');
  });

  it('a pause past the lease TTL stops the keep-alives: the lease expires on the lessor’s next 500 ms round and deletes the key', () => {
    const doc = runDoc({
      store,
      clients: [{ name: 'A', machine: 'app1', ttlMs: 3000, workMs: 2000 }],
      faults: [{ kind: 'pause', target: 'A', atMs: 500, durationMs: 6000 }],
    });
    const expired = pick(doc, 'lock.expired')[0]!;
    // Last heard at about 1 ms (the acquire): 3 s later, rounded up to the next 500 ms.
    expect(expired).toMatchObject({ owner: 'A:1', reason: 'lease expired', timeUs: 3.5 * S });
    expect(pick(doc, 'session.ended')[0]!.reason).toMatch(/^lease expired/);
    expect(pick(doc, 'session.lost', 'A')[0]!.reason).toBe('lease expired');
    expect(doc.verdict.lostLocks).toMatchObject([{ client: 'A', how: 'expired' }]);
  });

  it('a pause shorter than the TTL loses nothing', () => {
    const doc = runDoc({
      store,
      clients: [{ name: 'A', machine: 'app1', ttlMs: 5000, workMs: 2000 }],
      faults: [{ kind: 'pause', target: 'A', atMs: 500, durationMs: 3000 }],
    });
    expect(pick(doc, 'lock.expired')).toEqual([]);
    expect(pick(doc, 'release.ok', 'A')).toHaveLength(1);
  });

  it('the session-expiry fault revokes the lease at once', () => {
    const doc = runDoc({ store, clients: [{ name: 'A', machine: 'app1', workMs: 5000 }], faults: [{ kind: 'session-expiry', target: 'A', atMs: 1000 }] });
    expect(pick(doc, 'lock.expired')[0]).toMatchObject({ owner: 'A:1', timeUs: S });
    // Its release finds nothing of its own: quiet, as Symfony's release() is.
    expect(pick(doc, 'release.lost', 'A')[0]!.reason).toBe('lease expired');
  });

  it('a lock alone cannot give mutual exclusion: without a revision check the paused holder’s write is accepted', () => {
    const doc = runDoc({
      store,
      resource: { machine: 'db', fencing: false },
      clients: [
        { name: 'A', machine: 'app1', ttlMs: 3000, workMs: 2000 },
        { name: 'B', machine: 'app2', startMs: 1000, ttlMs: 3000, acquire: { mode: 'blocking', poll: false } },
      ],
      faults: [{ kind: 'pause', target: 'A', atMs: 500, durationMs: 6000 }],
    });
    expect(doc.verdict.outcome).toBe('unsafe');
    expect(doc.verdict.staleWrites).toMatchObject([{ client: 'A', fence: 33, accepted: true }]);
  });

  it('refuses lock TTLs under a second, naming the client and the reason', () => {
    expect(inputIssues({ name: 'bad', machines: [{ name: 'app1' }, { name: 'db' }], store, clients: [{ name: 'A', machine: 'app1', ttlMs: 999 }] })).toBe(
      'bad.json: clients[0].ttlMs: the etcd store grants leases in whole seconds, at least 1 (concurrency.WithTTL takes seconds), got 999 ms',
    );
  });

  it('refuses the plain GET/SET/DEL mistakes; a read lock is an ordinary one, not refused', () => {
    const message = inputIssues({
      name: 'bad',
      machines: [{ name: 'app1' }, { name: 'db' }],
      store,
      clients: [
        { name: 'A', machine: 'app1', acquire: { shared: true }, writes: 0 },
        { name: 'B', machine: 'app1', acquire: { method: 'exists-then-set' } },
      ],
    });
    expect(message).not.toContain('clients[0]');
    expect(message).toContain('clients[1].acquire.method: the etcd store has no plain GET and SET to get wrong');
  });
});
