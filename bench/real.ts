/**
 * Real-server figures for `npm run bench`: acquire+release cycles per second
 * with 50 concurrent clients, for Locklab's adapters and for a reference on
 * the same server in the same run — the `redlock` package on Redis, the
 * plain client on Memcached, PostgreSQL and etcd — interleaved round by
 * round, with the p50 and p99 of one cycle. Every loop is bounded in cycles
 * and in time.
 */
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import Redlock from 'redlock';
import { EtcdNode, etcdClient } from '../sim/real/adapters/etcd.js';
import Memcached from 'memcached';
import { mc, memcachedSocket, MemcachedNode } from '../sim/real/adapters/memcached.js';
import { pgConnect, PostgresAdvisoryNode } from '../sim/real/adapters/postgres.js';
import { RedisNode } from '../sim/real/adapters/redis.js';
import { TickWrites } from '../sim/real/adapters/tick-writes.js';
import type { LockOp } from '../sim/stores/protocol.js';
import { Harness } from '../sim/real/harness/index.js';
import { crc32 } from '../sim/stores/postgres.js';

const CLIENTS = 50;
const ROUNDS = 5;
const ROUND_MS = 1_500;
const MAX_CYCLES_PER_ROUND = 400_000;

/** One client's acquire+release of its own key; resolves true when both succeeded. */
type Cycle = (client: number, n: number) => Promise<boolean>;

interface Side {
  readonly name: string;
  readonly cycle: Cycle;
}

interface Figures {
  cyclesPerSec: number;
  /** Each round's rate, in the order run: the spread the median is taken from. */
  roundRates: number[];
  p50Ms: number;
  p99Ms: number;
  failed: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** One round: every client loops until the round's time or cycle budget is spent. */
async function round(side: Side, latencies: number[]): Promise<{ cycles: number; seconds: number; failed: number }> {
  let cycles = 0;
  let failed = 0;
  const t0 = performance.now();
  const deadline = t0 + ROUND_MS;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; performance.now() < deadline && cycles < MAX_CYCLES_PER_ROUND; n++) {
        const s = performance.now();
        const ok = await side.cycle(client, n);
        latencies.push(performance.now() - s);
        if (ok) cycles++;
        else failed++;
      }
    }),
  );
  return { cycles, seconds: (performance.now() - t0) / 1000, failed };
}

/** Both sides, round after round, alternating, so that the machine's noise falls on both alike. */
async function compare(ours: Side, theirs: Side): Promise<Record<string, unknown>> {
  const results = new Map<string, { rates: number[]; latencies: number[]; failed: number }>([
    [ours.name, { rates: [], latencies: [], failed: 0 }],
    [theirs.name, { rates: [], latencies: [], failed: 0 }],
  ]);
  // A short warm-up of each (connections, scripts loaded, JIT).
  for (const side of [ours, theirs]) await Promise.all(Array.from({ length: CLIENTS }, (_, c) => side.cycle(c, -1)));
  for (let r = 0; r < ROUNDS; r++) {
    for (const side of r % 2 === 0 ? [ours, theirs] : [theirs, ours]) {
      const acc = results.get(side.name)!;
      const x = await round(side, acc.latencies);
      acc.rates.push(x.cycles / x.seconds);
      acc.failed += x.failed;
    }
  }
  const figures = (name: string): Figures => {
    const acc = results.get(name)!;
    const rates = [...acc.rates].sort((a, b) => a - b);
    const lat = [...acc.latencies].sort((a, b) => a - b);
    return {
      cyclesPerSec: Math.round(rates[rates.length >> 1]!),
      roundRates: acc.rates.map(Math.round),
      p50Ms: Math.round(percentile(lat, 50) * 1000) / 1000,
      p99Ms: Math.round(percentile(lat, 99) * 1000) / 1000,
      failed: acc.failed,
    };
  };
  const a = figures(ours.name);
  const b = figures(theirs.name);
  return {
    clients: CLIENTS,
    rounds: ROUNDS,
    roundMs: ROUND_MS,
    [ours.name]: a,
    [theirs.name]: b,
    ratio: Math.round((a.cyclesPerSec / b.cyclesPerSec) * 100) / 100,
  };
}

const call = { client: 'bench', msg: 0 };

/** A redlock cycle on its own key: lock, then unlock; false when the lock was not granted. */
function redlockSide(name: string, redlock: Redlock, prefix: string): Side {
  redlock.on('clientError', () => undefined);
  return {
    name,
    cycle: async (c) => {
      const lock = await redlock.lock(`${prefix}:${c}`, 10_000).catch(() => undefined);
      if (lock === undefined) return false;
      await lock.unlock();
      return true;
    },
  };
}

