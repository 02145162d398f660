import { Command, InvalidArgumentError, Option } from 'commander';
import type { Colors } from 'picocolors/types.js';
import { InputError } from '../errors.js';
import { serializeChromeTrace } from '../export/chrome.js';
import type { SweepAggregate } from '../odds/aggregate.js';
import { defaultBatchSize, planSweep, type SweepPlan } from '../odds/plan.js';
import { parseSeedRange, parseVary, type Vary } from '../odds/range.js';
import { keysApart } from '../check/summary.js';
import { sweepLeaseNotes } from '../scenario/short-lease.js';
import { reportCsv, reportJson, reportText, runs, sweepReport, type SweepReport } from '../odds/report.js';
import { shrinkScenario } from '../odds/shrink.js';
import { grouped, LIMITS, limitText } from '../scenario/limits.js';
import { parseOverride, applyOverrides, type Override } from '../scenario/set.js';
import { counted } from '../words.js';
import { formatDuration } from '../time.js';
import type { Scenario } from '../scenario/types.js';
import { dirname, resolve } from 'node:path';
import { runScenario } from '../run.js';
import { overrideText, shellQuote } from '../reproduce.js';
import { AtomicFile, readJsonFile, readLines, scenarioFileText, writeFileAtomic } from './files.js';
import { TRACE_SCHEMA, type TraceDocument, type TraceEvent } from '../trace/types.js';
import type { Io } from './main.js';
import { parseSeed } from './seed-option.js';

/**
 * What only sweeps and workers use — worker processes, the queue's Redis
 * client, the progress bar — loaded when one starts: loading them took a
 * good part of every other command's start-up.
 */
async function sweepMachinery() {
  const [local, pool, queue, worker, redisUrl, version, progress] = await Promise.all([
    import('../sweep/local.js'),
    import('../sweep/pool.js'),
    import('../sweep/queue-coordinator.js'),
    import('../sweep/queue-worker.js'),
    import('../sweep/redis-url.js'),
    import('../sweep/version.js'),
    import('cli-progress'),
  ]);
  return {
    sweepLocally: local.sweepLocally,
    allCores: pool.allCores,
    sweepOnQueue: queue.sweepOnQueue,
    startQueueWorker: worker.startQueueWorker,
    parseRedisUrl: redisUrl.parseRedisUrl,
    codeVersion: version.codeVersion,
    cliProgress: progress.default,
  };
}

/** Exit code of a sweep stopped by Ctrl-C: the partial aggregate was printed. */
export const EXIT_INTERRUPTED = 130;

function positive() {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new InvalidArgumentError(`expected a whole number above zero, got "${value}".`);
    return Number(value);
  };
}

/**
 * A JSON Lines trace read back whole, for a format that lists every event
 * (a Chrome trace): held to maxTraceEvents, as a run that keeps its trace
 * is, since the export holds every event at once.
 */
async function readJsonlForExport(file: string): Promise<TraceDocument> {
  const { JsonlTraceReader } = await import('../trace/jsonl-read.js');
  const events: TraceEvent[] = [];
  const reader = new JsonlTraceReader(file, (e, lineNo) => {
    if (events.length === LIMITS.maxTraceEvents)
      throw new InputError(file, [
        {
          path: '',
          message: `has more than ${grouped(LIMITS.maxTraceEvents)} events (line ${lineNo}), more than an export holds at once; ${limitText('maxTraceEvents')}`,
        },
      ]);
    events.push(e);
  });
  readLines(file, (text, lineNo) => reader.line(text, lineNo));
  const t = reader.finish();
  return { schema: TRACE_SCHEMA, source: t.source, scenario: t.scenario, seed: t.seed, stop: t.stop, events, verdict: t.verdict };
}

/** A count of worker processes: from 1 to maxWorkers. */
function workerCount() {
  return (value: string): number => {
    const n = positive()(value);
    if (n > LIMITS.maxWorkers)
      throw new InvalidArgumentError(`expected at most ${LIMITS.maxWorkers} worker processes, got ${value}; ${limitText('maxWorkers')}.`);
    return n;
  };
}

