import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSweep, type SweepPlan } from '../sim/odds/plan.js';
import { formatCycles, type SweepReport } from '../sim/odds/report.js';
import { clusteredWilson } from '../sim/odds/wilson.js';
import { applyOverrides, parseOverride } from '../sim/scenario/set.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { workersFor } from '../sim/sweep/local.js';
import { cli, type CliResult } from './support/cli.js';
import { directCycleCounts } from './support/double-owned.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'locklab-sweep-'));
});

/** A user's mistake: exit 2, one line naming the option, no stack trace, nothing on stdout. */
function expectBadInput(r: CliResult, ...fragments: string[]): void {
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
  for (const f of fragments) expect(r.err).toContain(f);
  expect(r.err).not.toMatch(/\n\s+at /);
  expect(r.err.trim().split('\n')).toHaveLength(1);
}

const GRID = ['pause-past-expiry', '--seeds', '1..600', '--vary', 'faults[0].durationMs=10000..10016:8', '--vary', 'resource.fencing=false,true'];

describe('locklab sweep', () => {
  it('prints the same JSON report with one worker thread and with two', async () => {
    const one = await cli('sweep', ...GRID, '--workers', '1', '--json');
    const two = await cli('sweep', ...GRID, '--workers', '2', '--batch', '37', '--json');
    expect(one.code).toBe(0);
    expect(two.code).toBe(0);
    expect(two.out).toBe(one.out);
    const r = JSON.parse(one.out) as SweepReport;
    expect(r).toMatchObject({ schema: 'locklab.sweep/1', scenario: 'pause-past-expiry', partial: false, runs: 3600, seeds: { from: 1, to: 600 } });
    expect(r.combinations.map((c) => c.params)).toEqual([
      { 'faults[0].durationMs': 10000, 'resource.fencing': false },
      { 'faults[0].durationMs': 10000, 'resource.fencing': true },
      { 'faults[0].durationMs': 10008, 'resource.fencing': false },
      { 'faults[0].durationMs': 10008, 'resource.fencing': true },
      { 'faults[0].durationMs': 10016, 'resource.fencing': false },
      { 'faults[0].durationMs': 10016, 'resource.fencing': true },
    ]);
    // A's pause at 1 s outlasts its 10 s lease at about 9 s, but its late write is only unprotected until B is
    // granted the lock, at about 11.01 s: the odds climb as the pause crosses that instant.
    const unsafe = r.combinations.map((c) => c.unsafe.p);
    expect(unsafe[0]).toBe(0);
    expect(unsafe[2]).toBeGreaterThan(0);
    expect(unsafe[2]).toBeLessThan(1);
    expect(unsafe[4]).toBe(1);
    // Fencing cannot help here: A wakes and writes after B has taken the lock but before B writes, so the resource has seen no newer token.
    expect(r.combinations[5]!.unsafe.k).toBe(600);
  });

  it('names the exact command that reproduces each of the first failing seeds, and that command reproduces it', async () => {
    const r = JSON.parse(
      (await cli('sweep', 'pause-past-expiry', '--seeds', '1..200', '--vary', 'faults[0].durationMs=10008', '--workers', '1', '--json')).out,
    ) as SweepReport;
    const f = r.combinations[0]!.failing[0]!;
    expect(f.command).toMatch(/^locklab run pause-past-expiry --seed \d+ --set 'faults\[0\]\.durationMs=10008'$/);
    const run = await cli('run', 'pause-past-expiry', '--seed', String(f.seed), '--set', 'faults[0].durationMs=10008');
    expect(run.out).toContain('Verdict: UNSAFE');
    const safeSeed = [...Array(200).keys()].map((i) => i + 1).find((s) => !r.combinations[0]!.failing.some((x) => x.seed === s) && s < f.seed);
    if (safeSeed !== undefined)
      expect((await cli('run', 'pause-past-expiry', '--seed', String(safeSeed), '--set', 'faults[0].durationMs=10008')).out).not.toContain('UNSAFE');
  });

  it('prints text with intervals by default and writes CSV with --csv --out', async () => {
    const text = await cli('sweep', 'pause-past-expiry', '--seeds', '1..50', '--workers', '1');
    expect(text.code).toBe(0);
    expect(text.out).toContain('pause-past-expiry · seeds 1..50 · 1 combination · 50 runs');
    expect(text.out).toContain('unsafe (stale write accepted)  100 % (92.9–100)');
    expect(text.out).toContain('unsafe at seed 1: locklab run pause-past-expiry --seed 1');
    const out = join(dir, 'odds.csv');
    const csv = await cli('sweep', 'pause-past-expiry', '--seeds', '1..50', '--workers', '1', '--csv', '--out', out);
    expect(csv.code).toBe(0);
    expect(csv.out).toBe('');
    const rows = readFileSync(out, 'utf8').trim().split('\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatch(/^50,50,1,0\.92865\d*,1,0,0,0,0\.071/);
  });

  it('reports the share of lock cycles that were double-owned, as text, JSON and CSV, as a count over every pair of beliefs of the same runs finds it', async () => {
    const sweep = ['sweep', 'random-gc-pauses', '--seeds', '1..60', '--vary', 'clients[*].ttlMs=20000', '--workers', '1'];
    const gc = normalizeScenario(BUILTIN_SCENARIOS['random-gc-pauses'], 'random-gc-pauses');
    const direct = directCycleCounts(applyOverrides(gc, [parseOverride('clients[*].ttlMs=20000')]), 1, 60);
    expect(direct.n).toBe(60 * 60);
    expect(direct.k).toBeGreaterThan(0);
    const share = clusteredWilson(direct);
    const json = JSON.parse((await cli(...sweep, '--json')).out) as SweepReport;
    expect(json.combinations[0]!.doubleOwnedCycles).toEqual(share);
    const text = (await cli(...sweep)).out;
    expect(text).toContain(`\n    double-owned cycles          ${formatCycles(share)}\n`);
    expect(formatCycles(share)).toMatch(/^\d+\.\d+ % of 3,600 lock cycles \(\d+\.\d+–\d+\.\d+\), about 1 in \d+$/);
    expect(text).toMatch(/^ {2}double-owned cycles {5}a share of lock cycles, not of runs/m);
    const [head, row] = (await cli(...sweep, '--csv')).out
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const column = (name: string): string => row![head!.indexOf(name)]!;
    expect(column('cycles')).toBe(String(direct.n));
    expect(column('doubleOwnedCycles')).toBe(String(direct.k));
    expect(column('doubleOwnedCycles_rate')).toBe(String(share.p));
    expect(column('doubleOwnedCycles_lo95')).toBe(String(share.lo));
    expect(column('doubleOwnedCycles_hi95')).toBe(String(share.hi));
    expect(column('doubleOwnedCycles_deff')).toBe(String(share.deff));
  });

  it('counts a single run in the singular', async () => {
    const one = await cli('sweep', 'pause-past-expiry', '--seeds', '7..7', '--workers', '1');
    expect(one.code).toBe(0);
    expect(one.out).toContain('pause-past-expiry · seed 7 · 1 combination · 1 run\n');
    expect(one.out).not.toContain('1 runs');
    expect(one.err).toMatch(/^1 run in \d+\.\d s/m);
  });

  it('says, once for each way the keys are split, when the clients lock different keys, which no share in the report can show', async () => {
    const r = await cli('sweep', 'pause-past-expiry', '--seeds', '1..3', '--workers', '1', '--json', '--vary', 'clients.B.key=job,jobs,jobz');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toHaveProperty('combinations');
    const notes = r.err.split('\n').filter((l) => l.startsWith('Note: the clients lock different keys'));
    expect(notes).toEqual([expect.stringContaining('(A on "job"; B on "jobs")'), expect.stringContaining('(A on "job"; B on "jobz")')]);
    expect((await cli('sweep', 'pause-past-expiry', '--seeds', '1..3', '--workers', '1')).err).not.toContain('lock different keys');
  });

  it('--shrink writes the smallest scenario of the first unsafe run it found', async () => {
    const out = join(dir, 'sweep-smallest.json');
    const r = await cli(
      'sweep',
      'pause-past-expiry',
      '--seeds',
      '1..20',
      '--vary',
      'faults[0].durationMs=9000..10016:1016',
      '--workers',
      '1',
      '--json',
      '--shrink',
      out,
    );
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as SweepReport;
    const seed = report.combinations[1]!.failing[0]!.seed;
    expect(report.combinations[0]!.unsafe.k).toBe(0);
    expect(r.err).toContain(`Smallest failure of seed ${seed} written to ${out}`);
    const small = JSON.parse(readFileSync(out, 'utf8')) as { seed: number; faults: Array<{ durationMs: number }> };
    expect(small.seed).toBe(seed);
    expect(small.faults[0]!.durationMs).toBeLessThanOrEqual(10016);
    expect((await cli('run', out)).out).toContain('Verdict: UNSAFE');
    // It names the schema by the path from where it is written, as a copied built-in does, so an editor goes on checking it.
    const { $schema } = JSON.parse(readFileSync(out, 'utf8')) as { $schema: string };
    expect(resolve(dir, $schema)).toBe(resolve('docs/schema/scenario.schema.json'));
  });

  it('refuses a --vary path that does not exist, naming the fields that do', async () => {
    expectBadInput(
      await cli('sweep', 'pause-past-expiry', '--vary', 'clients.A.ttl=1..2'),
      '--vary: clients.A.ttl: unknown path: clients[0] has no field "ttl" (fields: name, machine',
    );
  });

  it('refuses an empty range, a step of zero and a seed range in the wrong order', async () => {
    expectBadInput(
      await cli('sweep', 'pause-past-expiry', '--vary', 'clients.A.ttlMs=9000..1000:1000'),
      '--vary: clients.A.ttlMs: the range 9000..1000:1000 is empty',
    );
    expectBadInput(
      await cli('sweep', 'pause-past-expiry', '--vary', 'clients.A.ttlMs=1000..9000:0'),
      '--vary: clients.A.ttlMs: the step of 1000..9000:0 is zero',
    );
    expectBadInput(await cli('sweep', 'pause-past-expiry', '--seeds', '500..1'), '--seeds: the seed range 500..1 is in the wrong order');
  });

  it('refuses, in a second and naming --seeds, a sweep of more batches than it can plan, rather than fill the memory', async () => {
    const started = Date.now();
    expectBadInput(
      await cli('sweep', 'random-gc-pauses', '--seeds', '0..4294967295', '--vary', 'clients[*].ttlMs=1000..2000:1', '--out', join(dir, 'huge.json')),
      '--seeds: 4,294,967,296 seeds × 1,001 combinations in batches of 5,000 seeds make 859,852,994 batches, more than the 1,000,000 a sweep takes',
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(existsSync(join(dir, 'huge.json'))).toBe(false);
  });

  it('refuses more worker processes than maxWorkers, and starts no more than the sweep has batches', async () => {
    // Refused as the option is read, as any bad option is (commander's own two lines: the option and the hint to add --help).
    const huge = await cli('sweep', 'pause-past-expiry', '--seeds', '1..5', '--workers', '10000');
    expect(huge.code).toBe(2);
    expect(huge.err).toContain(
      "option '--workers <n>' argument '10000' is invalid. expected at most 256 worker processes, got 10000; the limit is 256 processes (maxWorkers).",
    );
    const threads = await cli('worker', '--queue', 'redis://127.0.0.1:1', '--threads', '257');
    expect(threads.code).toBe(2);
    expect(threads.err).toContain('the limit is 256 processes (maxWorkers)');
    const plan = (batchSize: number): SweepPlan =>
      planSweep({
        scenarioRef: 'pause-past-expiry',
        base: normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry'),
        sets: [],
        varies: [],
        seeds: { from: 1, to: 5 },
        codeVersion: 'test',
        batchSize,
      });
    expect(plan(5).batches).toHaveLength(1);
    expect(workersFor(plan(5), 50)).toBe(1);
    expect(workersFor(plan(1), 50)).toBe(5);
    expect(workersFor(plan(1), 2)).toBe(2);
    // Fifty asked for, five seeds: one batch, one worker, and the report all the same.
    const many = await cli('sweep', 'pause-past-expiry', '--seeds', '1..5', '--workers', '50', '--json');
    expect(many.code).toBe(0);
    expect((JSON.parse(many.out) as SweepReport).runs).toBe(5);
  });

  it('refuses an --out or --shrink file it cannot write before it runs a seed, and leaves neither when nothing is unsafe', async () => {
    for (const option of ['--out', '--shrink']) {
      const started = Date.now();
      const r = await cli('sweep', 'pause-past-expiry', '--seeds', '1..2000000', '--workers', '1', option, join(dir, 'nowhere', 'f.json'));
      expectBadInput(r, 'cannot write: its directory does not exist');
      // Two million seeds would take a minute or more: refused before any of them.
      expect(Date.now() - started).toBeLessThan(20_000);
    }
    const shrunk = join(dir, 'never.json');
    const r = await cli('sweep', 'pause-past-expiry', '--seeds', '1..20', '--workers', '1', '--set', 'resource.fencing=true', '--shrink', shrunk, '--json');
    expect(r.err).toContain('no run of this sweep was unsafe');
    expect(existsSync(shrunk)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('.never.json'))).toEqual([]);
  });

  it('leaves no file behind when the report cannot be written', async () => {
    const target = join(dir, 'missing', 'odds.json');
    expectBadInput(
      await cli('sweep', 'pause-past-expiry', '--seeds', '1..5', '--workers', '1', '--json', '--out', target),
      'cannot write: its directory does not exist',
    );
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  describe('with a queue that does not answer', () => {
    let silent: Server;
    let port: number;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      // Accepts connections and never says a word, like a server that hangs.
      silent = createServer((s) => void sockets.add(s));
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      port = (silent.address() as { port: number }).port;
    });
    afterAll(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    });

    it('gives up within a few seconds, naming the URL', async () => {
      const started = Date.now();
      const r = await cli('sweep', 'pause-past-expiry', '--seeds', '1..10', '--queue', `redis://127.0.0.1:${port}`);
      expect(Date.now() - started).toBeLessThan(8000);
      expectBadInput(r, `--queue: redis://127.0.0.1:${port} does not answer (no answer within 3 s)`);
    });

    it('refuses a URL that is not redis://', async () => {
      expectBadInput(await cli('sweep', 'pause-past-expiry', '--queue', 'http://127.0.0.1:1'), '--queue: expected a redis:// URL');
    });
  });

  it('shows a progress bar on a terminal, and none with --json', () => {
    // util-linux's script(1) gives the command a terminal, as a person at a shell would have.
    const onTty = (extra: string): string =>
      spawnSync(
        'script',
        ['-qfec', `${process.execPath} --import tsx sim/cli/start.ts sweep pause-past-expiry --seeds 1..1500 --workers 1 --batch 250 ${extra}`, '/dev/null'],
        {
          encoding: 'utf8',
          timeout: 60_000,
        },
      ).stdout;
    const text = onTty('');
    expect(text).toMatch(/sweep \[[█░]+\] \d+% · [\d,]+\/1,500 runs/);
    expect(text).toContain('pause-past-expiry · seeds 1..1500');
    const json = onTty('--json');
    expect(json).not.toContain('sweep [');
    expect(json).toContain('"schema": "locklab.sweep/1"');
  });

  it('says how far a long sweep has got on stderr when stderr is not a terminal, never on stdout, and nothing with --quiet', async () => {
    // A CI log or a pipe: no bar to redraw, so a plain line once the sweep has run a few seconds, and one at the end.
    const piped = (...extra: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((done) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', 'sim/cli/start.ts', 'sweep', 'pause-past-expiry', '--seeds', '1..80000', '--workers', '1', '--batch', '4000', '--csv', ...extra],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('exit', (code) => done({ code, out, err }));
      });
    const [shown, quiet] = await Promise.all([piped(), piped('--quiet')]);
    expect(shown.code).toBe(0);
    const lines = shown.err.split('\n').filter((l) => l.startsWith('sweep: '));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(l).toMatch(/^sweep: \d+% · [\d,]+\/80,000 runs( · about \d+ s left)?$/);
    expect(lines.at(-1)).toBe('sweep: 100% · 80,000/80,000 runs');
    // No escape sequence meant for a terminal reaches the log.
    expect(shown.err).not.toContain('\x1b');
    expect(shown.out.split('\n')[1]).toMatch(/^80000,/);
    expect(shown.out).not.toContain('sweep: ');
    expect(quiet.code).toBe(0);
    expect(quiet.err).toBe('');
    expect(quiet.out).toBe(shown.out);
  }, 120_000);

  it('prints the partial report, marked partial, when stopped with Ctrl-C', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'sim/cli/start.ts', 'sweep', 'pause-past-expiry', '--seeds', '1..5000000', '--workers', '1', '--batch', '200', '--json'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    // Let it start and count some batches, then interrupt it as a person at the terminal would (long enough for a busy machine).
    await new Promise((r) => setTimeout(r, 15_000));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    clearTimeout(killer);
    expect(code).toBe(130);
    const r = JSON.parse(out) as SweepReport;
    expect(r.partial).toBe(true);
    expect(r.runs).toBeGreaterThan(0);
    expect(r.runs).toBeLessThan(5_000_000);
    expect(r.runs % 200).toBe(0);
    expect(r.combinations[0]!.unsafe.k).toBe(r.runs);
    expect(err).toContain('sweep stopped early');
  });
});

