import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import pc from 'picocolors';
import type { Colors } from 'picocolors/types.js';
import { InputError } from '../errors.js';
import { LIMITS, limitText } from '../scenario/limits.js';
import { normalizeScenario } from '../scenario/normalize.js';
import { applyOverrides, parseOverride, type Override } from '../scenario/set.js';
import type { Scenario } from '../scenario/types.js';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS } from '../scenarios/index.js';
import { Checker } from '../check/checker.js';
import { CheckError } from '../check/refuse.js';
import type { Verdict } from '../check/verdict.js';
import { canonicalJson, runHash } from '../trace/hash.js';
import { STORE_TABLE } from '../stores/registry.js';
import type { TraceDocument } from '../trace/types.js';
import { readJsonFile, readLines, scenarioFileText } from './files.js';
import { formatStop, formatVerdict } from './format.js';
import { lockCyclesOf, type LockCycles } from '../check/summary.js';
import { addLessonCommands } from './lessons-commands.js';
import { isJsonl, runCommand, RunInterrupted, type RunOptions } from './run-command.js';
import { registerRealCommands } from './real.js';
import { readScenarioRef } from './scenario-ref.js';
import { parseSeed } from './seed-option.js';
import { addSweepCommands } from './sweep-commands.js';

/** Exit codes, as the README documents them. */
export const EXIT = { ok: 0, failOn: 1, badInput: 2, budget: 3 } as const;

type Outcome = TraceDocument['verdict']['outcome'];
const FAIL_LEVELS: Readonly<Record<string, readonly Outcome[]>> = { unsafe: ['unsafe'], fenced: ['unsafe', 'fenced'] };

/** Output streams, injectable so tests can run the CLI in-process. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether standard output is a colour terminal. */
  colour: boolean;
}

const processIo: Io = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  colour: process.stdout.isTTY === true && !('NO_COLOR' in process.env) && process.env.TERM !== 'dumb',
};

function collect(value: string, previous: Override[]): Override[] {
  if (previous.length >= LIMITS.maxOverrides)
    throw new InputError('--set', [{ path: '', message: `is given more than ${LIMITS.maxOverrides} times; ${limitText('maxOverrides')}` }]);
  return [...previous, parseOverride(value)];
}

function parseOutFile(value: string): string {
  if (value === '') throw new InvalidArgumentError('expected a file name, got an empty one.');
  return value;
}

/** Finds a scenario by file path or built-in name and returns it normalized, with its source name. */
export function loadScenario(ref: string): { scenario: Scenario; source: string; builtin: boolean } {
  if (ref === '') throw new InputError('scenario', [{ path: '', message: 'expected a file or a built-in name, got an empty one' }]);
  const found = readScenarioRef(ref, '; see `locklab scenarios`');
  return { scenario: normalizeScenario(found.document, found.label), source: ref, builtin: found.builtin };
}

function describeOutcome(stored: unknown): string {
  const o = (stored as { outcome?: unknown } | null)?.outcome;
  return typeof o === 'string' ? o : 'unknown';
}

function exitFor(stop: TraceDocument['stop'], outcome: Outcome, failOn: string | undefined): number {
  if (stop.reason !== 'completed') return EXIT.budget;
  if (failOn !== undefined && FAIL_LEVELS[failOn]?.includes(outcome) === true) return EXIT.failOn;
  return EXIT.ok;
}

function parseCount(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError(`expected a number of lines (0 or more), got "${value}".`);
  return Number(value);
}

/** What `check` reads from a trace file, whichever its form. */
interface ReadTrace {
  scenario: Scenario;
  seed: number;
  stop: TraceDocument['stop'];
  eventCount: number;
  runHash: string;
  verdict: Verdict;
  stored: unknown;
  cycles: LockCycles;
}

/**
 * Reading a trace back takes the trace schema's validators (1.8 MB,
 * precompiled) and Ajv: loaded by `check` when it runs, so the other
 * commands start without them.
 */
async function traceReaders(): Promise<typeof import('../trace/validate.js') & typeof import('../trace/jsonl-read.js')> {
  const [validate, jsonl] = await Promise.all([import('../trace/validate.js'), import('../trace/jsonl-read.js')]);
  return { ...validate, ...jsonl };
}

