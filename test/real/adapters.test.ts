import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EtcdNode } from '../../sim/real/adapters/etcd.js';
import { MemcachedNode } from '../../sim/real/adapters/memcached.js';
import { PostgresAdvisoryNode } from '../../sim/real/adapters/postgres.js';
import { RedisNode } from '../../sim/real/adapters/redis.js';
import { SqlTableNode } from '../../sim/real/adapters/sql-table.js';
import { RefusedError, type NodeAnswer, type RealNode } from '../../sim/real/adapters/types.js';
import { ZooKeeperNode } from '../../sim/real/adapters/zookeeper.js';
import { Harness, type EtcdServer, type MemcachedServer, type PostgresServer, type RedisServer, type ZooKeeperServer } from '../../sim/real/harness/index.js';
import type { LockOp } from '../../sim/stores/types.js';
import { describeReal, eventually } from './support.js';

const A = { client: 'A', msg: 1 };
const B = { client: 'B', msg: 2 };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describeReal('adapters on real servers', () => {
  const h = new Harness();
  const opened: RealNode[] = [];
  let redis: RedisServer;
  let memcached: MemcachedServer;
  let postgres: PostgresServer;
  let zk: ZooKeeperServer;
  let etcd: EtcdServer;

  async function open<T extends RealNode>(n: T): Promise<T> {
    await n.open();
    opened.push(n);
    return n;
  }

  beforeAll(async () => {
    [redis, memcached, postgres, zk, etcd] = await Promise.all([h.redis(), h.memcached(), h.postgres({ clock: true }), h.zookeeper({ tickMs: 200 }), h.etcd()]);
  });
  afterAll(async () => {
    await Promise.all(opened.map((n) => n.close()));
    await h.close();
  });

  it('Redis: SET NX PX grants one owner with an INCR fencing token; the token-checked release refuses anyone else', async () => {
    const n = await open(new RedisNode('redis', redis.url));
    const a = await n.handle({ op: 'acquire', key: 'r1', owner: 'A:1', ttlUs: 5_000_000 }, A);
    expect(a.reply).toEqual({ ok: true, fence: 1 });
    expect(a.facts).toEqual([expect.objectContaining({ kind: 'lock.granted', owner: 'A:1', fence: 1 })]);
    expect((await n.handle({ op: 'acquire', key: 'r1', owner: 'B:1', ttlUs: 5_000_000 }, B)).reply).toEqual({ ok: false, holder: 'A:1' });
    expect((await n.handle({ op: 'release', key: 'r1', owner: 'B:1' }, B)).reply).toEqual({ ok: false, holder: 'A:1' });
    expect((await n.handle({ op: 'release', key: 'r1', owner: 'A:1' }, A)).facts).toEqual([expect.objectContaining({ kind: 'lock.released', owner: 'A:1' })]);
    expect((await n.handle({ op: 'acquire', key: 'r1', owner: 'B:1', ttlUs: 5_000_000 }, B)).reply).toEqual({ ok: true, fence: 2 });
  });

  it('Redis: the key expires by its TTL on the server, and a refresh after that fails', async () => {
    const n = await open(new RedisNode('redis', redis.url));
    await n.handle({ op: 'acquire', key: 'r2', owner: 'A:1', ttlUs: 300_000 }, A);
    expect((await n.handle({ op: 'refresh', key: 'r2', owner: 'A:1', ttlUs: 300_000 }, A)).reply.ok).toBe(true);
    await sleep(450);
    expect((await n.handle({ op: 'get', key: 'r2' }, A)).reply).toEqual({ ok: true, holder: null });
    expect((await n.handle({ op: 'refresh', key: 'r2', owner: 'A:1', ttlUs: 300_000 }, A)).reply).toEqual({ ok: false, holder: null });
  });

  it("Redis: the plain-DEL mistake deletes another owner's lock, and an unconditional SET overwrites it", async () => {
    const n = await open(new RedisNode('redis', redis.url));
    await n.handle({ op: 'acquire', key: 'r3', owner: 'B:1', ttlUs: 5_000_000 }, B);
    expect((await n.handle({ op: 'del', key: 'r3', owner: 'A:1' }, A)).facts).toEqual([
      expect.objectContaining({ kind: 'lock.deleted', owner: 'B:1', reason: 'plain DEL by A' }),
    ]);
    await n.handle({ op: 'acquire', key: 'r3', owner: 'B:2', ttlUs: 5_000_000 }, B);
    const set = await n.handle({ op: 'set', key: 'r3', owner: 'A:2', ttlUs: 5_000_000 }, A);
    expect(set.facts.map((f) => [f.kind, f.owner])).toEqual([
      ['lock.overwritten', 'B:2'],
      ['lock.granted', 'A:2'],
    ]);
  });

  it('Redis: a restart without persistence loses the key and its fencing counter; requests meanwhile are refused', async () => {
    const server = await h.redis({ name: 'volatile', persistence: 'none' });
    const n = await open(new RedisNode('volatile', server.url));
    await n.handle({ op: 'acquire', key: 'r4', owner: 'A:1', ttlUs: 30_000_000 }, A);
    await server.kill();
    await expect(n.handle({ op: 'get', key: 'r4' }, A)).rejects.toBeInstanceOf(RefusedError);
    await server.start();
    let after: NodeAnswer | undefined;
    expect(
      await eventually(async () => {
        after = await n.handle({ op: 'acquire', key: 'r4', owner: 'B:1', ttlUs: 30_000_000 }, B).catch(() => undefined);
        return after !== undefined;
      }),
    ).toBe(true);
    expect(after!.reply).toEqual({ ok: true, fence: 1 });
  });

  it('Redis: with the AOF fsynced on every write the key survives a crash', async () => {
    const server = await h.redis({ name: 'durable', persistence: 'aof-always' });
    const n = await open(new RedisNode('durable', server.url));
    await n.handle({ op: 'acquire', key: 'r5', owner: 'A:1', ttlUs: 30_000_000 }, A);
    await server.restart(0);
    expect(await eventually(async () => (await n.handle({ op: 'get', key: 'r5' }, A).catch(() => undefined))?.reply.holder === 'A:1')).toBe(true);
  });

  it('memcached: add grants once; gets + cas extends; whole-second expiry; a restart loses everything', async () => {
    const n = await open(new MemcachedNode('memcached', memcached.url));
    expect((await n.handle({ op: 'acquire', key: 'm1', owner: 'A:1', ttlUs: 1_000_000 }, A)).reply).toEqual({ ok: true });
    expect((await n.handle({ op: 'acquire', key: 'm1', owner: 'B:1', ttlUs: 1_000_000 }, B)).reply).toEqual({ ok: false, holder: null });
    const g = (await n.handle({ op: 'get', key: 'm1' }, A)).reply as unknown as { holder: string; casId: number };
    expect(g.holder).toBe('A:1');
    const cas = { op: 'refresh', key: 'm1', owner: 'A:1', ttlUs: 1_000_000, casId: g.casId } as LockOp;
    expect((await n.handle(cas, A)).facts).toEqual([expect.objectContaining({ kind: 'lock.refreshed' })]);
    // The same cas id again: the item changed since that gets.
    expect((await n.handle(cas, A)).reply.ok).toBe(false);
    expect(await eventually(async () => (await n.handle({ op: 'get', key: 'm1' }, A)).reply.holder === null, 3_000)).toBe(true);
    await n.handle({ op: 'acquire', key: 'm2', owner: 'A:1', ttlUs: 30_000_000 }, A);
    await memcached.restart(0);
    expect(await eventually(async () => (await n.handle({ op: 'get', key: 'm2' }, A).catch(() => undefined))?.reply.holder === null)).toBe(true);
  });

  it('PostgreSQL advisory locks: one session holds; a terminated backend frees the lock silently and its next query fails', async () => {
    const a = await open(new PostgresAdvisoryNode('postgres', postgres.url, 'adv-A'));
    const b = await open(new PostgresAdvisoryNode('postgres', postgres.url, 'adv-B'));
    const op = (owner: string, conn: string, fresh: boolean, waitUs?: number | null): LockOp =>
      ({ op: 'acquire', key: 'p1', owner, ttlUs: 0, waitUs, conn, fresh }) as LockOp;
    expect((await a.handle(op('A:1', 'A#1', true), A)).reply).toEqual({ ok: true });
    expect((await b.handle(op('B:1', 'B#1', true), B)).reply).toEqual({ ok: false, holder: null });
    // pg_advisory_lock under a lock_timeout: waits, then gives up.
    const t0 = Date.now();
    expect((await b.handle(op('B:1', 'B#1', false, 300_000), B)).reply.ok).toBe(false);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    const backend = (await postgres.backends()).find((x) => x.application === 'adv-A');
    await postgres.terminateBackend(backend!.pid);
    expect((await b.handle(op('B:1', 'B#1', false, 2_000_000), B)).reply).toEqual({ ok: true });
    const refresh = { op: 'refresh', key: 'p1', owner: 'A:1', ttlUs: 0, conn: 'A#1', fresh: false } as LockOp;
    expect((await a.handle(refresh, A)).reply).toEqual({ ok: false, error: 'connection lost' });
  });

  it('clients opening the lock table at once, on a database without it, all start: PostgreSQL may tell the losers of its catalog race that the table, or its type, exists', async () => {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    try {
      // Each round tells one or two of six, on this machine (duplicate key in pg_type, the relation exists, the type exists): all are the table made by another.
      for (let round = 0; round < 30; round++) {
        await admin.query('DROP TABLE IF EXISTS lock_keys');
        const nodes = Array.from({ length: 6 }, (_, i) => new SqlTableNode('sql', postgres.url, `race-${round}-${i}`));
        const opened = await Promise.allSettled(nodes.map((n) => n.open()));
        await Promise.all(nodes.map((n) => n.close()));
        expect(opened.flatMap((r) => (r.status === 'rejected' ? [`round ${round}: ${String(r.reason)}`] : []))).toEqual([]);
      }
    } finally {
      await admin.end();
    }
  });

  it("the lock table on the server's clock: a held row refuses others until it expires, then it is taken over", async () => {
    const a = await open(new SqlTableNode('sql', postgres.url, 'sql-A'));
    const b = await open(new SqlTableNode('sql', postgres.url, 'sql-B'));
    expect((await a.handle({ op: 'acquire', key: 's1', owner: 'A:1', ttlUs: 30_000_000 }, A)).reply).toEqual({ ok: true });
    expect((await b.handle({ op: 'acquire', key: 's1', owner: 'B:1', ttlUs: 30_000_000 }, B)).reply).toEqual({ ok: false, holder: 'A:1' });
    // The database server's clock steps forward past the row's expiry: B takes it over at once.
    postgres.stepClock(31_000);
    try {
      const takeover = await b.handle({ op: 'acquire', key: 's1', owner: 'B:1', ttlUs: 30_000_000 }, B);
      expect(takeover.reply).toEqual({ ok: true });
      expect(takeover.facts.map((f) => [f.kind, f.owner])).toEqual([
        ['lock.expired', 'A:1'],
        ['lock.granted', 'B:1'],
      ]);
      expect((await a.handle({ op: 'release', key: 's1', owner: 'A:1' }, A)).reply.ok).toBe(false);
    } finally {
      postgres.stepClock(-31_000);
    }
  });

  it("the lock table on the client's clock: a client whose clock runs ahead takes over a row its owner still holds", async () => {
    const a = await open(new SqlTableNode('sql', postgres.url, 'sqlc-A'));
    const b = await open(new SqlTableNode('sql', postgres.url, 'sqlc-B'));
    const at = (owner: string, nowS: number): LockOp => ({ op: 'acquire', key: 's2', owner, ttlUs: 10_000_000, clientNowUs: nowS * 1_000_000 }) as LockOp;
    expect((await a.handle(at('A:1', 100), A)).reply.ok).toBe(true);
    expect((await b.handle(at('B:1', 105), B)).reply.ok).toBe(false);
    expect((await b.handle(at('B:1', 111), B)).reply.ok).toBe(true);
  });

  it('ZooKeeper (Symfony): one ephemeral node per key; it goes when its session closes', async () => {
    const a = await open(new ZooKeeperNode('zk', zk.url, false));
    const b = await open(new ZooKeeperNode('zk', zk.url, false));
    const acquire = (owner: string, session: string, fresh: boolean): LockOp =>
      ({ op: 'acquire', key: 'z1', owner, ttlUs: 0, session, fresh, timeoutUs: 2_000_000 }) as LockOp;
    expect((await a.handle(acquire('A:1', 'A#1', true), A)).reply).toEqual({ ok: true });
    expect((await b.handle(acquire('B:1', 'B#1', true), B)).reply).toEqual({ ok: false, holder: 'A:1' });
    const close = await a.handle({ op: 'close', session: 'A#1', fresh: false, timeoutUs: 2_000_000 } as unknown as LockOp, A);
    expect(close.facts).toEqual([expect.objectContaining({ kind: 'lock.released', owner: 'A:1', reason: 'session closed' })]);
    expect((await b.handle(acquire('B:1', 'B#2', true), B)).reply).toEqual({ ok: true });
  });

  it('ZooKeeper recipe: sequential children, a waiter gets the lock when its predecessor goes, and the czxid grows', async () => {
    const a = await open(new ZooKeeperNode('zk', zk.url, true));
    const b = await open(new ZooKeeperNode('zk', zk.url, true));
    const acquire = (owner: string, session: string, waitUs?: number | null): LockOp =>
      ({ op: 'acquire', key: 'z2', owner, ttlUs: 0, session, fresh: true, timeoutUs: 2_000_000, waitUs }) as LockOp;
    const first = await a.handle(acquire('A:1', 'A#1'), A);
    expect(first.reply.ok).toBe(true);
    expect(await b.handle(acquire('B:1', 'B#1'), B)).toEqual({ reply: { ok: false, holder: 'A:1' }, facts: [] });
    const waiting = b.handle(acquire('B:2', 'B#2', null), B);
    await sleep(200);
    await a.handle({ op: 'release', key: 'z2', owner: 'A:1', session: 'A#1', fresh: false, timeoutUs: 2_000_000, end: true } as unknown as LockOp, A);
    const second = await waiting;
    expect(second.reply.ok).toBe(true);
    expect(second.reply.fence!).toBeGreaterThan(first.reply.fence!);
    expect(second.facts.map((f) => f.kind)).toEqual(['lock.queued', 'lock.granted']);
  });

  it('etcd: a key under a lease; the create revision is the token; without keep-alives the lease and the lock end', async () => {
    const a = await open(new EtcdNode('etcd', etcd.url));
    const b = await open(new EtcdNode('etcd', etcd.url));
    const acquire = (owner: string, session: string, waitUs?: number | null, timeoutUs = 2_000_000): LockOp =>
      ({ op: 'acquire', key: 'e1', owner, ttlUs: 0, session, fresh: true, timeoutUs, waitUs }) as LockOp;
    const first = await a.handle(acquire('A:1', 'A#1'), A);
    expect(first.reply.ok).toBe(true);
    expect((await b.handle(acquire('B:1', 'B#1'), B)).reply).toEqual({ ok: false, holder: 'A:1' });
    // A sends no keep-alive: its 2 s lease runs out and the waiting B (on a 10 s lease) is next.
    const t0 = Date.now();
    const second = await b.handle(acquire('B:2', 'B#2', null, 10_000_000), B);
    expect(second.reply.ok).toBe(true);
    expect(Date.now() - t0).toBeGreaterThan(1_000);
    expect(second.reply.fence!).toBeGreaterThan(first.reply.fence!);
    const ping = { op: 'ping', session: 'A#1', fresh: false, timeoutUs: 2_000_000 } as unknown as LockOp;
    expect((await a.handle(ping, A)).reply).toEqual({ ok: false, error: 'lease expired' });
  });

  it("etcd: the token is the create revision of the acquirer's own key, whether the lock was free or it queued", async () => {
    const a = await open(new EtcdNode('etcd', etcd.url));
    const b = await open(new EtcdNode('etcd', etcd.url));
    const acquire = (owner: string, session: string, waitUs?: number | null): LockOp =>
      ({ op: 'acquire', key: 'e2', owner, ttlUs: 0, session, fresh: true, timeoutUs: 10_000_000, waitUs }) as LockOp;
    const revisionOf = async (owner: string): Promise<number> => {
      const kvs = (await a.client.getAll().prefix('e2/').exec()).kvs;
      return Number(kvs.find((kv) => kv.value.toString() === owner)!.create_revision);
    };
    // Free: one put, the lock granted without a read.
    const first = await a.handle(acquire('A:1', 'A#1'), A);
    expect(first.reply).toEqual({ ok: true, fence: await revisionOf('A:1') });
    // Taken: B's key is created behind A's, and B waits for it to go.
    const waiting = b.handle(acquire('B:1', 'B#1', null), B);
    await new Promise((r) => setTimeout(r, 300));
    const queuedAt = await revisionOf('B:1');
    expect(queuedAt).toBeGreaterThan(first.reply.fence!);
    expect((await a.handle({ op: 'release', key: 'e2', owner: 'A:1', session: 'A#1', fresh: false } as unknown as LockOp, A)).reply.ok).toBe(true);
    const second = await waiting;
    expect(second.reply).toEqual({ ok: true, fence: queuedAt });
    expect(second.facts.map((f) => f.kind)).toEqual(['lock.queued', 'lock.granted']);
  });

  it('a wrong port fails within a few seconds, naming the node and its address', async () => {
    const t0 = Date.now();
    await expect(new RedisNode('redis', 'redis://127.0.0.1:1').open()).rejects.toThrow(/redis.*127\.0\.0\.1:1/);
    await expect(new MemcachedNode('memcached', 'memcached://127.0.0.1:1').open()).rejects.toThrow(/memcached.*127\.0\.0\.1:1/);
    expect(Date.now() - t0).toBeLessThan(8_000);
  });
});
