import type { Colors } from 'picocolors/types.js';
import { CurrentSteps } from '../clients/step-marks.js';
import { InputError } from '../errors.js';
import { hasRandomFaults, overrideText, reproduceCommand, sweepCommand } from '../reproduce.js';
import { startJob } from '../run.js';
import { grouped, LIMITS, limitText } from '../scenario/limits.js';
import type { Override } from '../scenario/set.js';
import { shortLeaseNotes } from '../scenario/short-lease.js';
import { clientPhpLines, codeNote, type ClientPhp } from '../scenario/steps-php.js';
import type { Scenario } from '../scenario/types.js';
import { traceTextPieces } from '../trace/io.js';
import { JsonlWriter, jsonlHead, jsonlTail } from '../trace/jsonl.js';
import type { KeptTrace } from '../trace/kept.js';
import { TRACE_SCHEMA, type TraceDocument, type TraceEvent } from '../trace/types.js';
import { EventWindow } from './event-window.js';
import { AtomicFile } from './files.js';
import { formatStop, formatVerdict, stopReason, writeTimeline, type RunEnd } from './format.js';
import { lockCyclesOf } from '../check/summary.js';

export interface RunOptions {
  seed?: number;
  set: Override[];
  json?: boolean;
  stream?: boolean;
  out?: string;
  head?: number;
  tail?: number;
  failOn?: string;
  code?: boolean;
}

/** Output streams, as main.ts defines them. */
interface Out {
  out(text: string): void;
  err(text: string): void;
}

/** A trace file named *.jsonl is written as JSON Lines, as the run goes. */
export function isJsonl(file: string): boolean {
  return /\.jsonl$/i.test(file);
}

/**
 * The limits of `locklab run` on a run that keeps its trace: maxTraceEvents,
 * maxTraceBytes and HELD_TEXT_CHARS, but for tests, which need not run a
 * million events or write half a gigabyte to reach them.
 */
export interface RunCaps {
  readonly keptEvents: number;
  readonly traceBytes: number;
  readonly heldTextChars: number;
}

/** How much of a trace document `locklab run` holds while it measures it (see writeTraceText): 64 MiB of text, a run of about 300,000 events. */
export const HELD_TEXT_CHARS = 64 * 1024 * 1024;

export const RUN_CAPS: RunCaps = { keptEvents: LIMITS.maxTraceEvents, traceBytes: LIMITS.maxTraceBytes, heldTextChars: HELD_TEXT_CHARS };

/**
 * Writes the trace document a piece at a time (see traceTextPieces), or
 * refuses it, before any of it is written, when it is larger than `locklab
 * check` reads back: a trace written here must always be readable again.
 * The pieces are held while they are measured, up to `caps.heldTextChars`
 * characters; a longer document is measured to its end, let go, and made
 * again as it is written, so that it is never held whole.
 */
async function writeTraceText(
  doc: TraceDocument,
  events: KeptTrace,
  ref: string,
  caps: RunCaps,
  write: (piece: string) => void,
  pause: () => Promise<void>,
): Promise<void> {
  let held: string[] | undefined = [];
  let heldChars = 0;
  let bytes = 0;
  let measured = 0;
  for (const p of traceTextPieces(doc, events)) {
    bytes += Buffer.byteLength(p, 'utf8');
    if (++measured % PIECES_PER_PAUSE === 0) await pause();
    if (held === undefined) continue;
    heldChars += p.length;
    if (heldChars <= caps.heldTextChars) held.push(p);
    else held = undefined;
  }
  if (bytes > caps.traceBytes)
    throw new InputError(ref, [
      {
        path: 'budget.maxEvents',
        message: `the run recorded ${grouped(events.length)} trace events, too many for one trace file (${limitText('maxTraceBytes')}); lower budget.maxEvents, or stream the trace with --out trace.jsonl`,
      },
    ]);
  let n = 0;
  for (const p of held ?? traceTextPieces(doc, events)) {
    write(p);
    if (++n % PIECES_PER_PAUSE === 0) await pause();
  }
}

/** How many pieces of a trace document (4,096 events each) are made between two looks for an interruption: about a tenth of a second. */
const PIECES_PER_PAUSE = 8;

/** How many kernel events a run goes on for between two looks for an interruption: about a tenth of a second. */
const EVENTS_PER_SLICE = 100_000;

/** The signals that interrupt `locklab run`, and the exit code of each (128 plus its number, as a shell reports it). */
const INTERRUPTS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/**
 * `locklab run` was interrupted (Ctrl-C, SIGTERM, SIGHUP): the file it was
 * writing is gone, not left half-written. `events`: the kernel events
 * the run had processed.
 */
export class RunInterrupted extends Error {
  constructor(
    readonly signal: keyof typeof INTERRUPTS,
    readonly events: number,
    readonly out: string | undefined,
  ) {
    super(`interrupted (${signal}) after ${grouped(events)} kernel events${out === undefined ? '' : `; nothing was written to ${out}`}`);
  }

  get exitCode(): number {
    return INTERRUPTS[this.signal];
  }
}

