import { describe, expect, it } from 'vitest';
import { STORE_TABLE } from '../../sim/stores/registry.js';
import { IPC_REMOVAL_REASON, SEMAPHORE } from '../../sim/stores/semaphore.js';
import { inputIssues, LocalHarness, lock, runInline, unlock } from '../support/local-harness.js';

const S = 1_000_000;
const MS = 1_000;
const KEY = 'job';

const sem = (owner: string, extra: { shared?: boolean; waitUs?: number | null } = {}) => lock(owner, { key: KEY, ...extra });
const unsem = (owner: string) => unlock(owner, KEY);

/** Processes on app1 (or in containers app1 and app2) sharing a resource on db. */
const base = {
  machines: [{ name: 'app1' }, { name: 'app2' }, { name: 'db' }],
  store: { kind: 'semaphore' },
  resource: { machine: 'db' },
};

describe('semaphore model (STORES.md: per-machine like flock, auto_release on exit, RemoveIPC deletes it)', () => {
  it('declares the Symfony capability row: local, blocking, not expiring, not sharing, no fencing token', () => {
    expect(SEMAPHORE.capabilities).toMatchObject({ scope: 'local', blocking: true, expiring: false, sharing: false, fencingToken: null });
    expect(SEMAPHORE.capabilities.losesLockWhen.join(' ')).toMatch(/RemoveIPC/);
    expect(STORE_TABLE.find((r) => r.name === 'semaphore')?.hazardScenario).toBe('semaphore-two-containers');
  });

  it('grants a free semaphore and refuses a second owner in the same IPC namespace, naming the holder', () => {
    const h = new LocalHarness('semaphore');
    expect(h.at(0, 'A', sem('A:1'))).toEqual({ ok: true });
    expect(h.at(1, 'B', sem('B:1'))).toEqual({ ok: false, holder: 'A:1' });
  });

  it('two machines (or containers) have separate semaphores: both get the one for the same key', () => {
    const h = new LocalHarness('semaphore');
    expect(h.at(0, 'A', sem('A:1'), 'app1')).toEqual({ ok: true });
    expect(h.at(1, 'B', sem('B:1'), 'app2')).toEqual({ ok: true });
    expect(h.kinds()).toEqual(['0 lock.granted semaphore@app1 A:1', '1 lock.granted semaphore@app2 B:1']);
  });

  it('is exclusive only: a shared request still excludes everyone else, and its grant is not marked shared', () => {
    const h = new LocalHarness('semaphore');
    h.at(0, 'R1', sem('R1:1', { shared: true }));
    expect(h.at(1, 'R2', sem('R2:1', { shared: true }))).toEqual({ ok: false, holder: 'R1:1' });
    expect(h.world.trace.events[0]?.data).toBeUndefined();
  });

  it('never expires: the semaphore is still held an hour later', () => {
    const h = new LocalHarness('semaphore');
    h.at(0, 'A', sem('A:1'));
    expect(h.at(3600 * S, 'B', sem('B:1'))).toEqual({ ok: false, holder: 'A:1' });
    expect(h.kinds()).toEqual(['0 lock.granted semaphore@app1 A:1']);
  });

  it('only the holder can release it', () => {
    const h = new LocalHarness('semaphore');
    h.at(0, 'A', sem('A:1'));
    expect(h.at(1, 'B', unsem('B:1'))).toEqual({ ok: false, holder: 'A:1' });
    expect(h.at(2, 'A', unsem('A:1'))).toEqual({ ok: true });
    expect(h.at(3, 'B', sem('B:1'))).toEqual({ ok: true });
  });

  it('sem_acquire blocks natively: waiters are served in order as the semaphore frees', () => {
    const h = new LocalHarness('semaphore');
    h.at(0, 'A', sem('A:1'));
    expect(h.at(1, 'B', sem('B:1', { waitUs: null }))).toBe('waiting');
    expect(h.at(2, 'C', sem('C:1', { waitUs: null }))).toBe('waiting');
    h.at(3 * S, 'A', unsem('A:1'));
    h.at(4 * S, 'B', unsem('B:1'));
    expect(h.late.map((r) => `${r.timeUs} ${r.client} ${r.reply.ok}`)).toEqual([`${3 * S} B true`, `${4 * S} C true`]);
  });

  it('a timed wait that runs out is answered "no"', () => {
    const h = new LocalHarness('semaphore');
    h.at(0, 'A', sem('A:1'));
    h.at(0, 'B', sem('B:1', { waitUs: 500 * MS }));
    h.advance(1 * S);
    expect(h.late).toEqual([{ timeUs: 500 * MS, client: 'B', reply: { ok: false, holder: 'A:1' } }]);
  });

  it('auto_release: the process exiting frees the semaphore ("process exit") for the next waiter', () => {
    const h = new LocalHarness('semaphore');
    h.at(0, 'A', sem('A:1'));
    h.at(1, 'B', sem('B:1', { waitUs: null }));
    h.crash(2 * S, 'A');
    expect(h.kinds()).toEqual([
      '0 lock.granted semaphore@app1 A:1',
      '1 lock.queued semaphore@app1 B:1',
      `${2 * S} lock.released semaphore@app1 A:1 (process exit)`,
      `${2 * S} lock.granted semaphore@app1 B:1`,
    ]);
  });

  it('RemoveIPC deletes the held semaphore under its holder without telling it, and a waiter takes a fresh one', () => {
    const h = new LocalHarness('semaphore');
    h.at(0, 'A', sem('A:1'));
    h.at(1, 'B', sem('B:1', { waitUs: null }));
    h.advance(1 * S);
    h.store.fault!({ kind: 'ipc-removal', atMs: 1000, machine: 'app1' }, 0);
    expect(h.kinds().slice(2)).toEqual([
      `${S} ipc.removed faults`,
      `${S} lock.lost semaphore@app1 A:1 (${IPC_REMOVAL_REASON})`,
      `${S} lock.granted semaphore@app1 B:1`,
    ]);
    expect(h.world.trace.events.find((e) => e.kind === 'ipc.removed')).toMatchObject({ machine: 'app1', data: { fault: 0, semaphores: 1 } });
    // Nothing reached A: it learns of the loss only if it tries to release, and its stale handle cannot touch B's semaphore.
    expect(h.late.map((r) => r.client)).toEqual(['B']);
    expect(h.at(2 * S, 'A', unsem('A:1'))).toEqual({ ok: false, holder: 'B:1' });
    expect(h.node().holders(KEY)).toEqual(['B:1']);
  });

  it('RemoveIPC on one machine leaves the semaphores of another alone', () => {
    const h = new LocalHarness('semaphore');
    h.at(0, 'A', sem('A:1'), 'app1');
    h.at(0, 'B', sem('B:1'), 'app2');
    h.store.fault!({ kind: 'ipc-removal', atMs: 0, machine: 'app1' }, 0);
    expect(h.node('app1').holders(KEY)).toEqual([]);
    expect(h.node('app2').holders(KEY)).toEqual(['B:1']);
  });
});

