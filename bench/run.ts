/**
 * `npm run bench`: prints the performance figures as JSON. Every figure is
 * the median of several repetitions, with the spread, because these machines
 * are shared and noisy. Targets are printed beside the figures, never
 * asserted in unit tests.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
// Run hashes with Node's own sha256, as the package, the command and locklab/testing make them.
import '../sim/cli/node-hash.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { runJob, runScenario } from '../sim/run.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { STORE_KINDS } from '../sim/stores/registry.js';
import { contentionScenario } from './contention.js';
import { runSweepBench } from './sweep.js';
import { runsPerSec, stat, type Stat } from './runs.js';
import { WORKER_EXEC_ARGV } from '../sim/sweep/pool.js';

/** Kernel events per second of a whole run (simulation, trace recording and checker) on the contention workload. */
function contention(reps: number): { eventsPerSec: Stat; kernelEvents: number; traceEvents: number; outcome: string } {
  const scenario = normalizeScenario(contentionScenario(), 'bench-contention');
  runScenario(scenario); // warm-up
  const rates: number[] = [];
  let last = runScenario(scenario);
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    last = runScenario(scenario);
    const seconds = (performance.now() - t0) / 1000;
    rates.push(last.stop.events / seconds);
  }
  return { eventsPerSec: stat(rates), kernelEvents: last.stop.events, traceEvents: last.events.length, outcome: last.verdict.outcome };
}

/**
 * The same workload judged as it runs, keeping no events: the run job sweeps
 * call. With the run hash (sha256 over canonical JSON of every event) and
 * without it, since a sweep that only counts outcomes skips it.
 */
function contentionStreaming(reps: number, hash: boolean): { eventsPerSec: Stat; outcome: string } {
  const scenario = normalizeScenario(contentionScenario(), 'bench-contention');
  runJob(scenario, scenario.seed, { hash, bounded: true }); // warm-up
  const rates: number[] = [];
  let outcome = '';
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const r = runJob(scenario, scenario.seed, { hash, bounded: true });
    rates.push(r.stop.events / ((performance.now() - t0) / 1000));
    outcome = r.outcome;
  }
  return { eventsPerSec: stat(rates), outcome };
}

/**
 * The same runs per second as a sweep's worker makes them: in a fresh
 * process with its V8 flags (sim/sweep/pool.ts, WORKER_EXEC_ARGV), running
 * the compiled package (dist/lib) it loads. How fast `locklab sweep` goes,
 * one core per worker.
 */