/** A trace document (one JSON value): read whole, validated, judged. */
async function readTraceDocument(file: string): Promise<ReadTrace> {
  const { validateTrace } = await traceReaders();
  const doc = validateTrace(readJsonFile(file, 'trace'), file);
  let verdict: Verdict;
  const checker = new Checker();
  try {
    for (const e of doc.events) checker.push(e);
    verdict = checker.finish();
  } catch (err) {
    if (err instanceof CheckError) throw new InputError(file, [{ path: `events[${err.seq}].${err.field}`, message: err.detail }]);
    throw err;
  }
  return {
    scenario: doc.scenario,
    seed: doc.seed,
    stop: doc.stop,
    eventCount: doc.events.length,
    runHash: runHash(doc),
    verdict,
    stored: (doc as { verdict?: unknown }).verdict,
    cycles: lockCyclesOf(checker.intervals),
  };
}

/** A JSON Lines trace (`run --out *.jsonl`, `--json --stream`): read, validated and judged line by line, at any length. */
async function readJsonlTrace(file: string): Promise<ReadTrace> {
  const { JsonlTraceReader } = await traceReaders();
  const reader = new JsonlTraceReader(file);
  readLines(file, (text, lineNo) => reader.line(text, lineNo));
  const t = reader.finish();
  return { ...t, stored: t.storedVerdict };
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  const c: Colors = pc.createColors(io.colour);
  let code: number = EXIT.ok;
  const program = new Command('locklab')
    .description('Deterministic simulator and teaching lab for distributed locks.')
    .version('0.1.0')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (s, write) => write(s) });

  const failOn = new Option('--fail-on <outcome>', 'exit 1 when the outcome is this bad: unsafe, or fenced (fenced or unsafe)').choices(['unsafe', 'fenced']);

  program
    .command('run')
    .description('Run a scenario (a JSON file or a built-in name) and print its timeline and verdict.')
    .argument('<scenario>', 'scenario file, or built-in name (see `locklab scenarios`)')
    .option('--seed <n>', 'seed for every random draw (default: the scenario\'s "seed")', parseSeed)
    .option('--set <path=value>', 'override a scenario field, e.g. resource.fencing=true or clients.B.ttlMs=500 (repeatable)', collect, [] as Override[])
    .option('--json', 'print the trace document (JSON) instead of the timeline')
    .option('--stream', 'with --json: print the trace as JSON Lines while the run goes, keeping none of it (any length)')
    .option('--out <file>', 'also write the trace to this file (a regular file, written whole or not at all); *.jsonl is JSON Lines, streamed', parseOutFile)
    .option('--head <n>', 'print only the first n events of the timeline (then the run keeps no trace)', parseCount)
    .option('--tail <n>', 'print only the last n events of the timeline (then the run keeps no trace)', parseCount)
    .option(
      '--code',
      "first print what each client runs, as the PHP (Symfony Lock's calls) its settings or steps stand for, numbered; the timeline then gives each client event's line",
    )
    .addOption(failOn)
    .addHelpText(
      'after',
      `
Examples:
  locklab run pause-past-expiry
  locklab run pause-past-expiry --code
  locklab run pause-past-expiry --set resource.fencing=true
  locklab run my-scenario.json --seed 42 --json > trace.json
  locklab run long.json --out trace.jsonl --head 20 --tail 20

A run that keeps its whole trace (--json, --out *.json, the full timeline) stops at
1,000,000 kernel events (maxTraceEvents); --json --stream, --out *.jsonl and
--head/--tail keep none and run to the scenario's budget.

Exit codes: 0 the run completed (whatever its outcome), 1 the outcome met --fail-on,
2 bad input, 3 the run stopped at its event or time budget, 130 interrupted with Ctrl-C
(143 SIGTERM, 129 SIGHUP): a file --out was writing is removed, not left half-written.`,
    )
    .action(async (ref: string, opts: RunOptions) => {
      const loaded = loadScenario(ref);
      const scenario = applyOverrides(loaded.scenario, opts.set);
      try {
        const r = await runCommand(ref, scenario, opts, io, c);
        code = exitFor(r.end.stop, r.outcome, opts.failOn);
      } catch (err) {
        if (!(err instanceof RunInterrupted)) throw err;
        io.err(`locklab: ${ref}: ${err.message}\n`);
        code = err.exitCode;
      }
    });

  program
    .command('check')
    .description('Judge a trace file (from `locklab run --json` or the real runner) and print its verdict.')
    .argument('<trace>', 'trace JSON file, or a JSON Lines trace (*.jsonl, read line by line at any length)')
    .option('--json', 'print the verdict as JSON')
    .addOption(failOn)
    .action(async (file: string, opts: { json?: boolean; failOn?: string }) => {
      const t = await (isJsonl(file) ? readJsonlTrace(file) : readTraceDocument(file));
      const { stored, verdict } = t;
      const differs = stored !== undefined && canonicalJson(stored) !== canonicalJson(verdict);
      const end = { scenario: t.scenario, stop: t.stop, traceEvents: t.eventCount };
      if (opts.json === true)
        io.out(`${JSON.stringify({ runHash: t.runHash, stop: t.stop, ...(differs ? { storedVerdictDiffers: true } : {}), verdict }, null, 2)}\n`);
      else {
        io.out(
          `${c.bold(t.scenario.name === undefined ? file : String(t.scenario.name))}${c.dim(` · seed ${t.seed} · ${t.eventCount} events · run ${t.runHash.slice(0, 12)}`)}\n`,
        );
        io.out(`${formatVerdict({ verdict }, c, t.cycles)}\n`);
        if (t.stop.reason !== 'completed') io.out(`${formatStop(end, c)}\n`);
      }
      if (differs)
        io.err(
          `locklab: ${file}: the verdict stored in the file differs from the one recomputed from its events (outcome ${describeOutcome(stored)} stored, ${verdict.outcome} now); the recomputed one is shown\n`,
        );
      if (t.stop.reason !== 'completed') {
        io.err(
          `locklab: ${file}: the run stopped at its ${t.stop.reason === 'event-budget' ? 'event' : 'time'} budget, so this verdict covers only what happened before it\n`,
        );
        code = EXIT.budget;
      } else code = opts.failOn !== undefined && FAIL_LEVELS[opts.failOn]?.includes(verdict.outcome) === true ? EXIT.failOn : EXIT.ok;
    });

  program
    .command('scenarios')
    .description('List the built-in scenarios, or print one as a scenario file to copy and edit.')
    .argument('[name]', 'a built-in scenario: print it as JSON (`locklab scenarios pause-past-expiry > mine.json`)')
    .option('--json', 'print the list as JSON')
    .action((name: string | undefined, opts: { json?: boolean }) => {
      if (name !== undefined) {
        const raw = BUILTIN_SCENARIOS[name];
        if (raw === undefined)
          throw new InputError(name, [{ path: '', message: `no built-in scenario of that name (built-ins: ${BUILTIN_NAMES.join(', ')})` }]);
        // Saved where the command ran, most likely: its $schema is the path from there to the schema, so an editor checks the copy.
        io.out(scenarioFileText(raw as object, process.cwd()));
        return;
      }
      const list = BUILTIN_NAMES.map((name) => {
        const s = normalizeScenario(BUILTIN_SCENARIOS[name], `built-in ${name}`);
        return { name, store: s.store.kind, summary: s.summary };
      });
      if (opts.json === true) {
        io.out(`${JSON.stringify(list, null, 2)}\n`);
        return;
      }
      const w = Math.max(...list.map((s) => s.name.length));
      const ws = Math.max(...list.map((s) => s.store.length));
      for (const s of list) io.out(`${c.bold(s.name.padEnd(w))}  ${c.dim(s.store.padEnd(ws))}  ${s.summary}\n`);
    });

  program
    .command('stores')
    .description('Print the capability table of the modelled lock stores.')
    .option('--json', 'print the table as JSON: an array of objects, one per store, each with a "name"')
    .action((opts: { json?: boolean }) => {
      if (opts.json === true) {
        io.out(`${JSON.stringify(STORE_TABLE, null, 2)}\n`);
        return;
      }
      const yes = (b: boolean): string => (b ? 'yes' : 'no');
      const rows = STORE_TABLE.map((r) => [r.name, r.scope, yes(r.blocking), yes(r.expiring), yes(r.sharing), r.fencingToken ?? 'none', r.hazardScenario]);
      const head = ['store', 'scope', 'blocking', 'expiring', 'sharing', 'fencing token', 'hazard scenario'];
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
      const line = (cells: string[]): string =>
        cells
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd();
      io.out(`${c.bold(line(head))}\n`);
      for (const r of rows) io.out(`${line(r)}\n`);
      io.out('\nLoses the lock without a release when:\n');
      for (const r of STORE_TABLE) io.out(`  ${c.bold(r.name)}: ${r.losesLockWhen.join('; ')}\n`);
    });

  addLessonCommands(program, io, c, (n) => (code = n));
  registerRealCommands(program, { io, c, loadScenario, collect, setCode: (n) => (code = n) });
  addSweepCommands(program, io, c, loadScenario, (next) => (code = next));

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
      return EXIT.badInput;
    }
    if (err instanceof InputError) {
      io.err(
        `${err.message
          .split('\n')
          .map((l) => `locklab: ${l}`)
          .join('\n')}\n`,
      );
      return EXIT.badInput;
    }
    throw err;
  }
}
