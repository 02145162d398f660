import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import zookeeper from 'node-zookeeper-client';
import { afterAll, expect, it } from 'vitest';
import { etcdClient } from '../../sim/real/adapters/etcd.js';
import { mc, memcachedClient } from '../../sim/real/adapters/memcached.js';
import { zkSession } from '../../sim/real/adapters/zookeeper.js';
import { Harness } from '../../sim/real/harness/index.js';
import { crc32 } from '../../sim/stores/postgres.js';
import { cli } from '../support/cli.js';
import { describeReal } from './support.js';

/*
 * A server the user names (--redis URL and the like) is theirs: a run refuses
 * to start when anything it would write is there already, naming the node,
 * its URL, what is there and what to do, and changes nothing; on a clean
 * server, the run leaves it holding exactly what it held before.
 */

/** Every key memcached holds, with its value, sorted: those its crawler lists, and those the test writes (it may not list one just set). */
async function memcachedContents(url: string): Promise<string[]> {
  const [host, port] = url.replace(/^memcached:\/\//, '').split(':');
  const keys = await new Promise<string[]>((resolve, reject) => {
    const s = connect(Number(port), host!);
    let text = '';
    s.on('data', (d: Buffer) => {
      text += d.toString();
      if (/(^|\n)(END|ERROR[^\r\n]*)\r\n$/.test(text)) {
        s.end();
        resolve([...text.matchAll(/^key=(\S+)/gm)].map((m) => decodeURIComponent(m[1]!)));
      }
    });
    s.on('error', reject);
    s.write('lru_crawler metadump all\r\n');
  });
  const c = memcachedClient(`${host}:${port}`);
  try {
    const out: string[] = [];
    for (const k of new Set([...keys, 'mine', 'job', 'job:fence'])) {
      const v = await mc<unknown>((cb) => c.get(k, cb));
      if (v !== undefined) out.push(`${k}=${String(v)}`);
    }
    return out.sort();
  } finally {
    c.end();
  }
}

/** Every znode below the root but ZooKeeper's own, with its data, sorted. */
async function zookeeperContents(url: string): Promise<string[]> {
  const c = await zkSession(url, 10_000);
  const call = <T>(f: (cb: (err: unknown, r: T) => void) => void): Promise<T> =>
    new Promise((resolve, reject) => f((err, r) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(r))));
  const out: string[] = [];
  const walk = async (path: string): Promise<void> => {
    const children = await call<string[]>((cb) => c.getChildren(path, cb as never));
    for (const child of children) {
      const p = path === '/' ? `/${child}` : `${path}/${child}`;
      if (p === '/zookeeper') continue;
      const data = await call<Buffer | undefined>((cb) => c.getData(p, cb as never));
      out.push(`${p}=${data?.toString() ?? ''}`);
      await walk(p);
    }
  };
  try {
    await walk('/');
    return out.sort();
  } finally {
    c.close();
  }
}

/** Every etcd key with its value, and the leases granted. */
async function etcdContents(url: string): Promise<{ keys: string[]; leases: string[] }> {
  const c = etcdClient(url);
  try {
    const all = await c.getAll().strings();
    const leases = (await c.leaseClient.leaseLeases({})).leases.map((l) => String(l.ID));
    return { keys: Object.entries(all).map(([k, v]) => `${k}=${v}`), leases: leases.sort() };
  } finally {
    c.close();
  }
}