function runsInWorkerProcess(
  name: string,
  reps: number,
  sets: readonly string[] = [],
): { runsPerSec: Stat; kernelEventsPerRun: number; execArgv: readonly string[]; code: string } | string {
  if (!existsSync(new URL('../dist/lib/index.js', import.meta.url))) return 'dist/lib/index.js is missing: run `npm run build:lib` first';
  const r = spawnSync(
    process.execPath,
    [
      ...WORKER_EXEC_ARGV,
      '--import',
      'tsx',
      new URL('./runs-run.ts', import.meta.url).pathname,
      name,
      String(reps),
      '--compiled',
      ...sets.flatMap((x) => ['--set', x]),
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) return (r.stderr || `exit ${r.status}`).trim().split('\n').slice(-1)[0]!;
  const out = JSON.parse(r.stdout) as { runsPerSec: Stat; kernelEventsPerRun: number };
  return { ...out, execArgv: WORKER_EXEC_ARGV, code: 'dist/lib (compiled)' };
}

/** A bench/runs-serve.ts process: one scenario, warmed up, timing batches of runs on request. */
class BatchServer {
  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly lines: AsyncIterator<string>,
    private readonly stderr: () => string,
    readonly kernelEventsPerRun: number,
  ) {}

  /** Starts the server for built-in scenario `name` with overrides `sets`, and waits until it is warm; a string says why it could not start. */
  static async start(name: string, sets: readonly string[]): Promise<BatchServer | string> {
    const child = spawn(
      process.execPath,
      [...WORKER_EXEC_ARGV, '--import', 'tsx', new URL('./runs-serve.ts', import.meta.url).pathname, name, ...sets.flatMap((x) => ['--set', x])],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const first = await lines.next();
    const stderr = () => (err.trim().split('\n').slice(-1)[0] ?? '') || `exit ${child.exitCode ?? child.signalCode}`;
    if (first.done === true) return stderr();
    return new BatchServer(child, lines, stderr, (JSON.parse(first.value) as { kernelEventsPerRun: number }).kernelEventsPerRun);
  }

  /** Runs `n` more seeds and gives the milliseconds they took. */
  async batch(n: number): Promise<number> {
    this.child.stdin.write(`${n}\n`);
    const r = await this.lines.next();
    if (r.done === true) throw new Error(this.stderr());
    return (JSON.parse(r.value) as { ms: number }).ms;
  }

  close(): void {
    this.child.stdin.end();
  }
}

/** The median and the quartiles of `xs`, rounded to two places. */
function quartiles(xs: readonly number[]): { median: number; iqr: [number, number] } {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (f: number): number => Math.round(sorted[Math.round(f * (sorted.length - 1))]! * 100) / 100;
  return { median: at(0.5), iqr: [at(0.25), at(0.75)] };
}

/**
 * One line per store: whole runs per second of its hazard scenario, and the
 * ratio to Redis's (no model may run below half of it). Each is run as a
 * sweep runs many seeds of one scenario: the compiled package in a process
 * of its own with a worker's V8 flags (in one process, each scenario would
 * run in a heap and a JIT the ones before it shaped). The store's process
 * and a Redis process take turns, batch by batch (which goes first
 * alternates), so that the two rates of a pair are taken within a tenth of
 * a second of each other: on this shared machine the rate of one process
 * moves by half from one second to the next, and pairs of separate runs
 * ranged from 0.33 to 1.22 for the same code. The ratio is the median of
 * the pairs, with their interquartile range. Scenarios differ in size
 * (Redlock's has five servers), so the kernel events per second are given
 * too: the rate at which each model simulates.
 */
async function storesBench(pairs: number, batch: number): Promise<Record<string, unknown>> {
  const kinds = STORE_KINDS.filter((k) => BUILTIN_SCENARIOS[k.hazardScenario] !== undefined);
  const out: Record<string, unknown> = {
    measured: `compiled package, a process per scenario with V8 flags ${WORKER_EXEC_ARGV.join(' ')}; ${pairs} pairs of ${batch}-run batches, the store's and Redis's in turn`,
  };
  for (const k of kinds) {
    const sets = k.hazardSets ?? [];
    const scenario = [k.hazardScenario, ...sets.map((x) => `--set ${x}`)].join(' ');
    const isRedis = k.hazardScenario === 'pause-past-expiry' && sets.length === 0;
    const redis = await BatchServer.start('pause-past-expiry', []);
    if (typeof redis === 'string') return { failed: `pause-past-expiry: ${redis}` };
    const mine = isRedis ? redis : await BatchServer.start(k.hazardScenario, sets);
    if (typeof mine === 'string') {
      redis.close();
      out[k.kind] = { scenario, failed: mine };
      continue;
    }
    const rates: number[] = [];
    const ratios: number[] = [];
    try {
      for (let p = 0; p < pairs; p++) {
        const [first, second] = p % 2 === 0 ? [redis, mine] : [mine, redis];
        const msFirst = await first.batch(batch);
        const msSecond = await second.batch(batch);
        const redisMs = first === redis ? msFirst : msSecond;
        const mineMs = first === redis ? msSecond : msFirst;
        rates.push((batch * 1000) / mineMs);
        ratios.push(redisMs / mineMs);
      }
    } catch (e) {
      out[k.kind] = { scenario, failed: e instanceof Error ? e.message : String(e) };
      continue;
    } finally {
      redis.close();
      mine.close();
    }
    const rate = stat(rates).median;
    const ratio = quartiles(ratios);
    out[k.kind] = {
      scenario,
      runsPerSec: rate,
      ratioToRedis: ratio.median,
      // The middle half of the pairs: how far one pair may stray on a shared machine.
      ratioToRedisIqr: ratio.iqr,
      kernelEventsPerRun: mine.kernelEventsPerRun,
      kernelEventsPerSec: Math.round(rate * mine.kernelEventsPerRun),
      eventRateRatioToRedis: quartiles(ratios.map((x) => (x * mine.kernelEventsPerRun) / redis.kernelEventsPerRun)).median,
    };
  }
  return out;
}

const SIMPY_PYTHON = '/usr/bin/python3';

/** One run of the workload in a fresh process: Locklab's modes on the compiled package (as `locklab run`), SimPy through Debian's Python. */
function workloadOnce(impl: string, cycles: number): number | string {
  const r =
    impl === 'simpy'
      ? spawnSync(SIMPY_PYTHON, [new URL('./peers/simpy_workload.py', import.meta.url).pathname, String(cycles)], { encoding: 'utf8' })
      : spawnSync(process.execPath, ['--import', 'tsx', new URL('./workload-run.ts', import.meta.url).pathname, impl, String(cycles), '--compiled'], {
          encoding: 'utf8',
        });
  if (r.status !== 0) return (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n').slice(-1)[0]!;
  return (JSON.parse(r.stdout) as { cyclesPerSec: number }).cyclesPerSec;
}

/**
 * The workload of bench/workload.ts four ways, in fresh processes, taken in
 * turn round after round so that the machine's drift hits all alike; the
 * ratios are taken round by round, then their median.
 */
function workloadBench(rounds: number, cycles: number): Record<string, unknown> {
  const impls = ['kept', 'streaming', 'simpy', 'bare'];
  const rates = new Map<string, number[]>(impls.map((i) => [i, []]));
  const missing = new Map<string, string>();
  const haveSimpy = existsSync(SIMPY_PYTHON) && spawnSync(SIMPY_PYTHON, ['-c', 'import simpy'], { encoding: 'utf8' }).status === 0;
  if (!haveSimpy) missing.set('simpy', `SimPy 3 is not installed for ${SIMPY_PYTHON} (Debian: apt-get install python3-simpy3)`);
  for (let r = 0; r < rounds; r++) {
    for (const impl of impls) {
      if (missing.has(impl)) continue;
      const v = workloadOnce(impl, cycles);
      if (typeof v === 'string') missing.set(impl, v);
      else rates.get(impl)!.push(v);
    }
  }
  const med = (xs: number[]): number | null => (xs.length === 0 ? null : stat(xs).median);
  const ratio = (a: string, b: string): number | null => {
    const xs = rates.get(a)!;
    const ys = rates.get(b)!;
    if (xs.length === 0 || ys.length === 0) return null;
    const rs = xs.map((x, i) => x / (ys[i] ?? ys[ys.length - 1]!)).sort((p, q) => p - q);
    return Math.round(rs[rs.length >> 1]! * 100) / 100;
  };
  return {
    workload:
      'bench/workload.ts: 50 clients, one Redis key, TTL 1 s, latency 0.5–1.5 ms, polls 100 ± 10 ms, exponential work (mean 20 ms), 1 % pauses of 0–2 s',
    cyclesPerRun: cycles,
    rounds,
    cyclesPerSec: Object.fromEntries(impls.map((i) => [i, missing.has(i) ? missing.get(i) : med(rates.get(i)!)])),
    ratios: {
      keptToSimpy: ratio('kept', 'simpy'),
      streamingToSimpy: ratio('streaming', 'simpy'),
      streamingToBare: ratio('streaming', 'bare'),
    },
    targets: { keptToSimpy: 2, streamingToSimpy: 4 },
  };
}

/** One fresh process of bench/events-run.ts at `events` kernel events. */
function eventsOnce(events: number): { usPerEvent: number; peakRssMiB: number; heapMiB: number[] } | string {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', new URL('./events-run.ts', import.meta.url).pathname, String(events)], {
    encoding: 'utf8',
  });
  if (r.status !== 0) return (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n').slice(-1)[0]!;
  return JSON.parse(r.stdout) as { usPerEvent: number; peakRssMiB: number; heapMiB: number[] };
}

/**
 * The cost of a kernel event at each size of run, the workload judged as it
 * runs with no trace kept, each size in fresh processes taken in turn, each
 * timed after a warm-up run (bench/events-run.ts); and
 * the peak memory of each and what the run holds as it goes, which say
 * whether memory grows with the run.
 * 10^8 events takes about two minutes here; `npm run bench -- --events-max
 * 1000000` leaves it out.
 */
function eventsBench(rounds: number, sizes: readonly number[]): Record<string, unknown> {
  const us = new Map<number, number[]>(sizes.map((n) => [n, []]));
  const rss = new Map<number, number[]>(sizes.map((n) => [n, []]));
  const heap = new Map<number, number[]>();
  const failed = new Map<number, string>();
  for (let r = 0; r < rounds; r++) {
    for (const n of sizes) {
      if (failed.has(n) || (r > 0 && n > 1_000_000)) continue;
      const v = eventsOnce(n);
      if (typeof v === 'string') failed.set(n, v);
      else {
        us.get(n)!.push(v.usPerEvent);
        rss.get(n)!.push(v.peakRssMiB);
        if (v.heapMiB.length > 0) heap.set(n, v.heapMiB);
      }
    }
  }
  const med = (xs: number[]): number | null => {
    if (xs.length === 0) return null;
    const sorted = [...xs].sort((a, b) => a - b);
    return Math.round(sorted[sorted.length >> 1]! * 1000) / 1000;
  };
  const smallest = med(us.get(sizes[0]!)!);
  const largest = med(us.get(sizes[sizes.length - 1]!)!);
  return {
    workload: 'bench/workload.ts, stopped by its event budget at each size; streaming checker, no trace kept, no run hash',
    rounds,
    usPerEvent: Object.fromEntries(sizes.map((n) => [String(n), failed.get(n) ?? med(us.get(n)!)])),
    peakRssMiB: Object.fromEntries(sizes.map((n) => [String(n), failed.get(n) ?? med(rss.get(n)!)])),
    // What the run holds a third and two thirds of the way through, after a full collection: flat memory means these agree at every size.
    heapMiBDuringRun: Object.fromEntries([...heap].map(([n, xs]) => [String(n), xs])),
    largestToSmallest: smallest === null || largest === null ? null : Math.round((largest / smallest) * 100) / 100,
    // The dearest size's cost of an event against the cheapest's, whichever sizes they are.
    dearestToCheapest: (() => {
      const xs = sizes.map((n) => med(us.get(n)!)).filter((x): x is number => x !== null);
      return xs.length < 2 ? null : Math.round((Math.max(...xs) / Math.min(...xs)) * 100) / 100;
    })(),
    target: 'largest within 1.5 × the smallest',
  };
}

/**
 * Start-up of the compiled command, whole processes taken in turn with
 * `node -e 0`: milliseconds of wall time from spawn to exit, medians.
 */
function startupBench(rounds: number): Record<string, unknown> {
  const bin = new URL('../sim/cli/bin.mjs', import.meta.url).pathname;
  if (!existsSync(new URL('../dist/lib/cli.js', import.meta.url))) return { missing: 'dist/lib/cli.js: run `npm run build:lib` first' };
  const timeMs = (args: string[]): number => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return performance.now() - t0;
  };
  const run: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < rounds; i++) {
    run.push(timeMs([bin, 'run', 'pause-past-expiry']));
    bare.push(timeMs(['-e', '0']));
  }
  return {
    command: 'node sim/cli/bin.mjs run pause-past-expiry (compiled JS, precompiled scenario validator)',
    runMs: stat(run),
    nodeMs: stat(bare),
    targetRunMs: 300,
  };
}

