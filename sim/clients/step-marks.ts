import type { Step } from '../scenario/steps.js';
import type { StepPhase } from './lifecycle.js';

/*
 * Which step of its script each process was running, event by event: what
 * the lab needs to show the line of PHP a client is on at the playhead. It
 * is kept beside the trace, never in it, so the trace and its run hash are
 * the same whether it is asked for or not.
 */

/**
 * Where each step sits in a script, as a path of indexes: "0" for the
 * script's first step, "0.s.2" for the third step of that repeat's steps,
 * "0.f.0" for its finally block, ".t." and ".e." for an if's branches, ".k."
 * for a fork's steps. sim/scenario/steps-php.ts tags its lines with the same
 * paths.
 */
export class StepPaths {
  private readonly steps = new Map<Step, string>();

  constructor(script: readonly Step[]) {
    this.walk(script, '');
  }

  /** Where a process is at `phase` of `step` (see StepPhase): the step's path; ".new" after a repeat's for its `$lock = ...` line; ".exit" after a fork's for its child's exit. */
  at(step: Step | null, phase: StepPhase): string | null {
    const path = step === null ? undefined : this.steps.get(step);
    if (path === undefined || phase === 'gone') return null;
    return phase === 'start' ? path : phase === 'new-lock' ? `${path}.new` : `${path}.exit`;
  }

  private walk(block: readonly Step[], at: string): void {
    block.forEach((s, i) => {
      const path = `${at}${i}`;
      this.steps.set(s, path);
      switch (s.step) {
        case 'repeat':
          this.walk(s.steps, `${path}.s.`);
          this.walk(s.finally, `${path}.f.`);
          break;
        case 'if':
          this.walk(s.then, `${path}.t.`);
          this.walk(s.else, `${path}.e.`);
          break;
        case 'fork':
          this.walk(s.steps, `${path}.k.`);
          break;
      }
    });
  }
}

/**
 * The marks of one run, in columns: mark i says that from the event with seq
 * `seq[i]` on, process `processes[process[i]]` ran the step at `path[i]`
 * (null: it is on no line: its script is over and a destructor runs, or the
 * process has ended). Marks are in the order they were made, so seqs never
 * decrease.
 */
export interface StepMarks {
  readonly processes: string[];
  readonly seq: number[];
  readonly process: number[];
  readonly path: Array<string | null>;
}

/** What a run tells of where each process is: `mark` from the event with seq `seq` on, `process` runs the step at `path`. */
export interface StepMarkSink {
  mark(process: string, path: string | null, seq: number): void;
}

/** Collects a run's marks. */
export class StepMarker implements StepMarkSink {
  readonly marks: StepMarks = { processes: [], seq: [], process: [], path: [] };
  private readonly index = new Map<string, number>();

  mark(process: string, path: string | null, seq: number): void {
    let p = this.index.get(process);
    if (p === undefined) {
      p = this.marks.processes.length;
      this.marks.processes.push(process);
      this.index.set(process, p);
    }
    this.marks.seq.push(seq);
    this.marks.process.push(p);
    this.marks.path.push(path);
  }
}

/**
 * Where each process is now, and nothing of where it was: read as each
 * event is observed, it gives the step that event happened on, in memory
 * that does not grow with the run (the command line's timeline uses it).
 */
export class CurrentSteps implements StepMarkSink {
  private readonly now = new Map<string, string | null>();

  mark(process: string, path: string | null): void {
    this.now.set(process, path);
  }

  /** The step `process` is on: its path, null when its script is over, undefined before it started. */
  of(process: string): string | null | undefined {
    return this.now.get(process);
  }
}

/** One process's marks, for looking up where it was at any event. */
export interface ProcessMarks {
  readonly seq: readonly number[];
  readonly path: ReadonlyArray<string | null>;
}

/** A run's marks, process by process. */
export function marksByProcess(marks: StepMarks): Map<string, ProcessMarks> {
  const out = marks.processes.map(() => ({ seq: [] as number[], path: [] as Array<string | null> }));
  for (let i = 0; i < marks.seq.length; i++) {
    const m = out[marks.process[i]!]!;
    m.seq.push(marks.seq[i]!);
    m.path.push(marks.path[i]!);
  }
  return new Map(marks.processes.map((name, i) => [name, out[i]!]));
}

/** The step a process was on at the event with seq `cursor`: its path, null when its script was over, undefined before it started. */
export function stepAt(marks: ProcessMarks, cursor: number): string | null | undefined {
  let lo = 0;
  let hi = marks.seq.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (marks.seq[mid]! <= cursor) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? undefined : marks.path[lo - 1]!;
}

/**
 * Where a process comes to be, event by event: for each event (seq below
 * `events`) at which its marks say something new, the step it is then on
 * (the last of the marks made at that seq: a repeat's start gives way at
 * once to its first step). A step left before any event happened does not
 * appear.
 */
export function arrivals(marks: ProcessMarks, events: number): Array<{ readonly seq: number; readonly path: string | null }> {
  const out: Array<{ seq: number; path: string | null }> = [];
  for (let i = 0; i < marks.seq.length; i++) {
    const seq = marks.seq[i]!;
    if (seq >= events) break;
    if (i + 1 < marks.seq.length && marks.seq[i + 1] === seq) continue;
    out.push({ seq, path: marks.path[i]! });
  }
  return out;
}