/**
 * Listens for the interrupting signals while `locklab run` works, in place
 * of Node's default (which ends the process at once, and would leave the
 * temporary file of --out behind). The run stops at its next pause, a
 * tenth of a second at most. Once nothing is left to write but the
 * timeline, the default comes back (`close`): a long timeline printing to
 * a terminal stops at Ctrl-C, as any command's output does.
 */
class Interrupts {
  private signal: keyof typeof INTERRUPTS | undefined;
  private readonly listeners = (Object.keys(INTERRUPTS) as Array<keyof typeof INTERRUPTS>).map((signal) => {
    const listener = (): void => {
      this.signal ??= signal;
    };
    process.on(signal, listener);
    return { signal, listener };
  });

  /** Lets the signals in (a turn of the event loop), and throws RunInterrupted if one came. */
  async pause(events: () => number, out: string | undefined): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    if (this.signal !== undefined) throw new RunInterrupted(this.signal, events(), out);
  }

  /** Removes the listeners (again, harmlessly, after `close`). */
  release(): void {
    for (const { signal, listener } of this.listeners) process.removeListener(signal, listener);
  }

  /** Gives the signals back to Node's default (the process ends at once); throws RunInterrupted if one came before. */
  close(events: () => number, out: string | undefined): void {
    this.release();
    if (this.signal !== undefined) throw new RunInterrupted(this.signal, events(), out);
  }
}

/** What each client runs, as PHP, under its name and machine, for `--code`. */
export function formatCode(scenario: Scenario, c: Colors): string {
  const blocks = scenario.clients.map((client) => {
    const lines = clientPhpLines(scenario, client).lines;
    const w = String(lines.length).length;
    const code = lines.map((l, i) => `  ${c.cyan(String(i + 1).padStart(w))}  ${l.text}`).join('\n');
    return `${c.bold(client.name)} ${c.dim(`on ${client.machine}`)}\n${code}`;
  });
  const note = codeNote(scenario);
  return [
    c.bold('What the clients run, as PHP:') +
      (note === null ? '' : `\n${c.dim(note)}`) +
      c.dim("\nLines are numbered; the timeline's line column says which line each client event happened on."),
    ...blocks,
  ].join('\n\n');
}

/**
 * The line of its client's code (numbered from 1, as formatCode prints it)
 * that a process on the step at `path` is on: the client's own, or the
 * client's that forked it; undefined where it is on no line.
 */
export function codeLineFinder(scenario: Scenario): (process: string, path: string | null | undefined) => number | undefined {
  const php = new Map<string, ClientPhp>();
  return (process, path) => {
    if (typeof path !== 'string') return undefined;
    const name = process.split('/')[0]!;
    let code = php.get(name);
    if (code === undefined) {
      const client = scenario.clients.find((x) => x.name === name);
      if (client === undefined) return undefined;
      code = clientPhpLines(scenario, client);
      php.set(name, code);
    }
    const i = code.lineOf(path);
    return i === undefined ? undefined : i + 1;
  };
}

/**
 * The line of its client's code each client event happens on, read as the
 * events are observed: a kept trace's by seq, a window's by the event
 * itself, so a windowed run's memory stays that of its window.
 */
class CodeLines {
  readonly steps = new CurrentSteps();
  private readonly lineOf: ReturnType<typeof codeLineFinder>;
  private readonly bySeq: number[] = [];
  private readonly byEvent = new WeakMap<TraceEvent, number>();

  constructor(
    scenario: Scenario,
    private readonly keyedBySeq: boolean,
  ) {
    this.lineOf = codeLineFinder(scenario);
  }

  observe(e: TraceEvent): void {
    const line = this.lineOf(e.actor, this.steps.of(e.actor));
    if (line === undefined) return;
    if (this.keyedBySeq) this.bySeq[e.seq] = line;
    else this.byEvent.set(e, line);
  }

  of(e: TraceEvent): number | undefined {
    return this.keyedBySeq ? this.bySeq[e.seq] : this.byEvent.get(e);
  }
}

/**
 * `locklab run`. A run keeps its whole trace only when what it prints needs
 * it (the trace document, or a timeline of every event); then it is held to
 * maxTraceEvents and stops there, saying how to stream instead. Otherwise
 * each event goes out as it happens (JSON Lines to stdout or to a file, the
 * head and tail of the timeline) and memory stays flat however long the run.
 * Returns the run's end for the exit code.
 */
