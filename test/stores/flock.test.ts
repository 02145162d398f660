import { describe, expect, it } from 'vitest';
import { FLOCK, flockPath } from '../../sim/stores/flock.js';
import { STORE_TABLE } from '../../sim/stores/registry.js';
import { inputIssues, LocalHarness, lock, runInline, unlock } from '../support/local-harness.js';

const S = 1_000_000;
const MS = 1_000;

/** Two processes on one machine, or on two, sharing a resource on db. */
const base = {
  machines: [{ name: 'app1' }, { name: 'app2' }, { name: 'db' }],
  store: { kind: 'flock' },
  resource: { machine: 'db' },
};

describe('flock model (STORES.md: per-machine kernel state, dies with the process, the path is the lock)', () => {
  it('declares the Symfony capability row: local, blocking, not expiring, sharing, no fencing token', () => {
    expect(FLOCK.capabilities).toMatchObject({ scope: 'local', blocking: true, expiring: false, sharing: true, fencingToken: null });
    expect(STORE_TABLE.find((r) => r.name === 'flock')).toMatchObject({ hazardScenario: 'flock-across-servers', scope: 'local' });
  });

  it('grants a free lock and refuses a second owner on the same machine, naming the holder', () => {
    const h = new LocalHarness('flock');
    expect(h.at(0, 'A', lock('A:1'))).toEqual({ ok: true });
    expect(h.at(1 * MS, 'B', lock('B:1'))).toEqual({ ok: false, holder: 'A:1' });
    expect(h.kinds()).toEqual(['0 lock.granted flock@app1 A:1']);
  });

  it('acquiring again with the same owner is a retry, not a conflict', () => {
    const h = new LocalHarness('flock');
    h.at(0, 'A', lock('A:1'));
    expect(h.at(1, 'A', lock('A:1'))).toEqual({ ok: true });
    expect(h.node().holders('/var/lock/app/job.lock')).toEqual(['A:1']);
  });

  it("two machines never see each other's locks: the same path is granted on each", () => {
    const h = new LocalHarness('flock');
    expect(h.at(0, 'A', lock('A:1'), 'app1')).toEqual({ ok: true });
    expect(h.at(1, 'B', lock('B:1'), 'app2')).toEqual({ ok: true });
    expect(h.kinds()).toEqual(['0 lock.granted flock@app1 A:1', '1 lock.granted flock@app2 B:1']);
  });

  it('another path is another lock, even on the same machine', () => {
    const h = new LocalHarness('flock');
    expect(h.at(0, 'A', lock('A:1', { key: flockPath('/var/www/releases/41/var/lock', 'job') }))).toEqual({ ok: true });
    expect(h.at(1, 'B', lock('B:1', { key: flockPath('/var/www/releases/42/var/lock', 'job') }))).toEqual({ ok: true });
    expect(flockPath('/var/lock/app/', 'job')).toBe('/var/lock/app/job.lock');
  });

  it('never expires: a lock taken with a 300 s TTL is still held an hour later', () => {
    const h = new LocalHarness('flock');
    h.at(0, 'A', lock('A:1'));
    h.advance(3600 * S);
    expect(h.at(3600 * S, 'B', lock('B:1'))).toEqual({ ok: false, holder: 'A:1' });
    expect(h.kinds()).toEqual(['0 lock.granted flock@app1 A:1']);
  });

  it('releases only for its owner; a release by another process fails and leaves the lock alone', () => {
    const h = new LocalHarness('flock');
    h.at(0, 'A', lock('A:1'));
    expect(h.at(1, 'B', unlock('B:1'))).toEqual({ ok: false, holder: 'A:1' });
    expect(h.at(2, 'A', unlock('A:1'))).toEqual({ ok: true });
    expect(h.kinds()).toEqual(['0 lock.granted flock@app1 A:1', '2 lock.released flock@app1 A:1 (released)']);
  });

  it('blocks natively: a waiting request is held in the kernel and granted the moment the holder lets go', () => {
    const h = new LocalHarness('flock');
    h.at(0, 'A', lock('A:1'));
    expect(h.at(1 * MS, 'B', lock('B:1', { waitUs: null }))).toBe('waiting');
    expect(h.late).toEqual([]);
    h.at(5 * S, 'A', unlock('A:1'));
    expect(h.late).toEqual([{ timeUs: 5 * S, client: 'B', reply: { ok: true } }]);
    expect(h.kinds()).toEqual([
      '0 lock.granted flock@app1 A:1',
      '1000 lock.queued flock@app1 B:1',
      '5000000 lock.released flock@app1 A:1 (released)',
      '5000000 lock.granted flock@app1 B:1',
    ]);
  });

  it('hands a freed lock to waiters in the order they started waiting', () => {
    const h = new LocalHarness('flock');
    h.at(0, 'A', lock('A:1'));
    h.at(1, 'C', lock('C:1', { waitUs: null }));
    h.at(2, 'B', lock('B:1', { waitUs: null }));
    expect(h.node().waiting('/var/lock/app/job.lock')).toEqual(['C:1', 'B:1']);
    h.at(10, 'A', unlock('A:1'));
    h.at(20, 'C', unlock('C:1'));
    expect(h.late.map((r) => `${r.timeUs} ${r.client}`)).toEqual(['10 C', '20 B']);
  });

  it('answers "no" when a timed wait runs out, naming the holder, and forgets the waiter', () => {
    const h = new LocalHarness('flock');
    h.at(0, 'A', lock('A:1'));
    h.at(0, 'B', lock('B:1', { waitUs: 2 * S }));
    h.advance(3 * S);
    expect(h.late).toEqual([{ timeUs: 2 * S, client: 'B', reply: { ok: false, holder: 'A:1' } }]);
    h.at(4 * S, 'A', unlock('A:1'));
    expect(h.late).toHaveLength(1);
    expect(h.node().holders('/var/lock/app/job.lock')).toEqual([]);
  });

  it('shares: several readers hold at once, each grant marked shared for the checker', () => {
    const h = new LocalHarness('flock');
    expect(h.at(0, 'R1', lock('R1:1', { shared: true }))).toEqual({ ok: true });
    expect(h.at(1, 'R2', lock('R2:1', { shared: true }))).toEqual({ ok: true });
    expect(h.node().holders('/var/lock/app/job.lock')).toEqual(['R1:1', 'R2:1']);
    const grants = h.world.trace.events.filter((e) => e.kind === 'lock.granted');
    expect(grants.map((e) => e.data)).toEqual([{ shared: true }, { shared: true }]);
  });

  it('a writer excludes readers, and waits until the last reader has gone', () => {
    const h = new LocalHarness('flock');
    h.at(0, 'W', lock('W:1'));
    expect(h.at(1, 'R1', lock('R1:1', { shared: true }))).toEqual({ ok: false, holder: 'W:1' });
    h.at(2, 'W', unlock('W:1'));
    h.at(3, 'R1', lock('R1:1', { shared: true }));
    h.at(4, 'R2', lock('R2:1', { shared: true }));
    expect(h.at(5, 'W', lock('W:2', { waitUs: null }))).toBe('waiting');
    h.at(6, 'R1', unlock('R1:1'));
    expect(h.late).toEqual([]);
    h.at(7, 'R2', unlock('R2:1'));
    expect(h.late).toEqual([{ timeUs: 7, client: 'W', reply: { ok: true } }]);
  });

  it('readers queued behind a writer are let in together once the writer is done', () => {
    const h = new LocalHarness('flock');
    h.at(0, 'W', lock('W:1'));
    h.at(1, 'R1', lock('R1:1', { shared: true, waitUs: null }));
    h.at(2, 'R2', lock('R2:1', { shared: true, waitUs: null }));
    h.at(3, 'V', lock('V:1', { waitUs: null }));
    h.at(10, 'W', unlock('W:1'));
    expect(h.late.map((r) => `${r.timeUs} ${r.client}`)).toEqual(['10 R1', '10 R2']);
    expect(h.node().waiting('/var/lock/app/job.lock')).toEqual(['V:1']);
  });

  it('dies with the process: a crash frees the lock ("process exit") and the next waiter gets it', () => {
    const h = new LocalHarness('flock');
    h.at(0, 'A', lock('A:1'));
    h.at(1, 'B', lock('B:1', { waitUs: null }));
    h.crash(5 * S, 'A');
    expect(h.kinds().slice(2)).toEqual(['5000000 lock.released flock@app1 A:1 (process exit)', '5000000 lock.granted flock@app1 B:1']);
    expect(h.late).toEqual([{ timeUs: 5 * S, client: 'B', reply: { ok: true } }]);
  });

  it('a process that dies while waiting leaves the queue and is never granted the lock', () => {
    const h = new LocalHarness('flock');
    h.at(0, 'A', lock('A:1'));
    h.at(1, 'B', lock('B:1', { waitUs: null }));
    h.at(2, 'C', lock('C:1', { waitUs: null }));
    h.crash(3, 'B');
    h.at(4, 'A', unlock('A:1'));
    expect(h.late.map((r) => r.client)).toEqual(['C']);
    expect(h.kinds().filter((k) => k.includes('B:1'))).toEqual(['1 lock.queued flock@app1 B:1']);
  });

  it('a request still in flight from a dead process finds nobody to give the lock to', () => {
    const h = new LocalHarness('flock');
    h.crash(0, 'A');
    expect(h.at(1, 'A', lock('A:1'))).toEqual({ ok: false, error: 'process exited' });
    expect(h.kinds()).toEqual([]);
  });

  it('a crash on one machine frees nothing on another', () => {
    const h = new LocalHarness('flock');
    h.at(0, 'B', lock('B:1'), 'app2');
    h.at(0, 'A', lock('A:1'), 'app1');
    h.crash(1, 'A');
    expect(h.node('app2').holders('/var/lock/app/job.lock')).toEqual(['B:1']);
  });
});

