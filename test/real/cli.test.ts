import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Harness } from '../../sim/real/harness/index.js';
import { checkSymfonyInstalled } from '../../sim/real/symfony/php.js';
import { validateTrace } from '../../sim/trace/validate.js';
import { cli } from '../support/cli.js';
import { describeReal } from './support.js';

describeReal('locklab real and locklab compare', () => {
  const dir = mkdtempSync(join(tmpdir(), 'locklab-real-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs a scenario on real servers, prints its timeline and verdict, and writes a trace that locklab check judges the same', async () => {
    const out = join(dir, 'crash.json');
    const r = await cli('real', 'crash-without-release', '--out', out, '--code');
    expect(r.code).toBe(0);
    expect(r.out).toContain("Recorded on real servers (redis) with Locklab's own lock code");
    // With --code, the clients' code above the timeline, and each client event on the line its process reported it was on.
    expect(r.out).toContain('What the clients run, as PHP:');
    expect(r.out).toMatch(/^\s*3\s+if \(!\$lock->acquire\(\)\) return;$/m);
    expect(r.out).toMatch(/actor\s+line\s+event/);
    expect(r.out).toMatch(/A@app1\s+3\s+asks redis for job/);
    expect(r.out).toMatch(/A@app1\s+5\s+works for 2 s/);
    expect(r.out).toMatch(/B@app2\s+3\s+is refused: job is held by A:1/);
    // Killed, it is on no line: the crash is its last event on line 5, and nothing of A's after it has one.
    expect(r.out).toMatch(/A@app1\s+5\s+CRASHES/);
    expect(r.out).toMatch(/Verdict: SAFE/);
    // A crashed before B was granted the lock: two lock cycles, never at once.
    expect(r.out).toContain('  2 lock cycles, none of them double-owned.\n');
    expect(r.err).toMatch(/\[real \d+\.\d s\]/);
    const doc = validateTrace(JSON.parse(readFileSync(out, 'utf8')), out);
    expect(doc.source).toBe('real');
    expect(doc.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['process.crash', 'lock.expired', 'acquire.ok']));
    expect((await cli('check', out)).out).toContain('  2 lock cycles, none of them double-owned.\n');
    const checked = await cli('check', out, '--json');
    expect(checked.code).toBe(0);
    expect(JSON.parse(checked.out).verdict.outcome).toBe(doc.verdict.outcome);
  });

  it('compares the simulated and the real run, aligned, and exits 0 when they agree', async () => {
    const r = await cli('compare', 'crash-without-release');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/simulated\s+real\s+actor\s+event/);
    expect(r.out).toMatch(/A\s+process\.crash/);
    expect(r.out).toMatch(/agree: same outcome, same double ownership/);
  });

  it('refuses --code with --json, naming the option, before starting any server', async () => {
    const r = await cli('real', 'pause-past-expiry', '--code', '--json');
    expect(r.code).toBe(2);
    expect(r.err).toContain("--code: prints the clients' code above the timeline, which --json does not print");
  });

  it('refuses a malformed server URL, naming the option', async () => {
    const r = await cli('real', 'pause-past-expiry', '--redis', 'localhost:6379');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--redis/);
    expect(r.err).toMatch(/redis:\/\/HOST:PORT/);
  });

  it('names the option of a URL given for a server the scenario does not use, and the servers it does use', async () => {
    const memcached = await cli('real', 'pause-past-expiry', '--memcached', 'memcached://127.0.0.1:1');
    expect(memcached.code).toBe(2);
    expect(memcached.err).toContain('--memcached: the scenario uses no memcached server (it runs on redis), got 1 URL');
    expect(memcached.err).not.toContain('--redis');
    const redis = await cli('compare', 'sql-clock-skew', '--redis', 'redis://127.0.0.1:1');
    expect(redis.code).toBe(2);
    expect(redis.err).toContain('--redis: the scenario uses no redis server (it runs on postgres (sql)), got 1 URL');
  });

  it('fails within seconds, naming the node and the address, when a given server cannot be reached, whatever the store', async () => {
    // pause-past-expiry sets its fencing counter before the run: that first connection must fail as fast, and let the command exit.
    for (const [scenario, flag, url, node] of [
      ['crash-without-release', '--redis', 'redis://127.0.0.1:1', 'redis'],
      ['pause-past-expiry', '--redis', 'redis://127.0.0.1:1', 'redis'],
      ['memcached-restart', '--memcached', 'memcached://127.0.0.1:1', 'memcached'],
      ['postgres-connection-loss', '--postgres', 'postgres://locklab@127.0.0.1:1/postgres', 'postgres'],
      ['zookeeper-session-expiry', '--zookeeper', 'zookeeper://127.0.0.1:1', 'zookeeper'],
      ['etcd-revision-fencing', '--etcd', 'http://127.0.0.1:1', 'etcd'],
    ] as const) {
      const t0 = Date.now();
      const r = await cli('real', scenario, flag, url);
      expect(r.code, `${scenario}: ${r.err}`).toBe(2);
      expect(r.err).toContain(`cannot reach ${node} at ${url}`);
      expect(r.err.split('\n').filter((l) => l.startsWith('locklab:'))).toHaveLength(1);
      expect(Date.now() - t0, scenario).toBeLessThan(15_000);
    }
    // And the command itself exits: nothing it opened on the way keeps the process alive.
    const root = new URL('../..', import.meta.url).pathname;
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'sim/cli/start.ts'), 'real', 'pause-past-expiry', '--redis', 'redis://127.0.0.1:1'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const t0 = Date.now();
    const code = await new Promise<number | null | 'still running'>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('still running');
      }, 20_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(2);
    expect(Date.now() - t0).toBeLessThan(15_000);
  }, 120_000);

  it('exits within seconds, naming the address, when a given server accepts the connection and never answers, whatever the store', async () => {
    // Something else on the port (not the server asked for, or one stopped): it takes the connection and says nothing.
    const sockets = new Set<Socket>();
    const silent = createServer((s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const root = new URL('../..', import.meta.url).pathname;
    const run = (scenario: string, flag: string, url: string) =>
      new Promise<{ code: number | null | 'still running'; err: string; ms: number }>((resolve) => {
        const t0 = Date.now();
        const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'sim/cli/start.ts'), 'real', scenario, flag, url], {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let err = '';
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve({ code: 'still running', err, ms: Date.now() - t0 });
        }, 40_000);
        child.on('exit', (code) => {
          clearTimeout(timer);
          resolve({ code, err, ms: Date.now() - t0 });
        });
      });
    try {
      const cases = [
        ['pause-past-expiry', '--redis', `redis://127.0.0.1:${port}`, 'redis'],
        ['memcached-restart', '--memcached', `memcached://127.0.0.1:${port}`, 'memcached'],
        ['postgres-connection-loss', '--postgres', `postgres://locklab@127.0.0.1:${port}/postgres`, 'postgres'],
        ['zookeeper-session-expiry', '--zookeeper', `zookeeper://127.0.0.1:${port}`, 'zookeeper'],
        ['etcd-revision-fencing', '--etcd', `http://127.0.0.1:${port}`, 'etcd'],
      ] as const;
      const results = await Promise.all(cases.map(([scenario, flag, url]) => run(scenario, flag, url)));
      cases.forEach(([scenario, , url, node], i) => {
        const r = results[i]!;
        expect(r.code, `${scenario}: ${r.err}`).toBe(2);
        expect(r.err).toContain(`cannot reach ${node} at ${url}`);
        expect(r.ms, scenario).toBeLessThan(20_000);
      });
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  }, 120_000);

  it('on Ctrl-C stops every server and client it started and writes the partial trace, marked as such', async () => {
    const out = join(dir, 'interrupted.json');
    const root = new URL('../..', import.meta.url).pathname;
    // The run's own temporary folder: servers other test files start at the same time are not its to clean.
    const tmp = mkdtempSync(join(dir, 'tmp-'));
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'sim/cli/start.ts'), 'real', 'pause-past-expiry', '--out', out], {
      cwd: root,
      env: { ...process.env, TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Wait until A is at work under its lock, then press Ctrl-C.
    for (let i = 0; i < 300 && !/A: (work\.start|process\.pause)/.test(err); i++) await new Promise((r) => setTimeout(r, 100));
    // Its Redis servers keep their files in that folder while they run.
    expect(readdirSync(tmp).filter((d) => d.startsWith('locklab-redis-')).length).toBeGreaterThan(0);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(err).toMatch(/interrupted; partial trace written to/);
    const doc = validateTrace(JSON.parse(readFileSync(out, 'utf8')), out);
    expect(doc.partial).toBe(true);
    expect(doc.source).toBe('real');
    expect(doc.events.map((e) => e.kind)).toContain('acquire.ok');
    expect(readdirSync(tmp).filter((d) => d.startsWith('locklab-'))).toEqual([]);
  });

  it('stops the run at --max-time, keeps that budget in the trace, says so and exits 3; its progress shows the paused client paused', async () => {
    const out = join(dir, 'budget.json');
    const t0 = Date.now();
    // A's lease runs out at 10 s and the story ends at 16 s: a 3 s budget stops it long before either.
    const r = await cli('real', 'pause-past-expiry', '--max-time', '3000', '--out', out);
    expect(r.code, r.err).toBe(3);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.out).toMatch(/Run stopped at its time budget \(3 s\) after \d+ trace events and 3\.\d{3} s of real time/);
    // B starts at 5 s: the stop says so, and how to let it.
    expect(r.out).toContain("client B's start (at 5 s) was set after the budget and never happened. Move it earlier, or raise --max-time (budget.maxTimeMs).");
    const doc = validateTrace(JSON.parse(readFileSync(out, 'utf8')), out);
    expect(doc.stop.reason).toBe('time-budget');
    expect(doc.scenario.budget.maxTimeMs).toBe(3000);
    expect(doc.stop.timeUs).toBeGreaterThanOrEqual(3_000_000);
    expect(doc.events.map((e) => e.kind)).not.toContain('lock.expired');
    // The progress line, once a second, says what each client is doing: from 1 s on, A is paused (SIGSTOP), not at work.
    const states = [...r.err.matchAll(/\] (\d+\.\d) s {2}A: (\S+)/g)].filter((m) => Number(m[1]) >= 1.2).map((m) => m[2]);
    expect(states.length).toBeGreaterThan(0);
    expect(new Set(states)).toEqual(new Set(['process.pause']));
  }, 60_000);

  it('on a Redis the user names, refuses to take over keys already there, and leaves the server as it found it', async () => {
    const h = new Harness();
    try {
      const server = await h.redis({ name: 'theirs' });
      const redis = new Redis(server.url, { lazyConnect: true });
      await redis.connect();
      try {
        await redis.set('mine', 'kept');
        await redis.set('job', 'their job');
        const taken = await cli('real', 'pause-past-expiry', '--redis', server.url, '--max-time', '2000');
        expect(taken.code, taken.err).toBe(2);
        expect(taken.err).toContain(`redis at ${server.url} already holds "job", which the run would take over`);
        expect(taken.err).toContain('--set store.keyPrefix=locklab:');
        expect(await redis.get('job')).toBe('their job');
        expect(await redis.exists('job:fence')).toBe(0);
        // Without theirs in the way, the run uses job and its fencing counter, and deletes both when it ends (here at its time budget).
        await redis.del('job');
        const ran = await cli('real', 'pause-past-expiry', '--redis', server.url, '--max-time', '2000');
        expect(ran.code, ran.err).toBe(3);
        expect(ran.out).toContain('A:1 #33');
        expect((await redis.keys('*')).sort()).toEqual(['mine']);
        expect(await redis.get('mine')).toBe('kept');
      } finally {
        redis.disconnect();
      }
    } finally {
      await h.close();
    }
  }, 60_000);

  it('refuses a --max-time that is no time budget, naming the option and its bounds', async () => {
    for (const bad of ['0', '-5', '1.5', '31536000001']) {
      const r = await cli('real', 'pause-past-expiry', '--max-time', bad);
      expect(r.code, bad).toBe(2);
      expect(r.err).toContain(`option '--max-time <ms>' argument '${bad}' is invalid`);
      expect(r.err).toContain('from 1 to 31536000000');
    }
  });

  it('with --client symfony, names the Debian package of a missing PHP extension or Symfony Lock, before starting any server', async () => {
    // PHP as it is where php-redis is not installed: the same configuration without the redis extension's ini file.
    const scanDir = execFileSync('php', ['-r', 'echo PHP_CONFIG_FILE_SCAN_DIR;'], { encoding: 'utf8' });
    const without = join(dir, 'php-conf.d');
    mkdirSync(without);
    for (const f of readdirSync(scanDir)) if (!/redis/.test(f)) copyFileSync(join(scanDir, f), join(without, f));
    const before = process.env.PHP_INI_SCAN_DIR;
    process.env.PHP_INI_SCAN_DIR = without;
    let r: Awaited<ReturnType<typeof cli>>;
    try {
      r = await cli('real', 'pause-past-expiry', '--client', 'symfony');
    } finally {
      if (before === undefined) delete process.env.PHP_INI_SCAN_DIR;
      else process.env.PHP_INI_SCAN_DIR = before;
    }
    expect(r.code).toBe(2);
    // Said once, as the run's failure: not "PHP's redis extension: PHP's redis extension was not found".
    expect(r.err).toContain(
      "locklab: real run of pause-past-expiry: PHP's redis extension was not found: install Debian's php-redis package (apt-get install php-redis)",
    );
    expect(r.err).not.toMatch(/starting redis|Stack trace|Class "Redis" not found/);
    // Stores that need other extensions pass; a missing Symfony Lock is named by its package.
    await expect(checkSymfonyInstalled(['memcached', 'postgres'])).resolves.toBeUndefined();
    await expect(checkSymfonyInstalled(['redis'], join(dir, 'no-such-autoload.php'))).rejects.toThrow(
      "Symfony Lock was not found: install Debian's php-symfony-lock package (apt-get install php-symfony-lock)",
    );
  });

  it('says which part of a scenario cannot be made real, and why', async () => {
    const flock = await cli('real', 'flock-across-servers');
    expect(flock.code).toBe(2);
    expect(flock.err).toMatch(/store\.kind: the real runner has no server for flock stores/);
    const zk = await cli('real', 'zookeeper-session-expiry', '--client', 'symfony');
    expect(zk.code).toBe(2);
    expect(zk.err).toMatch(/php-zookeeper/);
    const jump = await cli('real', 'redlock-clock-jump');
    expect(jump.code).toBe(2);
    expect(jump.err).toMatch(/jemalloc|libfaketime/);
  });
});