/*
 * What each side does per cycle. Ours: the adapter every real run uses on a
 * `redis` store, one connection for the 50 clients: EVALSHA of the acquire
 * script (SET NX PX GET, then INCR of the fencing counter), EVALSHA of the
 * token-checked release. redlock: EVALSHA of SET NX PX, EVALSHA of its
 * token-checked release, plus its own work (a random token, the drift
 * arithmetic). Ours does more on the server (the INCR) and is not spared it.
 * Ours also sends the commands of one tick eight to a write (TickWrites); the
 * headline is redlock as documented, and two lines for the record give
 * redlock the same kind of transport: ioredis' auto-pipelining, and the very
 * same batching connection ours has.
 */
async function redisBench(h: Harness): Promise<Record<string, unknown>> {
  const server = await h.redis({ name: 'bench' });
  const node = new RedisNode('redis', server.url);
  await node.open();
  const ours: Side = {
    name: 'locklab',
    cycle: async (c, n) => {
      const owner = `c${c}:${n}`;
      const a = await node.handle({ op: 'acquire', key: `ours:${c}`, owner, ttlUs: 10_000_000 }, call);
      if (!a.reply.ok) return false;
      return (await node.handle({ op: 'release', key: `ours:${c}`, owner }, call)).reply.ok;
    },
  };
  const client = new Redis(server.url);
  const out = await compare(ours, redlockSide('redlock', new Redlock([client], { retryCount: 0 }), 'theirs'));
  const piped = new Redis(server.url, { enableAutoPipelining: true });
  const alsoPiped = await compare(ours, redlockSide('redlockAutoPipelined', new Redlock([piped], { retryCount: 0 }), 'piped'));
  const tickClient = new Redis(server.url);
  const writes = new TickWrites(() => tickClient.stream as Socket | undefined);
  const send = tickClient.sendCommand.bind(tickClient);
  tickClient.sendCommand = (command, stream) => {
    writes.hold();
    return send(command, stream);
  };
  const alsoTick = await compare(ours, redlockSide('redlockTickWrites', new Redlock([tickClient], { retryCount: 0 }), 'tick'));
  await node.close();
  client.disconnect();
  piped.disconnect();
  tickClient.disconnect();
  return {
    target: 'locklab at least 1.5 × redlock',
    reference: 'redlock 4.2 over ioredis, one connection (the package as documented)',
    ...out,
    againstRedlockAutoPipelined: { redlockAutoPipelined: alsoPiped.redlockAutoPipelined, locklab: alsoPiped.locklab, ratio: alsoPiped.ratio },
    againstRedlockTickWrites: { redlockTickWrites: alsoTick.redlockTickWrites, locklab: alsoTick.locklab, ratio: alsoTick.ratio },
  };
}

/*
 * Ours: `add`, then the release real runs send for a plain delete: a `get`
 * of whom the delete removes (the trace needs it: our own lock released, or
 * another's deleted) and the `delete`, both in one round trip on the
 * adapter's one connection, with the commands of one tick eight to a write. The
 * reference: `add` and `delete` with the package's defaults, one write per
 * command; for the record also on one connection with the same batched
 * writes, so the transport is alike and ours pays only for its `get`.
 */
async function memcachedBench(h: Harness): Promise<Record<string, unknown>> {
  const server = await h.memcached({ name: 'bench' });
  const node = new MemcachedNode('memcached', server.url);
  await node.open();
  const ours: Side = {
    name: 'locklab',
    cycle: async (c, n) => {
      const owner = `c${c}:${n}`;
      if (!(await node.handle({ op: 'acquire', key: `ours-${c}`, owner, ttlUs: 10_000_000 }, call)).reply.ok) return false;
      return (await node.handle({ op: 'release', key: `ours-${c}`, owner } as LockOp, call)).reply.ok;
    },
  };
  const location = server.url.replace('memcached://', '');
  const plainSide = (name: string, client: Memcached, hold: () => void): Side => ({
    name,
    cycle: async (c, n) => {
      hold();
      const added = await mc<boolean>((cb) => client.add(`${name}-${c}`, `c${c}:${n}`, 10, cb)).catch(() => false);
      if (!added) return false;
      hold();
      return mc<boolean>((cb) => client.del(`${name}-${c}`, cb)).catch(() => false);
    },
  });
  // The package as a program would use it: its defaults.
  const plain = new Memcached(location);
  const out = await compare(
    ours,
    plainSide('plainClient', plain, () => undefined),
  );
  const one = new Memcached(location, { poolSize: 1 });
  const writes = new TickWrites(() => memcachedSocket(one, location));
  const alsoTick = await compare(
    ours,
    plainSide('plainClientTickWrites', one, () => writes.hold()),
  );
  await node.close();
  plain.end();
  one.end();
  return {
    reference: 'add + delete with the memcached package',
    ...out,
    againstPlainClientTickWrites: { plainClientTickWrites: alsoTick.plainClientTickWrites, locklab: alsoTick.locklab, ratio: alsoTick.ratio },
  };
}

