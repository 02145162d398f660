import type { Verdict } from '../check/verdict.js';
import { boundedFor, capVerdict, Checker } from '../check/checker.js';
import { CheckError } from '../check/refuse.js';
import { InputError, type InputIssue } from '../errors.js';
import { LIMITS } from '../scenario/limits.js';
import { checkWith, listParts } from '../scenario/schema-issues.js';
import type { Scenario } from '../scenario/types.js';
import { RunHasher } from './hash.js';
import { traceSchema } from './schema.js';
import { TRACE_SCHEMA, type StopInfo, type TraceEvent } from './types.js';
import { traceEvent, traceOuter } from './validators.generated.js';

/** The trace schema's precompiled parts (see `listParts`): the head and last lines together, and each event. */
let checkOuter: ((data: unknown) => InputIssue[]) | undefined;
let checkEvent: ((item: unknown) => InputIssue[]) | undefined;

/** What reading a JSON Lines trace gives: the run's head and end, its events counted (not kept), the verdict judged afresh and the one stored. */
export interface JsonlTrace {
  /** Where the trace came from: the simulation or a real run. */
  readonly source: 'sim' | 'real';
  readonly scenario: Scenario;
  readonly seed: number;
  readonly stop: StopInfo;
  readonly eventCount: number;
  readonly runHash: string;
  readonly verdict: Verdict;
  readonly storedVerdict: unknown;
  /** The lock cycles judged, and how many were double-owned (IntervalTracker's counts). */
  readonly cycles: { readonly begun: number; readonly doubleOwned: number };
}

/**
 * Reads a trace written as JSON Lines (sim/trace/jsonl.ts) one line at a
 * time: each event is checked against the schema, numbered and ordered in
 * time, judged and hashed as it comes, and dropped, so a trace of any length
 * is read in the memory of one line. Issues name the trace's own paths
 * (`events[12].owner`) with the line they are on.
 */
export class JsonlTraceReader {
  private head: Record<string, unknown> | undefined;
  private end: Record<string, unknown> | undefined;
  private readonly issues: InputIssue[] = [];
  private more = 0;
  private count = 0;
  private lastUs = 0;
  /** Set from the first line: a simulated run is judged in bounded memory, as `locklab run` judged it when it streamed. */
  private checker = new Checker();
  private hasher: RunHasher | undefined;

  /** `onEvent` sees each event once it is read and judged: a caller that wants the events keeps them. */
  constructor(
    private readonly source: string,
    private readonly onEvent?: (e: TraceEvent, lineNo: number) => void,
  ) {}

  /** Reads line `lineNo` (from 1); an empty last line is no line. */
  line(text: string, lineNo: number): void {
    if (this.end !== undefined) {
      if (text.trim() !== '') this.fail({ path: '', message: `line ${lineNo}: nothing may follow the last line (the one with "stop" and "verdict")` });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new InputError(this.source, [{ path: '', message: `line ${lineNo} is not valid JSON (a JSON Lines trace has one JSON object per line)` }]);
    }
    if (this.head === undefined) return this.readHead(value, lineNo);
    const obj = value as Record<string, unknown> | null;
    if (obj !== null && typeof obj === 'object' && !Array.isArray(obj) && 'stop' in obj && !('seq' in obj)) {
      this.end = obj;
      return;
    }
    this.readEvent(value, lineNo);
  }

  /** The trace, once every line was read; throws an InputError naming each problem. */
  finish(): JsonlTrace {
    if (this.head === undefined)
      throw new InputError(this.source, [{ path: '', message: 'is empty: a JSON Lines trace starts with a line naming its schema' }]);
    if (this.end === undefined)
      this.fail({ path: 'stop', message: 'is missing: the last line of a JSON Lines trace has "stop" and "verdict" (was the run cut short?)' });
    else {
      checkOuter ??= checkWith(traceOuter, listParts(traceSchema(), 'events').outer);
      for (const issue of checkOuter({ ...this.head, ...this.end, events: [] })) this.fail(issue);
    }
    if (this.issues.length > 0) throw new InputError(this.source, this.issues, this.more);
    let verdict: Verdict;
    try {
      // Cut as the trace's last line is (capVerdict): a real trace is judged whole, then cut the same way.
      verdict = capVerdict(this.checker.finish());
    } catch (err) {
      if (err instanceof CheckError) throw new InputError(this.source, [{ path: `events[${err.seq}].${err.field}`, message: err.detail }]);
      throw err;
    }
    const head = this.head as { source: 'sim' | 'real'; scenario: Scenario; seed: number };
    return {
      source: head.source,
      scenario: head.scenario,
      seed: head.seed,
      stop: this.end!.stop as StopInfo,
      eventCount: this.count,
      runHash: this.hasher!.digest(),
      verdict,
      storedVerdict: this.end!.verdict,
      cycles: { begun: this.checker.intervals.beliefsBegun, doubleOwned: this.checker.intervals.beliefsDoubleOwned },
    };
  }

  private readHead(value: unknown, lineNo: number): void {
    const obj = value as Record<string, unknown> | null;
    const schema = obj?.schema;
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || schema === undefined)
      throw new InputError(this.source, [{ path: 'schema', message: `is required on line ${lineNo}, the first (not a Locklab trace)` }]);
    if (schema !== TRACE_SCHEMA)
      throw new InputError(this.source, [{ path: 'schema', message: `this Locklab reads trace schema "${TRACE_SCHEMA}", got ${JSON.stringify(schema)}` }]);
    this.head = obj;
    const latencyMaxMs = (obj.scenario as { network?: { latencyMaxMs?: unknown } } | undefined)?.network?.latencyMaxMs;
    if (obj.source === 'sim' && typeof latencyMaxMs === 'number' && Number.isFinite(latencyMaxMs) && latencyMaxMs >= 0)
      this.checker = new Checker(boundedFor(latencyMaxMs));
    this.hasher = new RunHasher({ schema: TRACE_SCHEMA, source: obj.source as 'sim', scenario: obj.scenario as Scenario, seed: obj.seed as number });
  }

  private readEvent(value: unknown, lineNo: number): void {
    const i = this.count++;
    checkEvent ??= checkWith(traceEvent, listParts(traceSchema(), 'events').item);
    const shape = checkEvent(value);
    if (shape.length > 0) {
      for (const issue of shape)
        this.fail({ path: issue.path === '' ? `events[${i}]` : `events[${i}].${issue.path}`, message: `${issue.message} (line ${lineNo})` });
      return;
    }
    const e = value as TraceEvent;
    if (e.seq !== i) this.fail({ path: `events[${i}].seq`, message: `expected ${i} (events are numbered in order), got ${e.seq} (line ${lineNo})` });
    if (e.timeUs < this.lastUs) this.fail({ path: `events[${i}].timeUs`, message: `goes back in time (${e.timeUs} after ${this.lastUs}) (line ${lineNo})` });
    this.lastUs = Math.max(this.lastUs, e.timeUs);
    // Once the trace is known to be bad it is only checked, not judged: the checker may need what is missing.
    if (this.issues.length > 0) return;
    try {
      this.checker.push(e);
    } catch (err) {
      if (err instanceof CheckError) throw new InputError(this.source, [{ path: `events[${err.seq}].${err.field}`, message: err.detail }]);
      throw err;
    }
    this.hasher!.push(e);
    this.onEvent?.(e, lineNo);
  }

  private fail(issue: InputIssue): void {
    if (this.issues.length < LIMITS.maxIssuesShown) this.issues.push(issue);
    else this.more++;
  }
}