describe('flock through the client lifecycle', () => {
  it('the client believes it holds a lock without expiry: no TTL on its grant, no time left in its belief', () => {
    const doc = runInline({ ...base, clients: [{ name: 'A', machine: 'app1', ttlMs: 1000, workMs: 5000, checkRemaining: true }] });
    const ok = doc.events.find((e) => e.kind === 'acquire.ok')!;
    expect(ok.ttlUs).toBeUndefined();
    expect(ok.believes).toEqual({ holds: true, owner: 'A:1' });
    expect(doc.events.some((e) => e.kind === 'lock.expired' || e.kind === 'check.expired')).toBe(false);
    expect(doc.verdict.outcome).toBe('safe');
  });

  it('the lock file is <lockDir>/<key>.lock, and the client still protects its own key', () => {
    const doc = runInline({ ...base, store: { kind: 'flock', lockDir: '/srv/locks' }, clients: [{ name: 'A', machine: 'app1', key: 'invoices' }] });
    expect(doc.events.find((e) => e.kind === 'lock.granted')).toMatchObject({ actor: 'flock@app1', key: '/srv/locks/invoices.lock', owner: 'A:1' });
    expect(doc.events.find((e) => e.kind === 'acquire.ok')?.key).toBe('invoices');
  });

  it("refreshing does nothing, as Symfony's FlockStore::putOffExpiration: no call reaches the kernel", () => {
    const doc = runInline({ ...base, clients: [{ name: 'A', machine: 'app1', workMs: 3000, refreshEveryMs: 1000 }] });
    expect(doc.events.filter((e) => e.kind === 'refresh.ok')).toHaveLength(2);
    expect(doc.events.some((e) => e.kind === 'refresh.request' || e.kind === 'lock.refreshed')).toBe(false);
  });

  it('a blocking client on the same machine waits in the kernel and takes the lock when the holder releases', () => {
    const doc = runInline({
      ...base,
      clients: [
        { name: 'A', machine: 'app1', workMs: 2000 },
        { name: 'B', machine: 'app1', startMs: 100, acquire: { mode: 'blocking', poll: false } },
      ],
    });
    expect(doc.events.filter((e) => e.actor === 'B' && e.kind === 'acquire.request')).toHaveLength(1);
    const released = doc.events.find((e) => e.kind === 'lock.released' && e.owner === 'A:1')!;
    const granted = doc.events.find((e) => e.kind === 'lock.granted' && e.owner === 'B:1')!;
    expect(granted.timeUs).toBe(released.timeUs);
    expect(doc.verdict.doubleOwnership).toEqual([]);
  });

  it('a blocking client whose wait runs out gives up after being told no', () => {
    const doc = runInline({
      ...base,
      clients: [
        { name: 'A', machine: 'app1', workMs: 5000 },
        { name: 'B', machine: 'app1', startMs: 100, acquire: { mode: 'blocking', waitTimeoutMs: 1000 } },
      ],
    });
    const b = doc.events.filter((e) => e.actor === 'B').map((e) => e.kind);
    expect(b).toEqual(['client.start', 'acquire.request', 'acquire.denied', 'acquire.giveup', 'client.done']);
    const denied = doc.events.find((e) => e.kind === 'acquire.denied')!;
    expect(denied.timeUs).toBe(1100 * MS + 2 * 50);
  });

  it('a crashed holder frees the lock at once, so a waiter on the same machine gets it without waiting for any TTL', () => {
    const doc = runInline({
      ...base,
      clients: [
        { name: 'A', machine: 'app1', workMs: 60_000 },
        { name: 'B', machine: 'app1', startMs: 100, acquire: { mode: 'blocking' } },
      ],
      faults: [{ kind: 'crash', target: 'A', atMs: 1000 }],
    });
    const freed = doc.events.find((e) => e.kind === 'lock.released' && e.owner === 'A:1')!;
    expect(freed).toMatchObject({ timeUs: 1000 * MS, reason: 'process exit', peer: 'A' });
    expect(doc.events.find((e) => e.kind === 'lock.granted' && e.owner === 'B:1')?.timeUs).toBe(1000 * MS);
    expect(doc.verdict).toMatchObject({ outcome: 'safe', lostLocks: [], doubleOwnership: [] });
  });

  it('shared readers on one machine hold together without double ownership, and a writer waits for them', () => {
    const reader = (name: string, startMs: number) => ({ name, machine: 'app1', startMs, workMs: 1000, writes: 0, acquire: { shared: true } });
    const doc = runInline({
      ...base,
      clients: [reader('R1', 0), reader('R2', 100), { name: 'W', machine: 'app1', startMs: 200, acquire: { mode: 'blocking' } }],
    });
    const grants = doc.events.filter((e) => e.kind === 'lock.granted').map((e) => e.owner);
    expect(grants).toEqual(['R1:1', 'R2:1', 'W:1']);
    const wGranted = doc.events.find((e) => e.kind === 'lock.granted' && e.owner === 'W:1')!;
    const r2Released = doc.events.find((e) => e.kind === 'lock.released' && e.owner === 'R2:1')!;
    expect(wGranted.timeUs).toBe(r2Released.timeUs);
    expect(doc.verdict.doubleOwnership).toEqual([]);
  });

  it('a deploy that changes lockDir gives the deployed client another lock beside the old one', () => {
    const doc = runInline({
      ...base,
      clients: [
        { name: 'A', machine: 'app1', workMs: 3000 },
        { name: 'B', machine: 'app1', startMs: 1000, acquire: { mode: 'blocking' } },
      ],
      faults: [{ kind: 'deploy', atMs: 500, clients: ['B'], store: { lockDir: '/var/lock/app-v2' } }],
    });
    expect(doc.events.filter((e) => e.kind === 'lock.granted').map((e) => [e.owner, e.key])).toEqual([
      ['A:1', '/var/lock/app/job.lock'],
      ['B:1', '/var/lock/app-v2/job.lock'],
    ]);
    expect(doc.verdict.doubleOwnership.map((d) => d.clients)).toEqual([['A', 'B']]);
  });
});