export async function runCommand(
  ref: string,
  scenario: Scenario,
  opts: RunOptions,
  io: Out,
  c: Colors,
  caps: RunCaps = RUN_CAPS,
): Promise<{ end: RunEnd; outcome: TraceDocument['verdict']['outcome'] }> {
  if (opts.stream === true && opts.json !== true)
    throw new InputError('--stream', [{ path: '', message: 'goes with --json: it prints the trace as JSON Lines' }]);
  if (opts.code === true && opts.json === true)
    throw new InputError('--code', [{ path: '', message: "prints the clients' code above the timeline, which --json does not print" }]);
  const windowed = opts.head !== undefined || opts.tail !== undefined;
  if (windowed && opts.json === true)
    throw new InputError(opts.head !== undefined ? '--head' : '--tail', [{ path: '', message: 'shapes the timeline, which --json does not print' }]);
  const seed = opts.seed ?? scenario.seed;
  const jsonlOut = opts.out !== undefined && isJsonl(opts.out);
  const keep = (opts.json === true && opts.stream !== true) || (opts.out !== undefined && !jsonlOut) || (opts.json !== true && !windowed);

  // The file is opened first: a target that cannot be written is refused before the run, not after it.
  const file = opts.out === undefined ? undefined : new AtomicFile(opts.out);
  const interrupts = new Interrupts();
  try {
    const sinks: Array<(e: TraceEvent) => void> = [];
    let fileLines: JsonlWriter | undefined;
    if (file !== undefined && jsonlOut) {
      fileLines = new JsonlWriter((t) => file.write(t));
      fileLines.line(jsonlHead(scenario, seed));
      const w = fileLines;
      sinks.push((e) => w.event(e));
    }
    let outLines: JsonlWriter | undefined;
    if (opts.stream === true) {
      outLines = new JsonlWriter((t) => io.out(t));
      outLines.line(jsonlHead(scenario, seed));
      const w = outLines;
      sinks.push((e) => w.event(e));
    }
    const window = !keep && opts.json !== true ? new EventWindow(opts.head ?? 0, opts.tail ?? 0) : undefined;
    if (window !== undefined) sinks.push((e) => window.push(e));
    const lines = opts.code === true ? new CodeLines(scenario, keep) : undefined;
    if (lines !== undefined) sinks.push((e) => lines.observe(e));

    const keptCapEvents = caps.keptEvents;
    const capped = keep && scenario.budget.maxEvents > keptCapEvents;
    const job = startJob(scenario, seed, {
      trace: keep,
      hash: false,
      bounded: !keep,
      ...(sinks.length === 0 ? {} : { observe: sinks.length === 1 ? sinks[0]! : (e: TraceEvent) => sinks.forEach((s) => s(e)) }),
      ...(keep ? { maxEvents: keptCapEvents } : {}),
      ...(lines === undefined ? {} : { marks: lines.steps }),
    });
    const pause = (): Promise<void> => interrupts.pause(() => job.events, opts.out);
    let stop: RunEnd['stop'] | undefined;
    while ((stop = job.advance(EVENTS_PER_SLICE)) === undefined) await pause();
    const r = job.finish(stop);
    const end: RunEnd = {
      scenario,
      stop: r.stop,
      traceEvents: r.eventCount,
      keptCapEvents: capped && r.stop.reason === 'event-budget' && r.stop.events >= keptCapEvents ? keptCapEvents : undefined,
    };
    // The kept events are written from the run's columns, one at a time: the document itself lists none.
    const kept = r.trace;
    const doc: TraceDocument | undefined =
      kept === undefined ? undefined : { schema: TRACE_SCHEMA, source: 'sim', scenario, seed, stop: r.stop, events: [], verdict: r.verdict };

    if (file !== undefined) {
      if (fileLines !== undefined) {
        fileLines.line(jsonlTail(r.stop, r.verdict));
        fileLines.flush();
      } else await writeTraceText(doc!, kept!, ref, caps, (p) => file.write(p), pause);
      file.commit();
    }
    const why = stopReason(end);
    if (opts.json === true) {
      if (outLines !== undefined) {
        outLines.line(jsonlTail(r.stop, r.verdict));
        outLines.flush();
      } else await writeTraceText(doc!, kept!, ref, caps, (p) => io.out(p), pause);
      // Standard output is the trace, so why the run stopped short goes to standard error too.
      if (why !== undefined) io.err(`locklab: ${ref}: ${why}\n`);
      for (const note of shortLeaseNotes(scenario)) io.err(`locklab: ${ref}: ${note}\n`);
    } else {
      interrupts.close(() => job.events, undefined);
      const run = { scenario, seed, source: 'sim' as const, verdict: r.verdict };
      // A kept trace is printed from its columns, a few thousand lines at a time, never as one string.
      if (opts.code === true) io.out(`${formatCode(scenario, c)}\n\n`);
      let written = 0;
      writeTimeline(
        run,
        c,
        window ?? { head: kept!, tail: [], elided: 0, total: kept!.length },
        (piece) => io.out(written++ === 0 ? piece : `\n${piece}`),
        lines === undefined ? undefined : (e) => lines.of(e),
      );
      io.out(`\n\n${formatVerdict(run, c, lockCyclesOf(r.intervals))}\n${formatStop(end, c)}\n`);
      io.out(c.dim(`Reproduce: ${reproduceCommand(ref, seed, opts.set)}\n`));
      if (hasRandomFaults(scenario))
        io.out(
          c.dim(`How often it breaks (its faults are random, and a seed is one draw of them): ${sweepCommand(ref, { sets: opts.set.map(overrideText) })}\n`),
        );
      if (opts.out !== undefined) io.out(c.dim(`Trace written to ${opts.out}\n`));
    }
    return { end, outcome: r.verdict.outcome };
  } finally {
    interrupts.release();
    file?.abort();
  }
}
