import { describe, expect, it } from 'vitest';
import { acquire, RedisHarness } from './support/redis-harness.js';

const S = 1_000_000;

describe('Redis model (STORES.md: SET NX PX, token-checked release, expiry on the server clock)', () => {
  it('SET NX refuses a second owner while the key is held and names the holder', () => {
    const r = new RedisHarness();
    expect(r.at(0, 'A', acquire('A:1', 10 * S))).toEqual({ ok: true, fence: 1 });
    expect(r.at(1 * S, 'B', acquire('B:1', 10 * S))).toEqual({ ok: false, holder: 'A:1' });
  });

  it('acquiring again with the same token only extends the lease (Symfony save script)', () => {
    const r = new RedisHarness();
    r.at(0, 'A', acquire('A:1', 10 * S));
    expect(r.at(5 * S, 'A', acquire('A:1', 10 * S))).toEqual({ ok: true, fence: 1 });
    r.advance(12 * S);
    expect(r.kinds()).not.toContain(`${10 * S} lock.expired A:1`);
    r.advance(15 * S);
    expect(r.kinds()).toContain(`${15 * S} lock.expired A:1`);
  });

  it('expires the key exactly TTL after the grant, by the server clock', () => {
    const r = new RedisHarness();
    r.at(1000, 'A', acquire('A:1', 2 * S));
    r.advance(10 * S);
    expect(r.kinds()).toEqual(['1000 lock.granted A:1', `${2 * S + 1000} lock.expired A:1`]);
    expect(r.at(10 * S, 'B', acquire('B:1', S)).ok).toBe(true);
  });

  it('hands out fencing tokens from an INCR counter, starting where configured', () => {
    const r = new RedisHarness({ fencingTokenStart: 33 });
    expect(r.at(0, 'A', acquire('A:1', S)).fence).toBe(33);
    expect(r.at(2 * S, 'B', acquire('B:1', S)).fence).toBe(34);
    expect(r.at(4 * S, 'C', acquire('C:1', S, 'other')).fence).toBe(1 + 32);
  });

  it('releases only with the owner token; a token-checked release by someone else fails', () => {
    const r = new RedisHarness();
    r.at(0, 'A', acquire('A:1', 10 * S));
    expect(r.at(1, 'B', { op: 'release', key: 'job', owner: 'B:1' })).toEqual({ ok: false, holder: 'A:1' });
    expect(r.at(2, 'A', { op: 'release', key: 'job', owner: 'A:1' })).toEqual({ ok: true });
    expect(r.kinds()).toEqual(['0 lock.granted A:1', '2 lock.released A:1']);
  });

  it("a plain DEL deletes someone else's lock", () => {
    const r = new RedisHarness();
    r.at(0, 'B', acquire('B:1', 10 * S));
    expect(r.at(5, 'A', { op: 'del', key: 'job', owner: 'A:1' })).toEqual({ ok: true });
    const deleted = r.world.trace.events.find((e) => e.kind === 'lock.deleted');
    expect(deleted).toMatchObject({ owner: 'B:1', peer: 'A', reason: 'plain DEL by A' });
  });

  it('refreshes only with the owner token', () => {
    const r = new RedisHarness();
    r.at(0, 'A', acquire('A:1', 2 * S));
    expect(r.at(1 * S, 'B', { op: 'refresh', key: 'job', owner: 'B:1', ttlUs: 2 * S }).ok).toBe(false);
    expect(r.at(1 * S, 'A', { op: 'refresh', key: 'job', owner: 'A:1', ttlUs: 2 * S }).ok).toBe(true);
    r.advance(10 * S);
    expect(r.kinds()).toContain(`${3 * S} lock.expired A:1`);
  });

  it('an unconditional SET overwrites the holder (the second half of exists-then-set)', () => {
    const r = new RedisHarness();
    r.at(0, 'A', acquire('A:1', 10 * S));
    expect(r.at(1, 'B', { op: 'get', key: 'job' })).toEqual({ ok: true, holder: 'A:1' });
    expect(r.at(2, 'B', { op: 'set', key: 'job', owner: 'B:1', ttlUs: 10 * S }).ok).toBe(true);
    expect(r.kinds()).toEqual(['0 lock.granted A:1', '2 lock.overwritten A:1', '2 lock.granted B:1']);
  });

  it('a forward jump of the server clock expires keys early', () => {
    const r = new RedisHarness();
    r.at(0, 'A', acquire('A:1', 10 * S));
    r.advance(1 * S);
    const db = r.world.machine('db');
    db.clock.jump(r.world.nowUs, 20 * S);
    db.clockChanged();
    r.advance(2 * S);
    expect(r.kinds()).toContain(`${1 * S} lock.expired A:1`);
  });

  it('a server clock that runs slow keeps the key longer in true time', () => {
    const r = new RedisHarness();
    const db = r.world.machine('db');
    db.clock.setDrift(0, -100_000); // 10 % slow
    db.clockChanged();
    r.at(0, 'A', acquire('A:1', 9 * S));
    r.advance(20 * S);
    expect(r.kinds()).toContain(`${10 * S} lock.expired A:1`);
  });

  it('a restart without persistence loses every key and the fencing counter', () => {
    const r = new RedisHarness({ fencingTokenStart: 10 });
    r.at(0, 'A', acquire('A:1', 60 * S));
    r.advance(1 * S);
    r.node.restart(2 * S);
    expect(r.node.isUp()).toBe(false);
    r.advance(3 * S);
    expect(r.node.isUp()).toBe(true);
    // Lost in the crash, but nobody can be granted it while the server is down: it ends when the server is back.
    expect(r.kinds()).toEqual(['0 lock.granted A:1', `${S} store.down`, `${3 * S} lock.lost A:1`, `${3 * S} store.up`]);
    // The counter restarts too: a second holder gets the very same token.
    expect(r.at(3 * S, 'B', acquire('B:1', S))).toEqual({ ok: true, fence: 10 });
  });

  it('a key lost in a crash that would have expired while the server was down ends at its expiry', () => {
    const r = new RedisHarness();
    r.at(0, 'A', acquire('A:1', 2 * S));
    r.advance(1 * S);
    r.node.restart(5 * S);
    r.advance(7 * S);
    expect(r.kinds()).toEqual(['0 lock.granted A:1', `${S} store.down`, `${2 * S} lock.expired A:1`, `${6 * S} store.up`]);
  });

  it('with AOF always, a restart keeps keys, and their expiry keeps running while the server is down', () => {
    const r = new RedisHarness({ persistence: 'aof-always' });
    r.at(0, 'A', acquire('A:1', 2 * S));
    r.advance(1 * S);
    r.node.restart(5 * S);
    r.advance(6 * S);
    expect(r.kinds()).toEqual(['0 lock.granted A:1', `${S} store.down`, `${2 * S} lock.expired A:1`, `${6 * S} store.up`]);
  });

  it('with AOF everysec, a restart loses writes made since the last whole second of the server clock', () => {
    const r = new RedisHarness({ persistence: 'aof-everysec' });
    r.at(0, 'A', acquire('A:1', 60 * S));
    r.at(2.5 * S, 'B', acquire('B:1', 60 * S, 'recent'));
    r.advance(2.7 * S);
    r.node.restart(S);
    r.advance(4 * S);
    const lost = r.world.trace.events.filter((e) => e.kind === 'lock.lost').map((e) => `${e.timeUs} ${e.owner}`);
    expect(lost).toEqual([`${3.7 * S} B:1`]);
    expect(r.at(4 * S, 'C', acquire('C:1', S)).ok).toBe(false);
  });

  it('with AOF everysec, a refresh made since the last fsync is undone by a restart', () => {
    const r = new RedisHarness({ persistence: 'aof-everysec' });
    r.at(0, 'A', acquire('A:1', 3 * S));
    r.at(2.5 * S, 'A', { op: 'refresh', key: 'job', owner: 'A:1', ttlUs: 10 * S });
    r.advance(2.6 * S);
    r.node.restart(0.1 * S);
    r.advance(5 * S);
    expect(r.kinds()).toContain(`${3 * S} lock.expired A:1`);
  });
});