function collectOverride(value: string, previous: Override[]): Override[] {
  return [...previous, parseOverride(value)];
}

function collectVary(value: string, previous: Vary[]): Vary[] {
  return [...previous, parseVary(value)];
}

function setText(o: Override): string {
  return `${o.path}=${typeof o.value === 'string' ? o.value : JSON.stringify(o.value)}`;
}

/** A non-terminal's progress is quiet for a sweep this short (ms), so a quick sweep in a script or a test logs nothing. */
const PLAIN_PROGRESS_AFTER_MS = 3000;
/** ... and then a line this often (ms): a CI log shows a long sweep is alive without a line per batch. */
const PLAIN_PROGRESS_EVERY_MS = 10_000;

/**
 * Progress on stderr: a bar redrawn in place on a terminal; elsewhere (a CI
 * log, a pipe, a file) a plain line every ten seconds once the sweep has
 * run for a few, and a last one at the end. Never on stdout, which holds
 * the report.
 */
function progressBar(cliProgress: typeof import('cli-progress'), show: 'bar' | 'lines' | 'none'): { update(done: number, total: number): void; stop(): void } {
  if (show === 'none') return { update: () => undefined, stop: () => undefined };
  let lines = 0;
  const bar =
    show === 'bar'
      ? new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format: 'sweep [{bar}] {percentage}% · {value}/{total} runs · {eta_formatted} left',
            // Counts grouped as the report writes them: 1,500/15,000 runs.
            formatValue: (v, o, type) => (type === 'value' || type === 'total' ? grouped(v) : cliProgress.Format.ValueFormat(v, o, type)),
            hideCursor: true,
            clearOnComplete: true,
          },
          cliProgress.Presets.shades_classic,
        )
      : new cliProgress.SingleBar({
          stream: process.stderr,
          // Its first line has no time left to say (one count gives no rate), and its last none to give.
          format: (_o, p) => {
            const left = lines++ === 0 || p.value >= p.total || !Number.isFinite(p.eta) ? '' : ` · about ${formatDuration(Math.round(p.eta) * 1e6)} left`;
            return `sweep: ${Math.floor(p.progress * 100)}% · ${grouped(p.value)}/${grouped(p.total)} runs${left}`;
          },
          noTTYOutput: true,
          notTTYSchedule: PLAIN_PROGRESS_EVERY_MS,
          clearOnComplete: true,
        });
  const since = performance.now();
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        if (show === 'lines' && performance.now() - since < PLAIN_PROGRESS_AFTER_MS) return;
        bar.start(total, show === 'bar' ? 0 : done);
        started = true;
      }
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

interface SweepOpts {
  seeds: string;
  vary: Vary[];
  set: Override[];
  workers?: number;
  batch?: number;
  queue?: string;
  json?: boolean;
  csv?: boolean;
  out?: string;
  shrink?: string;
  quiet?: boolean;
}

type LoadScenario = (ref: string) => { scenario: Scenario; source: string; builtin: boolean };