describe('locklab shrink', () => {
  it('writes a smaller scenario that is still unsafe, with the changes it made', async () => {
    const noisy = join(dir, 'noisy.json');
    const base = JSON.parse(readFileSync('sim/scenarios/pause-past-expiry.json', 'utf8')) as Record<string, unknown> & { faults: unknown[] };
    base.faults.push(
      { kind: 'clock-jump', machine: 'app2', atMs: 2000, byMs: 300 },
      { kind: 'latency-spike', atMs: 500, durationMs: 4000, extraMs: 20, machines: null },
    );
    (base.faults[0] as { durationMs: number }).durationMs = 20000;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(noisy, JSON.stringify(base));
    const out = join(dir, 'smallest.json');
    const r = await cli('shrink', noisy, '--out', out);
    expect(r.code).toBe(0);
    expect(r.err).toContain('removed the clock-jump on app2 at 2000 ms');
    expect(r.err).toContain('removed the latency-spike at 500 ms');
    expect(r.err).toMatch(/pause of A at 1000 ms: durationMs 20000 → \d+/);
    const small = JSON.parse(readFileSync(out, 'utf8')) as { faults: Array<{ durationMs: number }>; name: string };
    expect(small.name).toBe('pause-past-expiry-smallest');
    expect(small.faults).toHaveLength(1);
    expect(small.faults[0]!.durationMs).toBeLessThan(10000);
    expect((await cli('run', out)).out).toContain('Verdict: UNSAFE');
    expect(resolve(dir, (JSON.parse(readFileSync(out, 'utf8')) as { $schema: string }).$schema)).toBe(resolve('docs/schema/scenario.schema.json'));
  });

  it('refuses a run that is not unsafe, saying what it is and how to find a seed that is', async () => {
    expectBadInput(
      await cli('shrink', 'pause-past-expiry', '--set', 'resource.fencing=true'),
      '--seed: the run of pause-past-expiry at seed 7 is fenced, not unsafe: there is no failure to shrink; `locklab sweep pause-past-expiry --set resource.fencing=true` lists the seeds whose run is unsafe, to shrink with --seed',
    );
    // A failure that is rare (a GC pause once in a hundred acquisitions) is not at the scenario's own seed; the sweep named finds it.
    const r = await cli('shrink', 'random-gc-pauses', '--seed', '1', '--set', 'clients[*].ttlMs=60000');
    expectBadInput(r, 'at seed 1 is safe, not unsafe', "`locklab sweep random-gc-pauses --set 'clients[*].ttlMs=60000'` lists the seeds");
    const sweep = await cli('sweep', 'random-gc-pauses', '--seeds', '1..300', '--workers', '1', '--set', 'clients[*].ttlMs=60000');
    const seed = /unsafe at seed (\d+):/.exec(sweep.out)?.[1];
    expect(seed, sweep.out).toBeDefined();
    expect((await cli('shrink', 'random-gc-pauses', '--seed', seed!, '--set', 'clients[*].ttlMs=60000')).code).toBe(0);
  });
});

