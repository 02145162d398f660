import { createHash } from 'node:crypto';
import type pg from 'pg';
import zookeeper from 'node-zookeeper-client';
import type { Scenario, StoreSpecBase } from '../scenario/types.js';
import { crc32 } from '../stores/postgres.js';
import { etcdClient } from './adapters/etcd.js';
import { mc, memcachedClient } from './adapters/memcached.js';
import { pgConnect } from './adapters/postgres.js';
import { fenceKey, lockRedis } from './adapters/redis.js';
import { connectWithin } from './adapters/types.js';
import { zkSession, znodeOf } from './adapters/zookeeper.js';
import type { ClientLibrary } from './ipc.js';

/** The key etcd is written at to move its revision on to the scenario's `revisionStart`. */
export const ETCD_REVISION_KEY = 'locklab/revision';

/** How long the check and the clean-up wait for a server the user named (it answered a moment ago). */
const REACH_MS = 3_000;

/**
 * What a run writes on one server the user named (`--redis URL` and the
 * like): that server is theirs, so the run must not take over anything
 * already on it, and must leave it as it found it. Each server kind says
 * what its lock code writes, asks the server whether any of it is there,
 * and takes away what the run wrote.
 */
export interface Footprint {
  /** The store node, as the scenario names it. */
  readonly node: string;
  readonly url: string;
  /** What of it is on the server already, each in the words the refusal shows ('"job"', 'the znode /job'); empty when the run may start. */
  inTheWay(): Promise<string[]>;
  /** What the user can do about what was found, each a way out, for the refusal. */
  remedies(found: readonly string[]): string[];
  /** Takes away what the run wrote; a server that cannot be reached by now is left as it is. */
  remove(): Promise<void>;
}

/** Where a store spec sits in the scenario, for the `--set` a remedy suggests. */
interface Leaf {
  readonly spec: StoreSpecBase;
  readonly path: string;
}

function leavesOf(spec: StoreSpecBase, path: string): Leaf[] {
  if (spec.kind === 'combined') return (spec.stores as StoreSpecBase[]).flatMap((s, i) => leavesOf(s, `${path}.stores[${i}]`));
  return [{ spec, path }];
}

function quoted(s: string): string {
  return JSON.stringify(s);
}

/** The way out that keeps the server's data: another key for the run's locks, through the store's prefix when it has one Locklab's clients use. */
function otherKeys(leaf: Leaf, library: ClientLibrary): string {
  // Symfony's stores are given the resource alone: a prefix the scenario sets is not in the key they write.
  if (library === 'node' && typeof leaf.spec.keyPrefix === 'string') return `another key prefix (--set ${leaf.path}.keyPrefix=locklab:)`;
  return "another key (--set 'clients[*].key=locklab-job')";
}

/** `delete it`, or `delete them`, as many things as were found, with how when it helps. */
function deleteThem(found: readonly string[], how = ''): string {
  return `delete ${found.length === 1 ? 'it' : 'them'}${how === '' ? '' : ` (${how})`}`;
}

/** Runs `f` on a server, and gives up quietly when it cannot: clean-up must not turn a run into a failure. */
async function quietly(f: () => Promise<void>): Promise<void> {
  try {
    await f();
  } catch {
    // Unreachable now (stopped, or a fault left it down): nothing more to do for it.
  }
}

/** The lock keys of every client, as a store's driver writes them: Locklab's clients put the store's prefix before the key, Symfony's do not. */
function lockKeys(scenario: Scenario, leaf: Leaf, library: ClientLibrary): string[] {
  const prefix = library === 'node' && typeof leaf.spec.keyPrefix === 'string' ? leaf.spec.keyPrefix : '';
  return [...new Set(scenario.clients.map((c) => `${prefix}${c.key}`))];
}

function redis(node: string, url: string, keys: readonly string[], remedy: string): Footprint {
  const withRedis = async (within: number, f: (r: ReturnType<typeof lockRedis>) => Promise<void>): Promise<void> => {
    const r = lockRedis(url);
    try {
      await connectWithin(node, url, within, () => r.connect());
      await f(r);
    } finally {
      r.disconnect();
    }
  };
  return {
    node,
    url,
    remedies: (found) => [deleteThem(found), 'give a database you can spare (redis://host:port/15)', remedy],
    async inTheWay() {
      const found: string[] = [];
      await withRedis(REACH_MS, async (r) => {
        for (const k of keys) if ((await r.exists(k)) === 1) found.push(quoted(k));
      });
      return found;
    },
    remove: () => quietly(() => withRedis(2_000, async (r) => void (await r.del(...keys)))),
  };
}