/** The `sweep`, `worker`, `shrink` and `export` commands. */
export function addSweepCommands(program: Command, io: Io, c: Colors, loadScenario: LoadScenario, setCode: (code: number) => void): void {
  const format = new Option('--format <format>', 'the output format').choices(['chrome']).default('chrome');

  program
    .command('sweep')
    .description('Run a scenario over many seeds (and a grid of varied parameters) and report how often it breaks, with 95 % intervals.')
    .argument('<scenario>', 'scenario file, or built-in name (see `locklab scenarios`)')
    .option('--seeds <from..to>', 'the seeds to run, both included', '1..1000')
    .option('--vary <path=a..b:step>', 'vary a field over a range (or a list: path=v1,v2); repeatable, one grid axis each', collectVary, [] as Vary[])
    .option('--set <path=value>', 'override a scenario field for every run (repeatable)', collectOverride, [] as Override[])
    .option('--workers <n>', 'worker processes on this machine (default: every core; never more than the sweep has batches)', workerCount())
    .option('--batch <n>', 'seeds per batch (default: about 16 batches per worker)', positive())
    .option('--queue <redis-url>', 'put the batches on a BullMQ queue for `locklab worker` processes instead, e.g. redis://127.0.0.1:6379')
    .option('--json', 'print the report as JSON')
    .option('--csv', 'print the report as CSV, one row per combination')
    .option('--out <file>', 'write the report to a file (JSON, or CSV with --csv or a .csv name); the text report is still printed, unless --json or --csv')
    .option('--shrink <file>', 'shrink the first unsafe run found and write the smallest scenario to this file')
    .option('--quiet', 'no progress on stderr (by default a bar on a terminal, else a line every 10 s once the sweep has run 3 s)')
    .addHelpText(
      'after',
      `
Examples:
  locklab sweep pause-past-expiry --seeds 1..100000
  locklab sweep pause-past-expiry --vary faults[0].durationMs=5000..15000:1000 --vary resource.fencing=false,true
  locklab sweep my-scenario.json --vary clients.A.ttlMs=10000..60000:10000 --csv --out odds.csv
  locklab sweep pause-past-expiry --queue redis://10.0.0.5:6379     # with \`locklab worker\` running elsewhere

Exit codes: 0 the sweep completed, 2 bad input, ${EXIT_INTERRUPTED} stopped with Ctrl-C (the partial report is printed, marked partial).`,
    )
    .action(async (ref: string, opts: SweepOpts) => {
      if (opts.json === true && opts.csv === true) throw new InputError('--json', [{ path: '', message: 'choose one of --json and --csv' }]);
      const { sweepLocally, allCores, sweepOnQueue, parseRedisUrl, codeVersion, cliProgress } = await sweepMachinery();
      const seeds = parseSeedRange(opts.seeds);
      const target = opts.queue === undefined ? undefined : parseRedisUrl(opts.queue);
      if (target !== undefined && opts.workers !== undefined)
        throw new InputError('--workers', [
          { path: '', message: 'sets threads on this machine; with --queue, start `locklab worker --threads N` where the work should run' },
        ]);
      const loaded = loadScenario(ref);
      const base = applyOverrides(loaded.scenario, opts.set);
      const threads = opts.workers ?? allCores();
      const seedCount = seeds.to - seeds.from + 1;
      const combos = opts.vary.reduce((n, v) => n * v.values.length, 1);
      const plan: SweepPlan = planSweep({
        scenarioRef: ref,
        base,
        sets: opts.set.map(setText),
        varies: opts.vary,
        seeds,
        codeVersion: codeVersion(),
        batchSize: opts.batch ?? defaultBatchSize(seedCount, combos, target === undefined ? threads : 4 * threads),
      });

      // The files are opened first: a target that cannot be written is refused before the sweep, not after it.
      const outFile = opts.out === undefined ? undefined : new AtomicFile(opts.out);
      let shrinkFile: AtomicFile | undefined;
      try {
        shrinkFile = opts.shrink === undefined ? undefined : new AtomicFile(opts.shrink);
        // A lease shorter than the work it covers breaks every cycle, most often a TTL written in seconds: said before the sweep, which may be long, and never refused.
        for (const note of sweepLeaseNotes(plan.combinations.map((cb) => cb.scenario))) io.err(`${note}\n`);
        const abort = new AbortController();
        const onSigint = (): void => abort.abort();
        process.once('SIGINT', onSigint);
        // A bar at a terminal, unless the report itself goes there as data; plain lines in a log, where nothing else says the sweep is alive.
        const tty = process.stderr.isTTY === true;
        const bar = progressBar(cliProgress, opts.quiet === true ? 'none' : !tty ? 'lines' : opts.json !== true && opts.csv !== true ? 'bar' : 'none');
        const started = performance.now();
        let agg: SweepAggregate;
        try {
          if (target === undefined) agg = await sweepLocally(plan, threads, (d, t) => bar.update(d, t), abort.signal);
          else {
            const q = await sweepOnQueue(plan, target, (d, t) => bar.update(d, t), abort.signal);
            agg = q.aggregate;
            bar.stop();
            for (const w of q.workers)
              io.err(
                c.dim(
                  `worker ${w.worker}: ${runs(w.seeds)} in ${counted(w.batches, 'batch', { plural: 'batches' })}, ${w.ms === 0 ? '∞' : grouped(Math.round((w.seeds / w.ms) * 1000))} runs/s while busy\n`,
                ),
              );
            if (q.stalled > 0) io.err(c.dim(`${counted(q.stalled, 'batch', { plural: 'batches' })} retried after a worker stopped mid-batch\n`));
            if (q.duplicates > 0) io.err(c.dim(`${counted(q.duplicates, 'batch result')} arrived twice and counted once\n`));
          }
        } finally {
          bar.stop();
          process.removeListener('SIGINT', onSigint);
        }
        const seconds = (performance.now() - started) / 1000;
        const report: SweepReport = sweepReport(agg, loaded.scenario.name);
        const text = opts.csv === true || opts.out?.toLowerCase().endsWith('.csv') === true ? reportCsv(report) : reportJson(report);
        if (outFile !== undefined) {
          outFile.write(text);
          outFile.commit();
          if (opts.json !== true && opts.csv !== true) io.out(reportText(report));
        } else if (opts.json === true || opts.csv === true) io.out(text);
        else io.out(reportText(report));
        // Clients on different keys never keep each other out, and no share above can show it: said once per way the keys are split.
        for (const note of new Set(plan.combinations.map((cb) => keysApart(cb.scenario.clients)))) if (note !== undefined) io.err(`${note}\n`);
        if (opts.json !== true && opts.csv !== true)
          io.err(c.dim(`${runs(report.runs)} in ${seconds.toFixed(1)} s (${grouped(Math.round(report.runs / seconds))} runs/s)\n`));
        if (opts.out !== undefined) io.err(c.dim(`Report written to ${opts.out}\n`));
        if (report.partial) {
          io.err(`locklab: sweep stopped early: the report covers the ${runs(report.runs)} counted so far and is marked partial\n`);
          setCode(EXIT_INTERRUPTED);
          return;
        }
        if (shrinkFile !== undefined) {
          const first = report.combinations.findIndex((cr) => cr.unsafe.k > 0);
          if (first === -1) {
            io.err('locklab: --shrink: no run of this sweep was unsafe, so there is nothing to shrink\n');
          } else {
            const combo = plan.combinations[first]!;
            const seed = report.combinations[first]!.failing[0]!.seed;
            const r = shrinkScenario(combo.scenario, seed);
            shrinkFile.write(scenarioFileText(r.scenario, dirname(resolve(opts.shrink!))));
            shrinkFile.commit();
            io.err(c.dim(`Smallest failure of seed ${seed} written to ${opts.shrink} (${counted(r.changes.length, 'change')}, ${runs(r.runs)})\n`));
          }
        }
      } finally {
        // Whatever was not put in place goes: a sweep stopped early, or nothing to shrink, leaves no file.
        outFile?.abort();
        shrinkFile?.abort();
      }
    });

  program
    .command('worker')
    .description('Take sweep batches from a BullMQ queue and run them on this machine until stopped (Ctrl-C).')
    .requiredOption('--queue <redis-url>', 'the Redis server the sweeps put their batches on, e.g. redis://10.0.0.5:6379')
    .option('--threads <n>', 'worker processes (default: every core)', workerCount())
    .option('--lock-ms <ms>', 'how long a batch stays locked without a heartbeat before another worker may take it over', positive(), 10000)
    .action(async (opts: { queue: string; threads?: number; lockMs: number }) => {
      const { startQueueWorker, allCores, parseRedisUrl, codeVersion } = await sweepMachinery();
      const target = parseRedisUrl(opts.queue);
      const w = await startQueueWorker(target, {
        threads: opts.threads ?? allCores(),
        codeVersion: codeVersion(),
        lockMs: opts.lockMs,
        log: (l) => io.err(`${l}\n`),
      });
      const stop = (): void => void w.close();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const how = await w.stopped;
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      if (how === 'refused') {
        io.err(`locklab: --queue ${target.url}: this worker refused a sweep of another code version (see above)\n`);
        setCode(2);
      }
    });

  program
    .command('shrink')
    .description('Find the smallest variant of an unsafe run (fewest faults and clients, shortest durations, fewest writes) and write it as a scenario.')
    .argument('<scenario>', 'scenario file, or built-in name')
    .option('--seed <n>', 'the seed whose run is unsafe (default: the scenario\'s "seed")', parseSeed)
    .option('--set <path=value>', 'override a scenario field first (repeatable)', collectOverride, [] as Override[])
    .option('--out <file>', 'where to write the smallest scenario (default: print it)')
    .action((ref: string, opts: { seed?: number; set: Override[]; out?: string }) => {
      const loaded = loadScenario(ref);
      const scenario = applyOverrides(loaded.scenario, opts.set);
      const seed = opts.seed ?? scenario.seed;
      // A rare failure is not at the scenario's own seed: a sweep finds the seeds that fail, and prints each.
      const sweep = ['locklab sweep', shellQuote(ref), ...opts.set.map((o) => `--set ${shellQuote(overrideText(o))}`)].join(' ');
      const r = shrinkScenario(scenario, seed, { whereToLook: `\`${sweep}\` lists the seeds whose run is unsafe, to shrink with --seed` });
      // With the path to the schema from where it is written, as a copied built-in has: the user's editor goes on checking it.
      const dir = opts.out === undefined ? process.cwd() : dirname(resolve(opts.out));
      const text = scenarioFileText(r.scenario, dir);
      if (opts.out === undefined) io.out(text);
      else writeFileAtomic(opts.out, text);
      io.err(
        `${c.bold(`${r.changes.length === 0 ? 'Already minimal' : counted(r.changes.length, 'change')}`)} in ${runs(r.runs)}; still ${r.outcome} at seed ${seed}\n`,
      );
      for (const ch of r.changes) io.err(`  • ${ch}\n`);
      if (opts.out !== undefined) io.err(c.dim(`Reproduce: locklab run ${opts.out}\n`));
    });

  program
    .command('export')
    .description("Convert a trace (a file, or a scenario run now) to another format: Chrome's trace-event JSON, which Perfetto opens.")
    .argument('<input>', 'a trace file (JSON from `locklab run --json`, or JSON Lines, *.jsonl), or a scenario file or built-in name to run first')
    .addOption(format)
    .option('--seed <n>', 'when running a scenario: its seed', parseSeed)
    .option('--set <path=value>', 'when running a scenario: override a field (repeatable)', collectOverride, [] as Override[])
    .option('--out <file>', 'write to this file instead of printing')
    .action(async (input: string, opts: { format: 'chrome'; seed?: number; set: Override[]; out?: string }) => {
      let doc: TraceDocument;
      const data = /\.json$/i.test(input) ? readJsonFile(input, 'trace') : undefined;
      if (/\.jsonl$/i.test(input)) doc = await readJsonlForExport(input);
      // The trace schema's validators (1.8 MB): loaded only when a trace is read.
      else if (data !== undefined && typeof data === 'object' && data !== null && 'events' in data)
        doc = (await import('../trace/validate.js')).validateTrace(data, input);
      else {
        const loaded = loadScenario(input);
        const scenario = applyOverrides(loaded.scenario, opts.set);
        doc = runScenario(scenario, opts.seed ?? scenario.seed);
      }
      const text = serializeChromeTrace(doc);
      if (opts.out === undefined) io.out(text);
      else {
        writeFileAtomic(opts.out, text);
        io.err(c.dim(`Chrome trace written to ${opts.out}: open it at ui.perfetto.dev or chrome://tracing\n`));
      }
    });
}
