import { Redis } from 'ioredis';
import Redlock from 'redlock';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Harness, type RedisServer } from '../../sim/real/harness/index.js';
import { runInProcess } from '../../sim/real/in-process.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { describeReal } from './support.js';

/** One client taking a lock on three Redis servers, once, by Redlock or by a Combined store. */
function scenario(store: Record<string, unknown>, key: string): Scenario {
  return normalizeScenario(
    {
      name: `quorum-${key}`,
      machines: [{ name: 'app1' }, { name: 'db1' }, { name: 'db2' }, { name: 'db3' }],
      store,
      resource: { machine: 'db1', fencing: false },
      clients: [{ name: 'A', machine: 'app1', key, ttlMs: 2000, workMs: 200, requestTimeoutMs: 200, acquire: { mode: 'try', retries: 0 } }],
    },
    'quorum test',
  );
}

const redlockStore = (retryCount = 0): Record<string, unknown> => ({
  kind: 'redlock',
  retryCount,
  nodes: [
    { name: 'n1', machine: 'db1' },
    { name: 'n2', machine: 'db2' },
    { name: 'n3', machine: 'db3' },
  ],
});

describeReal('Redlock and Combined on three real Redis servers', () => {
  const h = new Harness();
  let servers: RedisServer[];
  let clients: Redis[];
  let redlock: Redlock;
  const urls = (): Map<string, string> => new Map(servers.map((s, i) => [`n${i + 1}`, s.url]));
  const combinedUrls = (): Map<string, string> => new Map(servers.map((s, i) => [`r${i + 1}`, s.url]));

  beforeAll(async () => {
    servers = await h.redisNodes(3);
    clients = servers.map((s) => new Redis(s.url, { maxRetriesPerRequest: 0, retryStrategy: () => 50 }).on('error', () => undefined));
    redlock = new Redlock(clients, { retryCount: 0 });
    redlock.on('clientError', () => undefined);
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await h.close();
  });

  it('our Redlock driver takes the lock on all three servers and releases it everywhere', async () => {
    const { events, verdict } = await runInProcess(scenario(redlockStore(), 'q1'), urls());
    const granted = events.filter((e) => e.kind === 'lock.granted').map((e) => e.actor);
    expect(granted.sort()).toEqual(['n1', 'n2', 'n3']);
    expect(events.filter((e) => e.kind === 'lock.released')).toHaveLength(3);
    expect(events.map((e) => e.kind)).toContain('release.ok');
    expect(verdict.outcome).toBe('safe');
  });

  it('the redlock package and our driver exclude each other on the same servers, both ways', async () => {
    const theirs = await redlock.lock('q2', 3000);
    const denied = await runInProcess(scenario(redlockStore(), 'q2'), urls());
    expect(denied.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['quorum.missed', 'acquire.giveup']));
    expect(denied.events.some((e) => e.kind === 'acquire.ok')).toBe(false);
    await theirs.unlock();

    // While our client holds the lock (200 ms of work), the package cannot take it.
    const ours = runInProcess({ ...scenario(redlockStore(), 'q3'), clients: [{ ...scenario(redlockStore(), 'q3').clients[0]!, workMs: 1000 }] }, urls());
    await new Promise((r) => setTimeout(r, 300));
    await expect(redlock.lock('q3', 1000)).rejects.toThrow();
    expect((await ours).events.map((e) => e.kind)).toContain('acquire.ok');
  });

  it('with one of three servers down both still reach a majority; with two down neither does', async () => {
    await servers[2]!.kill();
    try {
      // A few rounds, as node-redlock retries: one slow reply on a busy machine must not decide it.
      const oneDown = await runInProcess(scenario(redlockStore(3), 'q4'), urls(), { downAllowed: true });
      expect(oneDown.events.map((e) => e.kind)).toContain('acquire.ok');
      const theirs = await redlock.lock('q5', 1000);
      await theirs.unlock();

      await servers[1]!.kill();
      const twoDown = await runInProcess(scenario(redlockStore(), 'q6'), urls(), { downAllowed: true });
      expect(twoDown.events.some((e) => e.kind === 'acquire.ok')).toBe(false);
      expect(twoDown.events.find((e) => e.kind === 'quorum.missed')?.data?.granted).toBe(1);
      await expect(redlock.lock('q7', 1000)).rejects.toThrow();
    } finally {
      await servers[1]!.start();
      await servers[2]!.start();
    }
  });

  it('a unanimous Combined store with one server down never holds the lock; a consensus one does', async () => {
    const combined = (strategy: string): Record<string, unknown> => ({
      kind: 'combined',
      strategy,
      stores: [
        { kind: 'redis', name: 'r1', machine: 'db1' },
        { kind: 'redis', name: 'r2', machine: 'db2' },
        { kind: 'redis', name: 'r3', machine: 'db3' },
      ],
    });
    await servers[1]!.kill();
    try {
      const unanimous = await runInProcess(scenario(combined('unanimous'), 'c1'), combinedUrls(), { downAllowed: true });
      expect(unanimous.events.some((e) => e.kind === 'acquire.ok')).toBe(false);
      // Symfony deletes the key from every store after a failed attempt.
      expect(await clients[0]!.exists('c1')).toBe(0);
      const consensus = await runInProcess(scenario(combined('consensus'), 'c2'), combinedUrls(), { downAllowed: true });
      expect(consensus.events.map((e) => e.kind)).toContain('acquire.ok');
      expect(consensus.verdict.outcome).toBe('safe');
    } finally {
      await servers[1]!.start();
    }
  });
});