async function main(): Promise<void> {
  const withBrowser = !process.argv.includes('--no-browser');
  const maxAt = process.argv.indexOf('--events-max');
  const eventsMax = maxAt === -1 ? 100_000_000 : Number(process.argv[maxAt + 1]);
  const sizes = [10_000, 1_000_000, ...(eventsMax > 1_000_000 ? [eventsMax] : [])];
  const withReal = !process.argv.includes('--no-real');
  const report: Record<string, unknown> = {
    node: process.version,
    // The machine is shared: its load (1, 5 and 15 minutes) when the bench began, and when it ended, below.
    loadAverageAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
    kernel: {
      workload: 'bench-contention: 40 clients, 200 acquisitions each, one key, blocking, 60 random pauses',
      targetEventsPerSec: 1_000_000,
      ...contention(7),
    },
    kernelStreaming: {
      workload: 'the same, judged by the streaming checker as it runs, no events kept',
      withoutRunHash: contentionStreaming(7, false),
      withRunHash: contentionStreaming(7, true),
    },
    pausePastExpiry: { targetRunsPerSec: 50_000, ...runsPerSec('pause-past-expiry', 7), inSweepWorker: runsInWorkerProcess('pause-past-expiry', 7) },
    // 100,000 cycles a run, as the issue that set the targets measured them: a fresh process's JIT warm-up is then a small part of each run.
    workload: workloadBench(5, 100_000),
    eventCost: eventsBench(3, sizes),
    startup: startupBench(10),
  };
  report.stores = { target: 'each at least 0.5 × Redis', ...(await storesBench(40, 400)) };
  report.sweep = await runSweepBench();
  const browserBench = new URL('./browser.ts', import.meta.url);
  if (withBrowser && existsSync(browserBench)) {
    const mod = (await import(browserBench.href)) as { runBrowserBench: () => Promise<Record<string, unknown>> };
    report.browser = {
      targets: {
        firstRenderMs: '< 1000',
        lessonOpenAndStoryMs: '< 1000',
        initialJsGzipKb: '<= 250',
        sandbox200ImportToIdleMs: '< 1500',
        sandbox200KeystrokeMs: '< 50',
      },
      ...(await mod.runBrowserBench()),
    };
  }
  report.loadAverageAtEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  if (withReal) {
    // In a fresh process: the figures before this one leave a large heap (the browser's bench loads Vite) that would tax whichever side allocates more.
    const r = spawnSync(process.execPath, ['--import', 'tsx', new URL('./real.ts', import.meta.url).pathname], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    report.real = r.status === 0 ? (JSON.parse(r.stdout) as Record<string, unknown>) : `bench/real.ts exited ${r.status ?? r.signal}`;
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

await main();