/*
 * Both sides run the same two statements per cycle on a connection of
 * their own per client. Ours prepares them (named statements: parsed and
 * planned once per connection); the reference sends them unnamed, as the pg
 * package's documentation shows a query.
 */
async function postgresBench(h: Harness): Promise<Record<string, unknown>> {
  const server = await h.postgres({ name: 'bench' });
  // Advisory locks belong to a session: each client has its own connection, on both sides.
  const nodes = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const n = new PostgresAdvisoryNode('postgres', server.url, `bench-${c}`);
      await n.open();
      return n;
    }),
  );
  const ours: Side = {
    name: 'locklab',
    cycle: async (c, n) => {
      const owner = `c${c}:${n}`;
      const conn = { conn: `c${c}`, fresh: true };
      if (!(await nodes[c]!.handle({ op: 'acquire', key: `ours-${c}`, owner, ttlUs: 0, ...conn } as LockOp, call)).reply.ok) return false;
      return (await nodes[c]!.handle({ op: 'release', key: `ours-${c}`, owner, ...conn } as LockOp, call)).reply.ok;
    },
  };
  const clients: pg.Client[] = await Promise.all(Array.from({ length: CLIENTS }, (_, c) => pgConnect(server.url, `plain-${c}`)));
  const theirs: Side = {
    name: 'plainClient',
    cycle: async (c) => {
      const id = crc32(`theirs-${c}`);
      const got = (await clients[c]!.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1) AS got', [id])).rows[0]?.got === true;
      if (!got) return false;
      return (await clients[c]!.query<{ ok: boolean }>('SELECT pg_advisory_unlock($1) AS ok', [id])).rows[0]?.ok === true;
    },
  };
  const out = await compare(ours, theirs);
  await Promise.all(nodes.map((n) => n.close()));
  await Promise.all(clients.map((c) => c.end()));
  return { reference: 'pg_try_advisory_lock + pg_advisory_unlock with the pg package', ...out };
}

/*
 * Ours: one transaction that puts the session's key under its lease if no
 * key has the lock's prefix (each client has a lock of its own here, so the
 * nested transaction for a taken lock never runs), then the delete. The
 * reference: a transaction put under a lease, then the delete. Parity is
 * the aim (docs/decisions/0012-plain-client-ratios-are-parity.md).
 */
async function etcdBench(h: Harness): Promise<Record<string, unknown>> {
  const server = await h.etcd({ name: 'bench' });
  const node = new EtcdNode('etcd', server.url);
  await node.open();
  const session = (c: number) => ({ session: `c${c}`, fresh: true, timeoutUs: 60_000_000 });
  const ours: Side = {
    name: 'locklab',
    cycle: async (c, n) => {
      const owner = `c${c}:${n}`;
      if (!(await node.handle({ op: 'acquire', key: `ours/${c}`, owner, ttlUs: 0, ...session(c) } as LockOp, call)).reply.ok) return false;
      return (await node.handle({ op: 'release', key: `ours/${c}`, owner, ...session(c) } as LockOp, call)).reply.ok;
    },
  };
  const plain = etcdClient(server.url);
  const lease = plain.lease(60, { autoKeepAlive: false });
  await lease.grant();
  const theirs: Side = {
    name: 'plainClient',
    cycle: async (c, n) => {
      const key = `theirs/${c}`;
      const t = await plain
        .if(key, 'Create', '==', 0)
        .then(lease.put(key).value(`c${c}:${n}`))
        .commit();
      if (!t.succeeded) return false;
      await plain.delete().key(key).exec();
      return true;
    },
  };
  const out = await compare(ours, theirs);
  await node.close();
  await lease.revoke().catch(() => undefined);
  plain.close();
  return { reference: 'a transaction put under a lease + delete with the etcd3 package', ...out };
}

/** Runs every real-server figure; servers are started for it and stopped after. */
export async function runRealBench(): Promise<Record<string, unknown>> {
  const h = new Harness();
  try {
    return {
      redis: await redisBench(h),
      memcached: await memcachedBench(h),
      postgresAdvisory: await postgresBench(h),
      etcd: await etcdBench(h),
    };
  } finally {
    await h.close();
  }
}

// `npm run bench` starts this file as a process of its own, so that no other figure's heap or JIT state weighs on either side.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  runRealBench().then(
    (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
