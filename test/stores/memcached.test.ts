import { describe, expect, it } from 'vitest';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { MEMCACHED, LOCK_ITEM_OVERHEAD_BYTES } from '../../sim/stores/memcached.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import { add, cas, gets, MemcachedHarness } from '../support/memcached-harness.js';
import { refusal } from '../support/refusal.js';

const S = 1_000_000;

/** A small scenario on one memcached server, run to the end. */
function run(clients: unknown[], faults: unknown[] = [], store: Record<string, unknown> = {}): TraceDocument {
  const s = normalizeScenario(
    {
      name: 'memcached-test',
      machines: [{ name: 'app1' }, { name: 'app2' }, { name: 'cache' }],
      store: { kind: 'memcached', machine: 'cache', ...store },
      clients,
      faults,
    },
    'test',
  );
  return runScenario(s, 1);
}

const refusalOf = (doc: unknown): string => refusal(doc, 'test');

describe('Memcached model (STORES.md: add, whole-second expiry, gets + cas, LRU eviction, no persistence)', () => {
  it('add stores only when the key is absent: a second owner gets NOT_STORED, and only gets tells whose it is', () => {
    const m = new MemcachedHarness();
    expect(m.at(0, 'A', add('A:1', 10 * S))).toEqual({ ok: true });
    expect(m.at(S, 'B', add('B:1', 10 * S))).toEqual({ ok: false });
    expect(m.at(S, 'B', gets())).toMatchObject({ ok: true, holder: 'A:1' });
  });

  it('expires an item at the tick where its whole-second clock reaches the exptime: up to 1 s before the TTL', () => {
    const m = new MemcachedHarness();
    m.at(300_000, 'A', add('A:1', 3 * S));
    const firstTick = m.node.nextTickUs();
    m.advance(10 * S);
    const expired = m.world.trace.events.find((e) => e.kind === 'lock.expired')!;
    const lived = expired.timeUs - 300_000;
    expect(lived).toBeGreaterThan(2 * S);
    expect(lived).toBeLessThanOrEqual(3 * S);
    // It goes exactly when memcached's clock ticks, not TTL after the add.
    expect(expired.timeUs).toBe(firstTick + 2 * S);
  });

  it('rounds a fractional TTL up to whole seconds, as Symfony does with ceil', () => {
    const m = new MemcachedHarness();
    m.at(0, 'A', add('A:1', 1.2 * S));
    expect(m.world.trace.events[0]).toMatchObject({ kind: 'lock.granted', ttlUs: 2 * S });
  });

  it('the tick phase comes from the seed, so the slack differs from run to run', () => {
    const lifetimes = new Set<number>();
    for (let seed = 1; seed <= 5; seed++) {
      const m = new MemcachedHarness({}, seed);
      m.at(0, 'A', add('A:1', 2 * S));
      m.advance(5 * S);
      lifetimes.add(m.world.trace.events.find((e) => e.kind === 'lock.expired')!.timeUs);
    }
    expect(lifetimes.size).toBeGreaterThan(1);
    for (const t of lifetimes) expect(t > S && t <= 2 * S).toBe(true);
  });

  it('reads a TTL over 30 days as a Unix timestamp in 1970, so the lock expires the moment it is stored', () => {
    const m = new MemcachedHarness();
    expect(m.at(0, 'A', add('A:1', 31 * 24 * 3600 * S))).toEqual({ ok: true });
    expect(m.kinds()).toEqual(['0 lock.granted A:1', '0 lock.expired A:1']);
    expect(m.world.trace.events[1]!.reason).toContain('Unix time');
    expect(m.at(1, 'B', add('B:1', 10 * S)).ok).toBe(true);
  });

  it('a wall-clock jump does not move expiry: memcached counts seconds on a monotonic clock', () => {
    const m = new MemcachedHarness();
    m.at(0, 'A', add('A:1', 10 * S));
    const cache = m.world.machine('cache');
    cache.clock.jump(m.world.nowUs, 60 * S);
    cache.clockChanged();
    m.advance(8 * S);
    expect(m.kinds()).toEqual(['0 lock.granted A:1']);
  });

  it('cas succeeds only with the CAS unique from the latest gets, and extends the item', () => {
    const m = new MemcachedHarness();
    m.at(0, 'A', add('A:1', 3 * S));
    const first = m.at(S, 'A', gets()).casId!;
    expect(m.at(S, 'A', cas('A:1', 10 * S, first))).toEqual({ ok: true });
    // The item changed: the old CAS unique no longer matches.
    expect(m.at(2 * S, 'A', cas('A:1', 10 * S, first))).toEqual({ ok: false, holder: 'A:1' });
    m.advance(8 * S);
    expect(m.kinds()).toEqual(['0 lock.granted A:1', `${S} lock.refreshed A:1`]);
  });

  it("a refresh after the item expired re-adds it when nobody took it meanwhile (Symfony's putOffExpiration)", () => {
    const doc = run([{ name: 'A', machine: 'app1', ttlMs: 1000, workMs: 4000, refreshEveryMs: 3000 }]);
    const store = doc.events.filter((e) => e.actor === 'memcached').map((e) => e.kind);
    expect(store.slice(0, 3)).toEqual(['lock.granted', 'lock.expired', 'lock.granted']);
    expect(doc.events.find((e) => e.kind === 'refresh.ok')).toBeDefined();
  });

  it('cas on an item that has gone answers NOT_FOUND', () => {
    const m = new MemcachedHarness();
    m.at(0, 'A', add('A:1', 2 * S));
    const id = m.at(0, 'A', gets()).casId!;
    expect(m.at(5 * S, 'A', cas('A:1', 2 * S, id))).toEqual({ ok: false, holder: null });
  });

  it('refresh is two requests, gets then cas, and release is gets, cas to 2 s, then delete', () => {
    const doc = run([{ name: 'A', machine: 'app1', ttlMs: 5000, workMs: 3000, refreshEveryMs: 2000 }]);
    const commands = doc.events
      .filter((e) => e.actor === 'A' && /^(acquire|refresh|release)\.request$/.test(e.kind))
      .map((e) => `${e.kind} ${String(e.data?.command)}`);
    expect(commands).toEqual([
      'acquire.request add',
      'refresh.request gets',
      'refresh.request cas',
      'release.request gets',
      'release.request cas',
      'release.request delete',
    ]);
    const store = doc.events.filter((e) => e.actor === 'memcached').map((e) => `${e.kind} ${e.ttlUs ?? ''}`);
    expect(store).toEqual([`lock.granted ${5 * S}`, `lock.refreshed ${5 * S}`, `lock.refreshed ${2 * S}`, 'lock.released ']);
    expect(doc.verdict.outcome).toBe('safe');
  });

  it('a refresh after someone else added the key fails: gets shows another token', () => {
    const doc = run(
      [
        { name: 'A', machine: 'app1', ttlMs: 2000, workMs: 6000, refreshEveryMs: 3000 },
        { name: 'B', machine: 'app2', startMs: 2500, ttlMs: 10000, workMs: 2000 },
      ],
      [],
    );
    expect(doc.events.find((e) => e.kind === 'refresh.failed')).toMatchObject({ actor: 'A', reason: 'held by B:1' });
    expect(doc.events.some((e) => e.kind === 'write.request' && e.actor === 'A')).toBe(false);
  });

  it("a token-checked release leaves someone else's item alone", () => {
    const doc = run([
      { name: 'A', machine: 'app1', ttlMs: 1000, workMs: 3000 },
      { name: 'B', machine: 'app2', startMs: 2500, ttlMs: 10000, workMs: 2000 },
    ]);
    // Symfony's release finds another token and returns quietly.
    expect(doc.events.find((e) => e.kind === 'release.lost' && e.actor === 'A')?.reason).toBe('not the owner');
    expect(doc.events.some((e) => e.actor === 'A' && e.kind.startsWith('exception.'))).toBe(false);
    expect(doc.events.filter((e) => e.kind === 'lock.released').map((e) => e.owner)).toEqual(['B:1']);
  });

  it("a plain delete removes someone else's item (the release mistake)", () => {
    const m = new MemcachedHarness();
    m.at(0, 'B', add('B:1', 10 * S));
    expect(m.at(1, 'A', { op: 'del', key: 'job', owner: 'A:1' })).toEqual({ ok: true });
    expect(m.world.trace.events[1]).toMatchObject({ kind: 'lock.deleted', owner: 'B:1', reason: 'plain delete by A' });
  });

  it('issues no fencing token', () => {
    const m = new MemcachedHarness();
    expect(m.at(0, 'A', add('A:1', S)).fence).toBeUndefined();
    expect(m.world.trace.events[0]!.fence).toBeUndefined();
    expect(MEMCACHED.capabilities.fencingToken).toBeNull();
  });

  it('a restart loses every item, and the next add succeeds', () => {
    const m = new MemcachedHarness();
    m.at(0, 'A', add('A:1', 60 * S));
    m.advance(S);
    m.node.restart(2 * S);
    m.advance(3 * S);
    // Lost with the process, but nobody can add it while the server is down: the loss counts from the restart's end.
    expect(m.kinds()).toEqual(['0 lock.granted A:1', `${S} store.down`, `${3 * S} lock.lost A:1`, `${3 * S} store.up`]);
    expect(m.at(3 * S, 'B', add('B:1', S))).toEqual({ ok: true });
  });

  it('an item lost in a restart whose exptime comes while the server is down ends at its expiry', () => {
    const m = new MemcachedHarness();
    m.at(0, 'A', add('A:1', 2 * S));
    m.advance(S / 2);
    m.node.restart(10 * S);
    m.advance(11 * S);
    const kinds = m.kinds();
    expect(kinds.map((k) => k.split(' ').slice(1).join(' '))).toEqual(['lock.granted A:1', 'store.down', 'lock.expired A:1', 'store.up']);
    const expiredAt = Number(kinds[2]!.split(' ')[0]);
    expect(expiredAt).toBeGreaterThan(S);
    expect(expiredAt).toBeLessThanOrEqual(2 * S);
  });

  it('memory pressure evicts the lock before its expiry once newer items fill the budget', () => {
    const memoryBytes = 1024 * 1024;
    const m = new MemcachedHarness({ memoryBytes });
    m.at(0, 'A', add('A:1', 60 * S));
    m.advance(S);
    m.node.pressure(10 * S, 1000, 1024);
    m.advance(20 * S);
    const lost = m.world.trace.events.find((e) => e.kind === 'lock.lost')!;
    expect(lost).toMatchObject({ owner: 'A:1', reason: expect.stringContaining('evicted (LRU)') });
    // It goes with the filler write that no longer fits beside it: 1024 items of 1 KiB fill 1 MiB.
    const lockBytes = LOCK_ITEM_OVERHEAD_BYTES + 'job'.length;
    const writes = Math.floor((memoryBytes - lockBytes) / 1024) + 1;
    expect(lost.timeUs).toBe(S + Math.ceil((writes * S) / 1000));
  });

  it('with memory to spare, the same pressure evicts nothing', () => {
    const m = new MemcachedHarness({ memoryBytes: 64 * 1024 * 1024 });
    m.at(0, 'A', add('A:1', 60 * S));
    m.node.pressure(10 * S, 1000, 1024);
    m.advance(20 * S);
    expect(m.kinds()).toEqual(['0 lock.granted A:1', '0 store.pressure']);
  });

  it('a read moves an item to the head of the LRU at most once a minute, so the other lock is evicted first', () => {
    const m = new MemcachedHarness({ memoryBytes: 1024 * 1024 });
    m.at(0, 'A', add('A:1', 300 * S, 'a'));
    m.at(S, 'B', add('B:1', 300 * S, 'b'));
    m.at(30 * S, 'A', gets('a'));
    expect(m.node.keys()).toEqual(['a', 'b']);
    m.at(62 * S, 'A', gets('a'));
    expect(m.node.keys()).toEqual(['b', 'a']);
    m.node.pressure(10 * S, 1000, 1024);
    m.advance(80 * S);
    // Both go in the end, but B, read less recently, goes first.
    expect(m.world.trace.events.filter((e) => e.kind === 'lock.lost').map((e) => e.owner)).toEqual(['B:1', 'A:1']);
  });

  it('the eviction fault evicts the named key now', () => {
    const doc = run(
      [
        { name: 'A', machine: 'app1', ttlMs: 60000, workMs: 3000 },
        { name: 'B', machine: 'app2', startMs: 1500, ttlMs: 60000, workMs: 100 },
      ],
      [{ kind: 'eviction', target: 'memcached', atMs: 1000, key: 'job' }],
    );
    expect(doc.events.find((e) => e.kind === 'lock.lost')).toMatchObject({ timeUs: S, owner: 'A:1', reason: 'evicted (eviction fault)' });
    expect(doc.verdict.outcome).toBe('unsafe');
  });

  it('cannot block and cannot share: blocking polls like Symfony, a read lock is an exclusive one, and a native wait is an Error', () => {
    expect(MEMCACHED.capabilities).toMatchObject({ scope: 'remote', blocking: false, expiring: true, sharing: false });
    const doc = run([
      { name: 'A', machine: 'app1', ttlMs: 2000, workMs: 500 },
      { name: 'B', machine: 'app2', startMs: 100, ttlMs: 2000, workMs: 100, acquire: { mode: 'blocking' } },
    ]);
    const attempts = doc.events.filter((e) => e.actor === 'B' && e.kind === 'acquire.request' && e.data?.command === 'add').length;
    expect(attempts).toBeGreaterThan(3);
    expect(doc.events.find((e) => e.kind === 'acquire.ok' && e.actor === 'B')).toBeDefined();
    // acquireRead() on a store without shared locks takes an ordinary one: a second reader is refused.
    const readers = run([
      { name: 'A', machine: 'app1', ttlMs: 5000, workMs: 1000, writes: 0, acquire: { shared: true } },
      { name: 'B', machine: 'app2', startMs: 100, ttlMs: 5000, workMs: 100, writes: 0, acquire: { shared: true } },
    ]);
    expect(readers.events.find((e) => e.actor === 'A' && e.kind === 'acquire.ok')?.believes?.shared).toBeUndefined();
    expect(readers.events.filter((e) => e.actor === 'B').map((e) => e.kind)).toContain('acquire.giveup');
    // waitAndSave() on a store that has none: PHP's Error, at run time.
    const native = run([{ name: 'A', machine: 'app1', acquire: { mode: 'blocking', poll: false } }]);
    expect(native.events.find((e) => e.kind === 'exception.unsupported')).toMatchObject({
      actor: 'A',
      reason: 'Call to undefined method MemcachedStore::waitAndSave()',
      data: { method: 'acquire', thrown: 'Error' },
    });
    expect(native.events.some((e) => e.kind === 'acquire.request')).toBe(false);
  });

  it('a TTL under 1 s: save() adds the key for the initial TTL, then refresh() refuses the TTL, and the key is left behind without autoRelease', () => {
    const steps = [{ step: 'acquire' }, { step: 'work', durationMs: 100 }];
    const left = run([{ name: 'A', machine: 'app1', ttlMs: 500, steps, autoRelease: false }]);
    expect(left.events.find((e) => e.kind === 'lock.granted')).toMatchObject({ owner: 'A:1', ttlUs: 300 * S });
    expect(left.events.find((e) => e.kind === 'exception.invalid-ttl')).toMatchObject({
      data: { method: 'acquire', thrown: 'LockAcquiringException', chain: ['LockAcquiringException', 'LockAcquiringException', 'InvalidTtlException'] },
    });
    expect(left.events.some((e) => e.kind === 'lock.released')).toBe(false);
    // With autoRelease the Lock's destructor still finds the key and deletes it.
    const released = run([{ name: 'A', machine: 'app1', ttlMs: 500, steps }]);
    expect(released.events.filter((e) => e.actor === 'A').map((e) => e.kind)).toContain('autorelease.check');
    expect(released.events.find((e) => e.kind === 'lock.released')).toMatchObject({ owner: 'A:1' });
  });

  it('refuses a memory budget under 1 KiB and an unknown machine', () => {
    expect(
      refusalOf({ name: 'x', machines: [{ name: 'm' }], store: { kind: 'memcached', machine: 'm', memoryBytes: 10 }, clients: [{ name: 'A', machine: 'm' }] }),
    ).toMatch(/store/);
    expect(refusalOf({ name: 'x', machines: [{ name: 'm' }], store: { kind: 'memcached', machine: 'nope' }, clients: [{ name: 'A', machine: 'm' }] })).toMatch(
      /store\.machine: no machine named "nope"/,
    );
  });
});