describe('flock refuses what it cannot do', () => {
  const one = { ...base, clients: [{ name: 'A', machine: 'app1' }] };

  it('a relative lockDir is refused, naming the store, the field and the reason', () => {
    expect(inputIssues({ ...one, store: { kind: 'flock', lockDir: 'var/lock' } })).toEqual([
      'store.lockDir: the flock store\'s lockDir must be an absolute path: a relative one would depend on each process\'s working directory, got "var/lock"',
    ]);
  });

  it('a deploy to a relative or non-string lockDir is refused at the fault', () => {
    const issues = inputIssues({ ...one, faults: [{ kind: 'deploy', atMs: 1, clients: ['A'], store: { lockDir: 7 } }] });
    expect(issues).toEqual(["faults[0].store.lockDir: the flock store's lockDir must be a directory path (a string), got 7"]);
  });

  it('a deploy may only change the lock directory', () => {
    const issues = inputIssues({ ...one, faults: [{ kind: 'deploy', atMs: 1, clients: ['A'], store: { keyPrefix: 'v2:' } }] });
    expect(issues).toEqual(['faults[0].store.keyPrefix: a deploy cannot change "keyPrefix" of the flock store (fields: lockDir)']);
  });

  it('there is no plain DEL or exists-then-set on a file lock', () => {
    const issues = inputIssues({
      ...base,
      clients: [{ name: 'A', machine: 'app1', acquire: { method: 'exists-then-set' }, release: { method: 'plain-del' } }],
    });
    expect(issues).toEqual([
      'clients[0].acquire.method: the flock store has no plain GET and SET to get wrong; use "atomic"',
      'clients[0].release.method: the flock store has no plain DEL; use "token-checked"',
    ]);
  });

  it("an IPC removal is not a flock fault: the core refuses it by the kind's fault list", () => {
    const issues = inputIssues({ ...one, faults: [{ kind: 'ipc-removal', atMs: 1, machine: 'app1' }] });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^faults\[0\]\.kind: the flock store has no fault "ipc-removal"/);
  });
});
