import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import zookeeper from 'node-zookeeper-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findBinary, MissingBinaryError } from '../../sim/real/harness/binaries.js';
import { ask } from '../../sim/real/harness/ports.js';
import { ensembleUrl, Harness, janitor, type PostgresServer } from '../../sim/real/harness/index.js';
import { alive, describeReal, eventually } from './support.js';

const root = new URL('../..', import.meta.url).pathname;

/** Runs the fixture that holds one Redis, and resolves with the pid and directory it reports. */
function holdServer(): Promise<{ child: ReturnType<typeof spawn>; pid: number; dir: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/real/fixtures/hold-server.ts')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (d: Buffer) => {
      text += d.toString();
      const line = text.split('\n')[0];
      if (text.includes('\n') && line !== undefined) {
        const { pid, log } = JSON.parse(line) as { pid: number; log: string };
        resolve({ child, pid, dir: dirname(log) });
      }
    });
    child.on('exit', (code) => reject(new Error(`the fixture exited early (${code})`)));
  });
}

it('names the Debian package of a missing server program in one line', () => {
  let err: unknown;
  try {
    findBinary('locklab-no-such-server', 'locklab-server-package');
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(MissingBinaryError);
  expect((err as Error).message).toBe(
    "locklab-no-such-server was not found: install Debian's locklab-server-package package (apt-get install locklab-server-package)",
  );
  expect((err as Error).message).not.toContain('\n');
});

describeReal('the server harness', () => {
  const h = new Harness();
  let postgres: PostgresServer;

  beforeAll(async () => {
    postgres = await h.postgres({ clock: true });
  });
  afterAll(() => h.close());

  it('starts Redis, memcached and etcd on loopback ports and leaves no process or directory behind', async () => {
    const local = new Harness();
    const servers = [await local.redis(), await local.memcached(), await local.etcd()];
    const pids = servers.map((s) => s.pid!);
    const dirs = servers.map((s) => dirname(s.logFile));
    expect(servers.map((s) => s.url)).toEqual([
      expect.stringMatching(/^redis:\/\/127\.0\.0\.1:\d+$/),
      expect.stringMatching(/^memcached:\/\/127\.0\.0\.1:\d+$/),
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    ]);
    expect(pids.every(alive)).toBe(true);
    await local.close();
    expect(await eventually(() => !pids.some(alive))).toBe(true);
    expect(dirs.filter(existsSync)).toEqual([]);
  });

  it('pauses a server with SIGSTOP, so it stops answering, and resumes it with SIGCONT', async () => {
    const redis = await h.redis({ name: 'paused' });
    redis.pause();
    expect(await ask(Number(new URL(redis.url).port), 'PING\r\n', 300)).toBe('');
    redis.resume();
    expect(await ask(Number(new URL(redis.url).port), 'PING\r\n', 1_000)).toMatch(/^\+PONG/);
  });

  it('restarts a killed server on the same port', async () => {
    const redis = await h.redis({ name: 'restarted' });
    const port = Number(new URL(redis.url).port);
    const before = redis.pid;
    await redis.restart(100);
    expect(redis.pid).not.toBe(before);
    expect(await ask(port, 'PING\r\n', 1_000)).toMatch(/^\+PONG/);
  });

  it('cleans up after a process that is killed outright: its reaper stops the server and removes the directory', async () => {
    const { child, pid, dir } = await holdServer();
    expect(alive(pid)).toBe(true);
    child.kill('SIGKILL');
    expect(await eventually(() => !alive(pid), 5_000)).toBe(true);
    expect(await eventually(() => !existsSync(dir), 5_000)).toBe(true);
  });

  it('cleans up on SIGTERM as on Ctrl-C', async () => {
    const { child, pid, dir } = await holdServer();
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    // Killed and removed before the process exited; the kernel may take a moment to reap the server.
    expect(existsSync(dir)).toBe(false);
    expect(await eventually(() => !alive(pid), 2_000)).toBe(true);
  });

  it('runs PostgreSQL as an unprivileged user and ends one backend as a lost connection would', async () => {
    const victim = new pg.Client({ connectionString: postgres.url, application_name: 'victim' });
    victim.on('error', () => undefined);
    await victim.connect();
    const user = (await victim.query<{ u: string }>('SELECT current_setting($1) AS u', ['is_superuser'])).rows[0]?.u;
    expect(user).toBe('on');
    const backend = (await postgres.backends()).find((b) => b.application === 'victim');
    expect(backend).toBeDefined();
    expect(await postgres.terminateBackend(backend!.pid)).toBe(true);
    await expect(victim.query('SELECT 1')).rejects.toThrow();
    if (process.getuid?.() === 0) expect(postgres.pid).toBeDefined();
  });

  it("steps PostgreSQL's wall clock with faketime while it runs, so now() jumps", async () => {
    const c = new pg.Client({ connectionString: postgres.url });
    await c.connect();
    try {
      const read = async (): Promise<number> => Number((await c.query<{ t: string }>('SELECT EXTRACT(epoch FROM clock_timestamp()) AS t')).rows[0]!.t);
      const before = await read();
      expect(Math.abs(before - Date.now() / 1000)).toBeLessThan(2);
      postgres.stepClock(60_000);
      const after = await read();
      expect(after - before).toBeGreaterThan(59);
      expect(after - before).toBeLessThan(62);
    } finally {
      postgres.stepClock(-60_000);
      await c.end();
    }
  });

  it('refuses to step the clock of a server whose expiry reads no wall clock the harness can move', async () => {
    const etcd = await h.etcd({ name: 'no-clock' });
    expect(() => etcd.stepClock(1_000)).toThrow(/etcd does not read a wall clock/);
  });

  it('starts a three-server ZooKeeper ensemble that keeps serving with one server down', async () => {
    const ensemble = await h.zookeeperEnsemble(3, { tickMs: 200 });
    const modes = await Promise.all(ensemble.map((s) => s.mode()));
    expect(modes.sort()).toEqual(['follower', 'follower', 'leader']);
    expect(ensembleUrl(ensemble).split(',')).toHaveLength(3);
    const follower = ensemble[modes.indexOf('follower')]!;
    await follower.kill();
    const others = ensemble.filter((s) => s !== follower);
    expect(await eventually(async () => (await Promise.all(others.map((s) => s.mode()))).every((m) => m === 'leader' || m === 'follower'), 10_000)).toBe(true);
  });

  it("writes ZooKeeper's transaction log without fsyncing it, and a killed and restarted server still has what was written", async () => {
    const zk = await h.zookeeper({ name: 'unsynced' });
    const connect = async (): Promise<zookeeper.Client> => {
      const c = zookeeper.createClient(`127.0.0.1:${zk.port}`, { sessionTimeout: 4_000 });
      await new Promise<void>((resolve) => {
        c.once('connected', () => resolve());
        c.connect();
      });
      return c;
    };
    const c = await connect();
    for (let i = 0; i < 5; i++)
      await new Promise<void>((resolve, reject) =>
        c.create(`/kept${i}`, Buffer.from('x'), zookeeper.CreateMode.PERSISTENT, (err: unknown) => (err ? reject(err) : resolve())),
      );
    // ZooKeeper counts each fsync of its log in `fsynctime`: none for the session and five creates.
    const mntr = await ask(zk.port, 'mntr', 1_000, '127.0.0.1', true);
    expect(mntr).toMatch(/^zk_cnt_fsynctime\t0$/m);
    c.close();
    await zk.restart(100);
    const again = await connect();
    try {
      const kept = await new Promise<string[]>((resolve, reject) =>
        again.getChildren('/', (err: unknown, list: string[]) => (err ? reject(err) : resolve(list))),
      );
      expect(kept.filter((p) => p.startsWith('kept')).sort()).toEqual(['kept0', 'kept1', 'kept2', 'kept3', 'kept4']);
    } finally {
      again.close();
    }
  });

  it('knows of every server it started and of none after close', async () => {
    const local = new Harness();
    const before = janitor.running;
    await local.memcached();
    expect(janitor.running).toBe(before + 1);
    await local.close();
    expect(await eventually(() => janitor.running === before)).toBe(true);
  });
});