describe('locklab export --format chrome', () => {
  it("writes Chrome's trace-event JSON with a track per client, store node and the resource", async () => {
    const out = join(dir, 'pause.chrome.json');
    const r = await cli('export', 'pause-past-expiry', '--format', 'chrome', '--out', out);
    expect(r.code).toBe(0);
    const t = JSON.parse(readFileSync(out, 'utf8')) as {
      traceEvents: Array<{ ph: string; name: string; pid: number; tid: number; ts: number; dur?: number; args?: { name?: string } }>;
    };
    const threads = t.traceEvents.filter((e) => e.name === 'thread_name').map((e) => e.args!.name);
    expect(threads).toEqual(expect.arrayContaining(['A', 'B', 'redis', 'resource', 'double ownership']));
    const beliefs = t.traceEvents.filter((e) => e.ph === 'X' && e.name.startsWith('believes it holds job'));
    expect(beliefs).toHaveLength(2);
    expect(beliefs.every((e) => e.dur! > 0 && Number.isInteger(e.ts))).toBe(true);
    const window = t.traceEvents.find((e) => e.name === 'A and B both believe they hold job')!;
    expect(window.dur).toBeGreaterThan(0);
    expect(t.traceEvents.filter((e) => e.ph === 'i').length).toBe(JSON.parse((await cli('run', 'pause-past-expiry', '--json')).out).events.length);
    expect(readdirSync(dir).some((f) => f.includes('.tmp'))).toBe(false);
  });

  it('converts a trace file as well as a scenario', async () => {
    const trace = join(dir, 'trace.json');
    await cli('run', 'crash-without-release', '--out', trace);
    const r = await cli('export', trace, '--format', 'chrome');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).otherData).toEqual({ scenario: 'crash-without-release', seed: 3, source: 'sim', outcome: 'safe' });
    // Chrome's is the only format so far, so it is the default.
    expect((await cli('export', trace)).out).toBe(r.out);
    const other = await cli('export', trace, '--format', 'xml');
    expect(other.code).toBe(2);
    expect(other.err).toContain("argument 'xml' is invalid. Allowed choices are chrome.");
  });

  it('converts a JSON Lines trace to the same Chrome trace as the same run written as one document', async () => {
    const whole = join(dir, 'gc.json');
    const lines = join(dir, 'gc.jsonl');
    expect((await cli('run', 'random-gc-pauses', '--out', whole)).code).toBe(0);
    expect((await cli('run', 'random-gc-pauses', '--out', lines)).code).toBe(0);
    const fromLines = await cli('export', lines);
    expect(fromLines.code).toBe(0);
    expect(fromLines.out).toBe((await cli('export', whole)).out);
    expect(JSON.parse(fromLines.out).traceEvents.length).toBeGreaterThan(100);
    // A JSON Lines trace under a .json name: the message says what it looks like and how it is read.
    const misnamed = join(dir, 'gc-lines.json');
    writeFileSync(misnamed, readFileSync(lines, 'utf8'));
    for (const command of ['export', 'check']) {
      const r = await cli(command, misnamed);
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        `locklab: ${misnamed}: not valid JSON at line 2, column 1: text after the end of the JSON value (a JSON Lines trace, one JSON object per line, is read when its name ends in .jsonl)\n`,
      );
    }
  });

  it('takes one seed with --seed, as run does, and refuses a range', async () => {
    for (const command of ['export', 'shrink']) {
      const r = await cli(command, 'pause-past-expiry', '--seed', '1..3');
      expect(r.code).toBe(2);
      expect(r.err).toContain(`option '--seed <n>' argument '1..3' is invalid. expected a whole number from 0 to 4294967295, got "1..3".`);
    }
    const a = await cli('export', 'pause-past-expiry', '--seed', '12');
    expect(JSON.parse(a.out).otherData.seed).toBe(12);
  });
});