describe('semaphore through the client lifecycle', () => {
  it('RemoveIPC on a logout: A keeps believing, B on the same machine gets the semaphore, and A writes after B', () => {
    const doc = runInline({
      ...base,
      clients: [
        { name: 'A', machine: 'app1', workMs: 3000 },
        { name: 'B', machine: 'app1', startMs: 100, workMs: 500, acquire: { mode: 'blocking' } },
      ],
      faults: [{ kind: 'ipc-removal', atMs: 1000, machine: 'app1' }],
    });
    const lost = doc.events.find((e) => e.kind === 'lock.lost')!;
    expect(lost).toMatchObject({ timeUs: 1000 * MS, owner: 'A:1', reason: IPC_REMOVAL_REASON });
    expect(doc.events.find((e) => e.kind === 'lock.granted' && e.owner === 'B:1')?.timeUs).toBe(1000 * MS);
    // A's belief is untouched by the removal: its next event still says it holds A:1.
    expect(doc.events.find((e) => e.actor === 'A' && e.timeUs > lost.timeUs)?.believes).toMatchObject({ holds: true, owner: 'A:1' });
    expect(doc.verdict.lostLocks).toMatchObject([{ client: 'A', how: 'lost', reason: IPC_REMOVAL_REASON }]);
    expect(doc.verdict.doubleOwnership.map((d) => d.clients)).toEqual([['A', 'B']]);
    expect(doc.verdict.staleWrites).toMatchObject([{ client: 'A', accepted: true }]);
    expect(doc.verdict.outcome).toBe('unsafe');
  });

  it('without the RemoveIPC the same two processes take turns', () => {
    const doc = runInline({
      ...base,
      clients: [
        { name: 'A', machine: 'app1', workMs: 3000 },
        { name: 'B', machine: 'app1', startMs: 100, workMs: 500, acquire: { mode: 'blocking' } },
      ],
    });
    expect(doc.verdict).toMatchObject({ outcome: 'safe', doubleOwnership: [], lostLocks: [] });
  });

  it('a client believes in a semaphore without expiry: no TTL on its grant', () => {
    const doc = runInline({ ...base, clients: [{ name: 'A', machine: 'app1', ttlMs: 1000, workMs: 5000 }] });
    expect(doc.events.find((e) => e.kind === 'acquire.ok')?.believes).toEqual({ holds: true, owner: 'A:1' });
    expect(doc.events.find((e) => e.kind === 'lock.granted')).toMatchObject({ actor: 'semaphore@app1', key: 'job' });
  });
});

describe('semaphore refuses what it cannot do', () => {
  it('a read lock is not refused: SemaphoreStore shares nothing, so acquireRead() takes its one unit (test/steps)', () => {
    expect(inputIssues({ ...base, clients: [{ name: 'R', machine: 'app1', writes: 0, acquire: { shared: true } }] })).toEqual([]);
  });

  it('an IPC removal must name a machine of the scenario', () => {
    const issues = inputIssues({ ...base, clients: [{ name: 'A', machine: 'app1' }], faults: [{ kind: 'ipc-removal', atMs: 1, machine: 'app9' }] });
    expect(issues).toEqual(['faults[0].machine: no machine named "app9" (machines: app1, app2, db)']);
  });

  it('a deploy cannot reconfigure a semaphore: the store takes no deploy fault', () => {
    const issues = inputIssues({ ...base, clients: [{ name: 'A', machine: 'app1' }], faults: [{ kind: 'deploy', atMs: 1, clients: ['A'], store: {} }] });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^faults\[0\]\.kind: the semaphore store has no fault "deploy"/);
  });

  it('a semaphore has no fields to set besides its name', () => {
    const issues = inputIssues({ ...base, store: { kind: 'semaphore', lockDir: '/tmp' }, clients: [{ name: 'A', machine: 'app1' }] });
    expect(issues).toEqual(['store.lockDir: unknown field; expected one of: kind, name']);
  });
});