describe('Redis shared locks (Symfony RedisStore saveRead)', () => {
  const read = (owner: string, ttlUs: number) => ({ op: 'acquire' as const, key: 'job', owner, ttlUs, shared: true });

  it('lets several readers hold the key at once, without fencing tokens', () => {
    const r = new RedisHarness();
    expect(r.at(0, 'R', read('R:1', 10 * S))).toEqual({ ok: true });
    expect(r.at(1, 'S', read('S:1', 10 * S))).toEqual({ ok: true });
    const granted = r.world.trace.events.filter((e) => e.kind === 'lock.granted');
    expect(granted.map((e) => [e.owner, e.data?.shared, e.fence])).toEqual([
      ['R:1', true, undefined],
      ['S:1', true, undefined],
    ]);
  });

  it('refuses a writer while readers hold the key, and readers while a writer does', () => {
    const r = new RedisHarness();
    r.at(0, 'R', read('R:1', 10 * S));
    expect(r.at(1, 'W', acquire('W:1', 10 * S))).toEqual({ ok: false, holder: 'R:1' });
    r.at(2, 'R', { op: 'release', key: 'job', owner: 'R:1' });
    expect(r.at(3, 'W', acquire('W:1', 10 * S)).ok).toBe(true);
    expect(r.at(4, 'S', read('S:1', 10 * S))).toEqual({ ok: false, holder: 'W:1' });
  });

  it("expires each reader on its own TTL and releases only the reader's own entry", () => {
    const r = new RedisHarness();
    r.at(0, 'R', read('R:1', 2 * S));
    r.at(1 * S, 'S', read('S:1', 5 * S));
    r.advance(3 * S);
    expect(r.kinds()).toContain(`${2 * S} lock.expired R:1`);
    expect(r.at(3 * S, 'W', acquire('W:1', S))).toEqual({ ok: false, holder: 'S:1' });
    expect(r.at(3 * S, 'S', { op: 'release', key: 'job', owner: 'S:1' }).ok).toBe(true);
    expect(r.at(3 * S, 'W', acquire('W:1', S)).ok).toBe(true);
  });
});
