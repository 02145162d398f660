import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides, parseOverride } from '../../sim/scenario/set.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { Harness, type MemcachedServer, type PostgresServer, type RedisServer } from '../../sim/real/harness/index.js';
import { pgConnect } from '../../sim/real/adapters/postgres.js';
import { PhpDriver } from '../../sim/real/symfony/php.js';
import { one, runSteps, S } from '../support/steps-harness.js';
import { describeReal } from './support.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describeReal('the PHP driver runs the real Symfony Lock 5.4', () => {
  const h = new Harness();
  const drivers: PhpDriver[] = [];
  let redis: RedisServer;
  let memcached: MemcachedServer;
  let postgres: PostgresServer;

  async function driver(store: Parameters<PhpDriver['open']>[0], client: string, resource = 'job'): Promise<PhpDriver> {
    const d = new PhpDriver();
    drivers.push(d);
    await d.open(store, resource, client);
    return d;
  }

  beforeAll(async () => {
    [redis, memcached, postgres] = await Promise.all([h.redis(), h.memcached(), h.postgres()]);
  });
  afterAll(async () => {
    await Promise.all(drivers.map((d) => d.close()));
    await h.close();
  });

  it('acquires, reports isAcquired and the remaining lifetime, refreshes and releases, with our owner as the token on the server', async () => {
    const a = await driver({ kind: 'redis', url: redis.url }, 'A', 's1');
    expect(await a.step('acquire', 'A:1', { ttl: 5, blocking: false })).toMatchObject({ ok: true, result: true, isAcquired: true });
    const left = await a.step('getRemainingLifetime', 'A:1');
    expect(left.result as number).toBeGreaterThan(4);
    expect(left.result as number).toBeLessThanOrEqual(5);
    expect(await a.step('refresh', 'A:1', { ttl: 20 })).toMatchObject({ ok: true });
    expect((await a.step('getRemainingLifetime', 'A:1')).result as number).toBeGreaterThan(19);
    const b = await driver({ kind: 'redis', url: redis.url }, 'B', 's1');
    expect(await b.step('acquire', 'B:1', { ttl: 5, blocking: false })).toMatchObject({ ok: true, result: false });
    expect(await a.step('release', 'A:1')).toMatchObject({ ok: true, isAcquired: false });
    expect(await b.step('acquire', 'B:2', { ttl: 5, blocking: false })).toMatchObject({ ok: true, result: true });
  });

  it("reports Symfony's exceptions: a refresh of a Redis lock someone else took throws LockConflictedException", async () => {
    const a = await driver({ kind: 'redis', url: redis.url }, 'A', 's2');
    await a.step('acquire', 'A:1', { ttl: 0.3, blocking: false });
    await sleep(500);
    const b = await driver({ kind: 'redis', url: redis.url }, 'B', 's2');
    expect(await b.step('acquire', 'B:1', { ttl: 10, blocking: false })).toMatchObject({ result: true });
    const refresh = await a.step('refresh', 'A:1', { ttl: 10 });
    expect(refresh.ok).toBe(false);
    expect(refresh.exception?.class).toBe('Symfony\\Component\\Lock\\Exception\\LockConflictedException');
    // The late release returns quietly and leaves B's lock alone.
    expect(await a.step('release', 'A:1')).toMatchObject({ ok: true, isAcquired: false });
    expect(await b.step('isAcquired', 'B:1')).toMatchObject({ ok: true, result: true });
  });

  it('refuses a memcached TTL under one second: InvalidTtlException, after the key was written with the initial 300 s', async () => {
    const a = await driver({ kind: 'memcached', url: memcached.url }, 'A', 's3');
    const r = await a.step('acquire', 'A:1', { ttl: 0.5, blocking: false });
    expect(r.ok).toBe(false);
    expect(`${r.exception?.class} ${r.exception?.message} ${r.exception?.previous ?? ''}`).toMatch(/InvalidTtlException/);
    // With autoRelease off the key stays behind, held by A for the initial TTL.
    const b = await driver({ kind: 'memcached', url: memcached.url }, 'B', 's3');
    expect(await b.step('acquire', 'B:1', { ttl: 5, blocking: false })).toMatchObject({ ok: true, result: false });
  });

  it("PostgreSqlStore: a blocking acquire waits in pg_advisory_lock until the holder's session ends", async () => {
    const a = await driver({ kind: 'postgres', url: postgres.url }, 'pgA', 's4');
    const b = await driver({ kind: 'postgres', url: postgres.url }, 'pgB', 's4');
    expect(await a.step('acquire', 'A:1', { ttl: 300, blocking: false })).toMatchObject({ result: true });
    const t0 = Date.now();
    const waiting = b.step('acquire', 'B:1', { ttl: 300, blocking: true });
    await sleep(300);
    const backend = (await postgres.backends()).find((x) => x.application === 'pgA');
    await postgres.terminateBackend(backend!.pid);
    expect(await waiting).toMatchObject({ ok: true, result: true });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    // A's store keeps its dead connection: every later call throws.
    const release = await a.step('release', 'A:1');
    expect(release.ok).toBe(false);
    expect(release.exception?.previous).toMatch(/PDOException/);
  });

  it('a Combined consensus store over three Redis servers holds with one of them down', async () => {
    const nodes = await h.redisNodes(3, { name: 'c' });
    await nodes[2]!.kill();
    const a = await driver({ kind: 'combined', strategy: 'consensus', stores: nodes.map((n) => ({ kind: 'redis' as const, url: n.url })) }, 'A', 's5').catch(
      (err: Error) => err,
    );
    // phpredis cannot connect to the stopped server: Symfony is handed no store for it.
    expect(a).toBeInstanceOf(Error);
    await nodes[2]!.start();
    const ok = await driver({ kind: 'combined', strategy: 'consensus', stores: nodes.map((n) => ({ kind: 'redis' as const, url: n.url })) }, 'A', 's5');
    await nodes[2]!.kill();
    expect(await ok.step('acquire', 'A:1', { ttl: 5, blocking: false })).toMatchObject({ ok: true, result: true });
  });

  it("PdoStore on PostgreSQL rounds the server's now to the nearest second, as the model's sql store with database postgresql does", async () => {
    const pg = await pgConnect(postgres.url, 'round-probe');
    try {
      const serverS = async (): Promise<number> => Number((await pg.query<{ t: string }>('SELECT EXTRACT(epoch FROM clock_timestamp()) AS t')).rows[0]!.t);
      const a = await driver({ kind: 'sql', url: postgres.url }, 'A', 's7');
      // Wait (at most 3 s) for a moment late in a second, so the whole acquire lies where rounding and truncation part.
      let before = await serverS();
      for (let i = 0; i < 60 && !(before % 1 >= 0.55 && before % 1 < 0.75); i++) {
        await sleep(50);
        before = await serverS();
      }
      expect(before % 1).toBeGreaterThanOrEqual(0.55);
      expect(await a.step('acquire', 'round:1', { ttl: 2, blocking: false })).toMatchObject({ ok: true, result: true });
      const after = await serverS();
      expect(Math.floor(after)).toBe(Math.floor(before));
      const row = await pg.query<{ key_expiration: number }>('SELECT key_expiration FROM lock_keys WHERE key_token = $1', ['round:1']);
      // MySQL's UNIX_TIMESTAMP() would give floor + 2; PostgreSQL's CAST(EXTRACT(epoch FROM NOW()) AS INT) gives round + 2.
      expect(row.rows[0]!.key_expiration).toBe(Math.round(before) + 2);
      expect(row.rows[0]!.key_expiration).toBe(Math.floor(before) + 3);
      // The model, granting the same 2 s lease at the same point of a second (10 s + the fraction), ends it half a second early too.
      const fracMs = Math.round((before % 1) * 1000);
      const sim = runSteps({ kind: 'sql', machine: 'db', database: 'postgresql' }, [
        { name: 'A', startMs: 10_000 + fracMs, ttlMs: 2000, autoRelease: false, steps: [S.acquire()] },
      ]);
      expect(one(sim, 'lock.expired').timeUs).toBeGreaterThanOrEqual((Math.round(10 + fracMs / 1000) + 2) * 1_000_000 - 500_000);
      expect(one(sim, 'lock.expired').timeUs).toBeLessThan(13_000_000);
    } finally {
      await pg.end();
    }
  });

  it("Symfony's own destructor, in a child made by a real pcntl_fork(), releases the parent's lock on a normal exit when autoRelease is on, as the model's child does; off, the key stays", async () => {
    const { hostname, port } = new URL(redis.url);
    const fixture = new URL('./fixtures/fork-destructor.php', import.meta.url).pathname;
    const real = (mode: string) => {
      const r = spawnSync('php', [fixture, hostname, port, `fork-${mode}`, mode], { encoding: 'utf8', timeout: 20_000 });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { keyBeforeFork: boolean; keyAfterChildExit: boolean; childExit: number; parentIsAcquired: boolean };
    };
    /** In the model's auto-release-fork: whether the forked child released A's lock on the store before A's own release. */
    const simulated = (sets: string[]) => {
      const s = applyOverrides(normalizeScenario(BUILTIN_SCENARIOS['auto-release-fork'], 'auto-release-fork'), sets.map(parseOverride));
      const events = runScenario(s, s.seed).events;
      const child = events.find((e) => e.kind === 'process.fork')!.data!.child as string;
      const ownRelease = events.findIndex((e) => e.actor === 'A' && e.kind === 'release.request');
      const byChild = events.findIndex((e) => e.actor === child && e.kind === 'release.ok' && e.owner === 'A:1');
      return byChild !== -1 && (ownRelease === -1 || byChild < ownRelease);
    };
    expect(real('auto-release')).toEqual({ keyBeforeFork: true, keyAfterChildExit: false, childExit: 0, parentIsAcquired: false });
    expect(simulated([])).toBe(true);
    expect(real('no-auto-release')).toEqual({ keyBeforeFork: true, keyAfterChildExit: true, childExit: 0, parentIsAcquired: true });
    expect(simulated(['clients.A.autoRelease=false'])).toBe(false);
  });

  it('answers a malformed line with an error, not silence', async () => {
    const d = await driver({ kind: 'redis', url: redis.url }, 'A', 's6');
    expect(await d.step('no-such-step', 'A:1')).toMatchObject({ ok: false, exception: { class: 'LogicException' } });
  });
});