async function pgQuery<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** The tables of the database, the rows of lock_keys when it is there, and the advisory locks held. */
async function postgresContents(url: string): Promise<string[]> {
  const tables = await pgQuery<{ name: string }>(url, "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
  const rows = tables.some((t) => t.name === 'lock_keys')
    ? await pgQuery<{ row: string }>(url, "SELECT key_id || '=' || key_token || '@' || key_expiration AS row FROM lock_keys ORDER BY 1")
    : [];
  const locks = await pgQuery<{ lock: string }>(
    url,
    "SELECT l.objid::text || ' by ' || coalesce(a.application_name, '?') AS lock FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted ORDER BY 1",
  );
  return [...tables.map((t) => `table ${t.name}`), ...rows.map((r) => `row ${r.row}`), ...locks.map((l) => `advisory ${l.lock}`)];
}

describeReal('locklab real on servers the user names', () => {
  const h = new Harness();
  afterAll(() => h.close());

  it('on a memcached, refuses to take over the lock key and leaves the server as it found it', async () => {
    const server = await h.memcached({ name: 'theirs' });
    const c = memcachedClient(server.url.replace(/^memcached:\/\//, ''));
    try {
      await mc((cb) => c.set('mine', 'kept', 0, cb));
      await mc((cb) => c.set('job', 'their job', 0, cb));
      const before = await memcachedContents(server.url);
      expect(before).toEqual(['job=their job', 'mine=kept']);
      const taken = await cli('real', 'memcached-restart', '--memcached', server.url, '--max-time', '2000');
      expect(taken.code, taken.err).toBe(2);
      expect(taken.err).toContain(
        `memcached at ${server.url} already holds "job", which the run would take over: delete it, or another key prefix (--set store.keyPrefix=locklab:)`,
      );
      expect(await memcachedContents(server.url)).toEqual(before);
      await mc((cb) => c.del('job', cb));
      const ran = await cli('real', 'memcached-restart', '--memcached', server.url, '--max-time', '2000');
      expect(ran.code, ran.err).toBe(3);
      expect(ran.out).toMatch(/A:1/);
      expect(await memcachedContents(server.url)).toEqual(['mine=kept']);
    } finally {
      c.end();
    }
  }, 60_000);

  it('on an etcd, refuses to take over keys under the lock key, writes no revision key on a server past revisionStart, and leaves it as it found it', async () => {
    const server = await h.etcd({ name: 'theirs' });
    const c = etcdClient(server.url);
    try {
      await c.put('mine').value('kept');
      await c.put('job/theirs').value('their job');
      const before = await etcdContents(server.url);
      const revision = async (): Promise<string> => (await c.get('mine').exec()).header.revision;
      const revisionBefore = await revision();
      const taken = await cli('real', 'etcd-revision-fencing', '--etcd', server.url, '--max-time', '2000');
      expect(taken.code, taken.err).toBe(2);
      expect(taken.err).toContain(
        `etcd at ${server.url} already holds "job/theirs", which the run would take over: delete it (etcdctl del --prefix job/), or another key (--set 'clients[*].key=locklab-job')`,
      );
      expect(await etcdContents(server.url)).toEqual(before);
      expect(await revision()).toBe(revisionBefore);
      await c.delete().key('job/theirs');
      const clean = await etcdContents(server.url);
      // revisionStart 33: the run moves a fresh server's revision on by writing locklab/revision, then deletes it.
      const ran = await cli('real', 'etcd-revision-fencing', '--etcd', server.url, '--max-time', '2000');
      expect(ran.code, ran.err).toBe(3);
      expect(ran.out).toMatch(/A:1 #33/);
      expect(await etcdContents(server.url)).toEqual(clean);
      // Past revision 33 now, a second run has no revision to move: it writes no key for it, even one that is there.
      await c.put('locklab/revision').value('theirs');
      const past = await etcdContents(server.url);
      const again = await cli('real', 'etcd-revision-fencing', '--etcd', server.url, '--max-time', '2000');
      expect(again.code, again.err).toBe(3);
      expect(await etcdContents(server.url)).toEqual(past);
    } finally {
      c.close();
    }
  }, 90_000);

  it('on a ZooKeeper, refuses to take over the lock znode and leaves the tree as it found it, plain or the recipe', async () => {
    const server = await h.zookeeper({ name: 'theirs', tickMs: 2000 });
    const c = await zkSession(server.url, 10_000);
    const create = (path: string, data: string): Promise<void> =>
      new Promise((resolve, reject) => c.create(path, Buffer.from(data), zookeeper.CreateMode.PERSISTENT, (err: unknown) => (err ? reject(err) : resolve())));
    try {
      await create('/mine', 'kept');
      await create('/job', 'their job');
      const before = await zookeeperContents(server.url);
      const taken = await cli('real', 'zookeeper-session-expiry', '--zookeeper', server.url, '--max-time', '2000');
      expect(taken.code, taken.err).toBe(2);
      expect(taken.err).toContain(
        `zookeeper at ${server.url} already holds the znode /job, which the run would take over: delete it (deleteall /job in zkCli.sh), or another key (--set 'clients[*].key=locklab-job')`,
      );
      expect(await zookeeperContents(server.url)).toEqual(before);
      await new Promise<void>((resolve, reject) => c.remove('/job', (err: unknown) => (err ? reject(err) : resolve())));
      for (const kind of ['zookeeper', 'zookeeper-recipe']) {
        const ran = await cli('real', 'zookeeper-session-expiry', '--zookeeper', server.url, '--set', `store.kind=${kind}`, '--max-time', '2000');
        expect(ran.code, `${kind}: ${ran.err}`).toBe(3);
        expect(ran.out, kind).toMatch(/A:1/);
        // A is paused holding the lock when the budget runs out: its ephemeral node (and the recipe's parent) go with the run.
        expect(await zookeeperContents(server.url), kind).toEqual(['/mine=kept']);
      }
    } finally {
      c.close();
    }
  }, 90_000);

  it('on a PostgreSQL, refuses to start while another session holds the advisory lock, and leaves no lock of the run behind', async () => {
    const server = await h.postgres({ name: 'theirs' });
    const theirs = new pg.Client({ connectionString: server.url, application_name: 'their-app' });
    await theirs.connect();
    try {
      const id = crc32('job');
      await theirs.query('SELECT pg_advisory_lock($1)', [id]);
      const before = await postgresContents(server.url);
      expect(before).toEqual([`advisory ${id} by their-app`]);
      const taken = await cli('real', 'postgres-connection-loss', '--postgres', server.url, '--max-time', '2000');
      expect(taken.code, taken.err).toBe(2);
      expect(taken.err).toMatch(
        new RegExp(
          `postgres at ${server.url} already holds advisory lock ${id} \\(the crc32 of "job"\\), taken by backend \\d+ \\("their-app"\\), which the run would take over: end the session that holds it, give a database you can spare \\(advisory locks are per database: postgres://USER@HOST:PORT/OTHERDB\\), or another key`,
        ),
      );
      expect(await postgresContents(server.url)).toEqual(before);
      await theirs.query('SELECT pg_advisory_unlock($1)', [id]);
      const ran = await cli('real', 'postgres-connection-loss', '--postgres', server.url, '--max-time', '2000');
      expect(ran.code, ran.err).toBe(3);
      expect(ran.out).toMatch(/A:1/);
      expect(await postgresContents(server.url)).toEqual([]);
    } finally {
      await theirs.end();
    }
  }, 60_000);

  it('with a lock table, refuses to take over a row already in it, drops the table it created, and deletes only its own rows from one that was there', async () => {
    const server = await h.postgres({ name: 'theirs' });
    // No table yet: the run creates lock_keys and drops it again.
    const first = await cli('real', 'sql-clock-skew', '--postgres', server.url, '--max-time', '2000');
    expect(first.code, first.err).toBe(3);
    expect(first.out).toMatch(/A:1/);
    expect(await postgresContents(server.url)).toEqual([]);
    // Their own table, with the row the run would take over.
    await pgQuery(server.url, 'CREATE TABLE lock_keys (key_id VARCHAR(64) PRIMARY KEY, key_token VARCHAR(64) NOT NULL, key_expiration INTEGER NOT NULL)');
    await pgQuery(server.url, "INSERT INTO lock_keys VALUES ('mine', 'kept', 1), ('job', 'their job', 2)");
    const before = await postgresContents(server.url);
    const taken = await cli('real', 'sql-clock-skew', '--postgres', server.url, '--max-time', '2000');
    expect(taken.code, taken.err).toBe(2);
    expect(taken.err).toContain(
      `sql at ${server.url} already holds the row "job" in table lock_keys, which the run would take over: delete it, give a database you can spare (postgres://USER@HOST:PORT/OTHERDB), or another key prefix (--set store.keyPrefix=locklab:)`,
    );
    expect(await postgresContents(server.url)).toEqual(before);
    await pgQuery(server.url, "DELETE FROM lock_keys WHERE key_id = 'job'");
    const ran = await cli('real', 'sql-clock-skew', '--postgres', server.url, '--max-time', '2000');
    expect(ran.code, ran.err).toBe(3);
    expect(await postgresContents(server.url)).toEqual(['table lock_keys', 'row mine=kept@1']);
  }, 60_000);

  it("with Symfony's PdoStore, uses the database and user the URL names, refuses its row (the key's SHA-256) already there, and drops the table it created", async () => {
    const server = await h.postgres({ name: 'theirs' });
    await pgQuery(server.url, 'CREATE DATABASE theirs');
    const url = server.url.replace(/\/postgres$/, '/theirs');
    const symfony = ['--client', 'symfony', '--set', 'store.database=postgresql', '--set', 'store.clock=server', '--max-time', '3000'];
    const row = createHash('sha256').update('job').digest('hex');
    await pgQuery(url, 'CREATE TABLE lock_keys (key_id VARCHAR(64) PRIMARY KEY, key_token VARCHAR(64) NOT NULL, key_expiration INTEGER NOT NULL)');
    await pgQuery(url, 'INSERT INTO lock_keys VALUES ($1, $2, 1)', [row, 'their job']);
    const before = await postgresContents(url);
    const taken = await cli('real', 'sql-clock-skew', '--postgres', url, ...symfony);
    expect(taken.code, taken.err).toBe(2);
    expect(taken.err).toContain(
      `sql at ${url} already holds the row "${row}" (the SHA-256 of "job") in table lock_keys, which the run would take over: delete it, give a database you can spare (postgres://USER@HOST:PORT/OTHERDB), or another key (--set 'clients[*].key=locklab-job')`,
    );
    expect(await postgresContents(url)).toEqual(before);
    await pgQuery(url, 'DROP TABLE lock_keys');
    const ran = await cli('real', 'sql-clock-skew', '--postgres', url, ...symfony);
    expect(ran.code, ran.err).toBe(3);
    expect(ran.out).toMatch(/A:1/);
    // Symfony wrote to the database named, not to postgres, and the table it created there is gone.
    expect(await postgresContents(url)).toEqual([]);
    expect(await postgresContents(server.url)).toEqual([]);
  }, 60_000);

  it("completes a URL that names no user or database as psql does, and Symfony's PdoStore, the check and the clean-up all use them", async () => {
    const server = await h.postgres({ name: 'theirs' });
    // A role of the user's own, and PGUSER naming it; the database then defaults to one of that name.
    const user = 'ana';
    await pgQuery(server.url, `CREATE ROLE ${user} LOGIN`);
    await pgQuery(server.url, `CREATE DATABASE ${user} OWNER ${user}`);
    const bare = `postgres://127.0.0.1:${new URL(server.url).port}`;
    const completed = `postgres://${user}@127.0.0.1:${new URL(server.url).port}/${user}`;
    const row = createHash('sha256').update('job').digest('hex');
    await pgQuery(completed, 'CREATE TABLE lock_keys (key_id VARCHAR(64) PRIMARY KEY, key_token VARCHAR(64) NOT NULL, key_expiration INTEGER NOT NULL)');
    await pgQuery(completed, 'INSERT INTO lock_keys VALUES ($1, $2, 1)', [row, 'their job']);
    const symfony = ['--client', 'symfony', '--set', 'store.database=postgresql', '--set', 'store.clock=server', '--max-time', '3000'];
    const saved = { PGUSER: process.env.PGUSER, PGDATABASE: process.env.PGDATABASE };
    process.env.PGUSER = user;
    delete process.env.PGDATABASE;
    try {
      // The check looks in the completed database, and says which one.
      const taken = await cli('real', 'sql-clock-skew', '--postgres', bare, ...symfony);
      expect(taken.code, taken.err).toBe(2);
      expect(taken.err).toContain(`sql at ${completed} already holds the row "${row}"`);
      await pgQuery(completed, 'DROP TABLE lock_keys');
      // Symfony connects as that user to that database (it used to take the user postgres and its database), and its table is gone after.
      const ran = await cli('real', 'sql-clock-skew', '--postgres', bare, ...symfony);
      expect(ran.code, ran.err).toBe(3);
      expect(ran.out).toMatch(/A:1/);
      expect(await postgresContents(completed)).toEqual([]);
      expect(await postgresContents(server.url)).toEqual([]);
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  }, 60_000);

  it('on the Redis nodes of Redlock and of a Combined store, refuses a key on any node, naming it, and leaves every node as it found it', async () => {
    const nodes = await h.redisNodes(5, { name: 'theirs' });
    const clients = nodes.map((n) => new Redis(n.url, { lazyConnect: true }));
    await Promise.all(clients.map((r) => r.connect()));
    const contents = (): Promise<string[][]> => Promise.all(clients.map(async (r) => (await r.keys('*')).sort()));
    const urls = (n: number): string[] => nodes.slice(0, n).flatMap((s) => ['--redis', s.url]);
    try {
      await clients[0]!.set('mine', 'kept');
      await clients[2]!.set('job', 'their job');
      const before = await contents();
      const redlock = await cli('real', 'redlock-restart-without-delay', ...urls(5), '--max-time', '2000');
      expect(redlock.code, redlock.err).toBe(2);
      expect(redlock.err).toContain(`C at ${nodes[2]!.url} already holds "job", which the run would take over: delete it, give a database you can spare`);
      expect(await contents()).toEqual(before);
      // A Combined store's Redis keeps a fencing counter beside the key.
      await clients[2]!.rename('job', 'job:fence');
      const combined = await cli('real', 'combined-unanimous-node-down', ...urls(3), '--max-time', '2000');
      expect(combined.code, combined.err).toBe(2);
      expect(combined.err).toContain(
        `r3 at ${nodes[2]!.url} already holds "job:fence", which the run would take over: delete it, give a database you can spare (redis://host:port/15), or another key prefix (--set store.stores[2].keyPrefix=locklab:)`,
      );
      await clients[2]!.del('job:fence');
      for (const [scenario, n] of [
        ['redlock-restart-without-delay', 5],
        ['combined-unanimous-node-down', 3],
      ] as const) {
        const ran = await cli('real', scenario, ...urls(n), '--max-time', '2000');
        expect(ran.code, `${scenario}: ${ran.err}`).toBe(3);
        expect(await contents(), scenario).toEqual([['mine'], [], [], [], []]);
      }
    } finally {
      for (const r of clients) r.disconnect();
    }
  }, 90_000);
});