function memcached(node: string, url: string, keys: readonly string[], remedy: string): Footprint {
  const location = url.replace(/^memcached:\/\//, '');
  const withClient = async (f: (c: ReturnType<typeof memcachedClient>) => Promise<void>): Promise<void> => {
    const c = memcachedClient(location);
    try {
      await connectWithin(node, url, REACH_MS, () => mc((cb) => c.version(cb as never)));
      await f(c);
    } finally {
      c.end();
    }
  };
  return {
    node,
    url,
    remedies: (found) => [deleteThem(found), remedy],
    async inTheWay() {
      const found: string[] = [];
      await withClient(async (c) => {
        for (const k of keys) if ((await mc<unknown>((cb) => c.get(k, cb))) !== undefined) found.push(quoted(k));
      });
      return found;
    },
    remove: () =>
      quietly(() =>
        withClient(async (c) => {
          for (const k of keys) await mc<boolean>((cb) => c.del(k, cb)).catch(() => false);
        }),
      ),
  };
}

/**
 * etcd: each client's key under `KEY/` (the lease's id after the slash, as
 * the concurrency package's mutex writes it), and the key that moves the
 * revision on to `revisionStart` when the server's revision is short of it.
 * The clean-up revokes the leases of the keys left (a client killed keeps its
 * lease alive until its TTL runs out) and deletes every key written.
 */
function etcd(node: string, url: string, keys: readonly string[], revisionStart: number, remedy: string): Footprint {
  let writesRevisionKey = false;
  const withClient = async (f: (c: ReturnType<typeof etcdClient>) => Promise<void>): Promise<void> => {
    const c = etcdClient(url);
    try {
      // Bounded here, so that the client is closed even when the server takes the connection and never answers: its call would keep the process alive.
      await connectWithin(node, url, REACH_MS, () => f(c));
    } finally {
      c.close();
    }
  };
  return {
    node,
    url,
    remedies: (found) => [deleteThem(found, keys.map((k) => `etcdctl del --prefix ${k}/`).join('; ')), remedy],
    async inTheWay() {
      const found: string[] = [];
      await withClient(async (c) => {
        for (const k of keys) {
          const under = await c.getAll().prefix(`${k}/`).limit(3).keys();
          found.push(...under.map(quoted));
        }
        const probe = await c.get(ETCD_REVISION_KEY).exec();
        writesRevisionKey = Number(probe.header.revision) < revisionStart - 1;
        if (writesRevisionKey && probe.kvs.length > 0) found.push(quoted(ETCD_REVISION_KEY));
      });
      return found;
    },
    remove: () =>
      quietly(() =>
        withClient(async (c) => {
          for (const k of keys) {
            const left = (await c.getAll().prefix(`${k}/`).exec()).kvs;
            for (const lease of new Set(left.map((kv) => kv.lease).filter((l) => l !== '0'))) {
              await c.leaseClient.leaseRevoke({ ID: lease }).catch(() => undefined);
            }
            await c.delete().prefix(`${k}/`).exec();
          }
          if (writesRevisionKey) await c.delete().key(ETCD_REVISION_KEY).exec();
        }),
      ),
  };
}

function zkCall<T>(f: (cb: (err: unknown, result: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => f((err, result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(result))));
}

function zkCode(err: unknown): number | undefined {
  return typeof (err as { getCode?: () => number })?.getCode === 'function' ? (err as { getCode(): number }).getCode() : undefined;
}

/**
 * ZooKeeper: the node each key is written at (the plain store's ephemeral
 * node, or the recipe's persistent parent of sequential children). The
 * clean-up deletes the children left (those of a killed client outlive it
 * until its session times out) and then the node.
 */
function zookeeperFootprint(node: string, url: string, keys: readonly string[], remedy: string): Footprint {
  const paths = [...new Set(keys.map(znodeOf))];
  const withSession = async (f: (c: zookeeper.Client) => Promise<void>): Promise<void> => {
    let c: zookeeper.Client | undefined;
    await connectWithin(node, url, REACH_MS + 1_000, async () => (c = await zkSession(url, 10_000, REACH_MS)));
    try {
      await f(c!);
    } finally {
      c!.close();
    }
  };
  const ignoreNoNode = (err: unknown): void => {
    if (zkCode(err) !== zookeeper.Exception.NO_NODE) throw err;
  };
  return {
    node,
    url,
    remedies: (found) => [deleteThem(found, `${paths.map((p) => `deleteall ${p}`).join('; ')} in zkCli.sh`), remedy],
    async inTheWay() {
      const found: string[] = [];
      await withSession(async (c) => {
        for (const p of paths) if ((await zkCall<unknown>((cb) => c.exists(p, cb as never))) != null) found.push(`the znode ${p}`);
      });
      return found;
    },
    remove: () =>
      quietly(() =>
        withSession(async (c) => {
          for (const p of paths) {
            const children = await zkCall<string[]>((cb) => c.getChildren(p, cb as never)).catch((err: unknown) => (ignoreNoNode(err), [] as string[]));
            for (const child of children) await zkCall<void>((cb) => c.remove(`${p}/${child}`, cb as never)).catch(ignoreNoNode);
            await zkCall<void>((cb) => c.remove(p, cb as never)).catch(ignoreNoNode);
          }
        }),
      ),
  };
}

async function withPg(node: string, url: string, f: (c: pg.Client) => Promise<void>): Promise<void> {
  let c: pg.Client | undefined;
  await connectWithin(node, url, REACH_MS, async () => (c = await pgConnect(url, 'locklab-footprint')));
  try {
    await f(c!);
  } finally {
    await c!.end().catch(() => undefined);
  }
}

/**
 * PostgreSQL advisory locks: each key's crc32, in the URL's database. A
 * session already holding one would refuse every acquire. What the run takes
 * goes with its clients' sessions; a backend of a killed client the server
 * has not yet noticed is ended, so that none of the run's locks outlives it.
 */
function advisory(node: string, url: string, keys: readonly string[], clients: readonly string[], remedy: string): Footprint {
  const ids = keys.map((k) => crc32(k));
  const held = async (c: pg.Client): Promise<Array<{ id: string; pid: number; app: string | null }>> =>
    (
      await c.query<{ id: string; pid: number; app: string | null }>(
        `SELECT l.objid::text AS id, l.pid, a.application_name AS app
           FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objsubid = 1 AND l.objid = ANY($1::oid[])
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [ids.map(String)],
      )
    ).rows;
  return {
    node,
    url,
    remedies: (found) => [
      found.length === 1 ? 'end the session that holds it' : 'end the sessions that hold them',
      'give a database you can spare (advisory locks are per database: postgres://USER@HOST:PORT/OTHERDB)',
      remedy,
    ],
    async inTheWay() {
      const found: string[] = [];
      await withPg(node, url, async (c) => {
        for (const row of await held(c)) {
          const key = keys[ids.indexOf(Number(row.id))]!;
          found.push(`advisory lock ${row.id} (the crc32 of ${quoted(key)}), taken by backend ${row.pid}${row.app ? ` (${quoted(row.app)})` : ''}`);
        }
      });
      return found;
    },
    remove: () =>
      quietly(() =>
        withPg(node, url, async (c) => {
          for (const row of await held(c)) if (row.app !== null && clients.includes(row.app)) await c.query('SELECT pg_terminate_backend($1)', [row.pid]);
        }),
      ),
  };
}

/**
 * The PdoStore lock table, `lock_keys`, in the URL's database: a row per key
 * (the key itself for Locklab's clients, its SHA-256 for Symfony's). A table
 * the run creates is dropped after it; in a table already there, the run's
 * rows are deleted and the rest is left alone.
 */
function lockTable(node: string, url: string, ids: readonly string[], names: ReadonlyMap<string, string>, remedy: string): Footprint {
  let existed = true;
  return {
    node,
    url,
    remedies: (found) => [deleteThem(found), 'give a database you can spare (postgres://USER@HOST:PORT/OTHERDB)', remedy],
    async inTheWay() {
      const found: string[] = [];
      await withPg(node, url, async (c) => {
        existed = (await c.query<{ there: boolean }>("SELECT to_regclass('lock_keys') IS NOT NULL AS there")).rows[0]?.there === true;
        if (!existed) return;
        const rows = await c.query<{ key_id: string }>('SELECT key_id FROM lock_keys WHERE key_id = ANY($1::text[])', [ids]).catch((err: Error) => {
          throw new Error(`${node} at ${url} has a table lock_keys that is not a PdoStore lock table (${err.message}): give a database you can spare`, {
            cause: err,
          });
        });
        for (const r of rows.rows) found.push(`the row ${quoted(r.key_id)}${names.has(r.key_id) ? ` (${names.get(r.key_id)!})` : ''} in table lock_keys`);
      });
      return found;
    },
    remove: () =>
      quietly(() =>
        withPg(node, url, async (c) => {
          if (existed) await c.query('DELETE FROM lock_keys WHERE key_id = ANY($1::text[])', [ids]);
          else await c.query('DROP TABLE IF EXISTS lock_keys');
        }),
      ),
  };
}

function footprintOf(scenario: Scenario, leaf: Leaf, urls: ReadonlyMap<string, string>, library: ClientLibrary): Footprint[] {
  const spec = leaf.spec;
  const keys = lockKeys(scenario, leaf, library);
  const remedy = otherKeys(leaf, library);
  const url = urls.get(spec.name)!;
  switch (spec.kind) {
    case 'redis':
      // Locklab's clients keep a fencing counter beside the key; a fencingTokenStart sets it before the run, whichever the clients.
      return [redis(spec.name, url, [...keys, ...lockKeys(scenario, leaf, 'node').map(fenceKey)], remedy)];
    case 'redlock':
      // node-redlock's scripts: the key alone, no counter.
      return (spec.nodes as Array<{ name: string }>).map((n) => redis(n.name, urls.get(n.name)!, keys, remedy));
    case 'memcached':
      return [memcached(spec.name, url, keys, remedy)];
    case 'etcd':
      return [etcd(spec.name, url, keys, Number(spec.revisionStart ?? 1), remedy)];
    case 'zookeeper':
    case 'zookeeper-recipe':
      return [zookeeperFootprint(spec.name, url, keys, remedy)];
    case 'postgres':
      return [
        advisory(
          spec.name,
          url,
          keys,
          scenario.clients.map((c) => c.name),
          remedy,
        ),
      ];
    case 'sql': {
      // Symfony's PdoStore names the row by the key's SHA-256.
      const rows = library === 'symfony' ? keys.map((k) => [createHash('sha256').update(k).digest('hex'), `the SHA-256 of ${quoted(k)}`] as const) : [];
      return [lockTable(spec.name, url, library === 'symfony' ? rows.map(([id]) => id) : keys, new Map(rows), remedy)];
    }
    default:
      return [];
  }
}

/** What the run writes on each server the user named, node by node. */
export function footprintsOf(scenario: Scenario, urls: ReadonlyMap<string, string>, library: ClientLibrary): Footprint[] {
  return leavesOf(scenario.store, 'store').flatMap((leaf) => footprintOf(scenario, leaf, urls, library));
}

/**
 * Refuses to start when anything the run would write is on a server already
 * (a key named as the lock would refuse every acquire, its fencing counter
 * would be reset, a row would be taken over), naming the node, its URL, what
 * is there and what to do.
 */
export async function checkFootprintsFree(footprints: readonly Footprint[]): Promise<void> {
  for (const f of footprints) {
    let found: string[] = [];
    // Asked before any adapter connects (a lock table's opens by creating the table): a wrong URL is told here, naming the node.
    await connectWithin(f.node, f.url, REACH_MS + 2_000, async () => (found = await f.inTheWay()));
    if (found.length === 0) continue;
    const ways = f.remedies(found);
    throw new Error(
      `${f.node} at ${f.url} already holds ${found.join(' and ')}, which the run would take over: ${ways.slice(0, -1).join(', ')}, or ${ways[ways.length - 1]!}`,
    );
  }
}

/** Takes away what the run wrote on every server the user named, leaving each as the run found it. */
export async function removeFootprints(footprints: readonly Footprint[]): Promise<void> {
  await Promise.all(footprints.map((f) => f.remove()));
}
