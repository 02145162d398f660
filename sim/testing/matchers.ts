import { summarize } from '../check/summary.js';
import { show } from '../errors.js';
import type { Verdict } from '../check/verdict.js';
import { formatInstant } from '../time.js';
import type { HoldingEnd } from '../trace/kinds.js';
import type { TraceDocument, TraceEvent } from '../trace/types.js';
import { ScenarioBuilder } from './builder.js';
import { reproduction, Run } from './run.js';

/** The part of a test runner's matcher context these matchers read (Vitest's and Jest's both have it). */
export interface MatcherContext {
  readonly isNot: boolean;
}

export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

interface Judged {
  readonly trace: TraceDocument;
  readonly verdict: Verdict;
  readonly reproduce: string;
}

function isTrace(value: unknown): value is TraceDocument {
  const v = value as Partial<TraceDocument> | null;
  return typeof v === 'object' && v !== null && typeof v.schema === 'string' && Array.isArray(v.events) && typeof v.verdict === 'object';
}

/** A run from the testing API, or a trace document (whose scenario is then written out to reproduce it). */
function judged(received: unknown): Judged | string {
  if (received instanceof Run) return received;
  if (isTrace(received))
    return {
      trace: received,
      verdict: received.verdict,
      reproduce: reproduction({ document: received.scenario, ref: undefined, label: '' }, received.seed, []),
    };
  const got = received instanceof ScenarioBuilder ? 'a scenario builder: call .run({ seed }) on it' : received === null ? 'null' : typeof received;
  return `expected a Locklab run (from scenario(...).run() or replay()) or a trace document, got ${got}`;
}

/** The verdict's sentences, indented. */
function findings(v: Verdict): string {
  return summarize(v)
    .map((s) => `  ${s}`)
    .join('\n');
}

/** Where a finding is in the trace, so it can be found in `locklab run --json` or the lab. */
const at = (seqs: readonly number[]): string => ` (event${seqs.length === 1 ? '' : 's'} ${seqs.join(', ')})`;

function writes(trace: TraceDocument): TraceEvent[] {
  return trace.events.filter((e) => e.kind === 'write.accepted' || e.kind === 'write.rejected');
}

function listWrites(trace: TraceDocument): string {
  const list = writes(trace);
  if (list.length === 0) return '  (no write reached the resource)';
  return list
    .map(
      (e) =>
        `  ${e.peer ?? e.owner ?? '?'}'s write with ${e.fence === undefined ? 'no fencing token' : `token ${e.fence}`} at ${formatInstant(e.timeUs)}: ${e.kind === 'write.accepted' ? 'accepted' : `rejected (${e.reason ?? 'fenced'})`}${at([e.seq])}`,
    )
    .join('\n');
}

/**
 * Builds a matcher: `test` says whether the run passes and describes what
 * was expected; the message adds what the run shows and how to reproduce it.
 */
function matcher<A extends unknown[]>(
  test: (run: Judged, ...args: A) => { pass: boolean; expected: string; notExpected: string; shows: string },
): (this: MatcherContext, received: unknown, ...args: A) => MatcherResult {
  return function (this: MatcherContext, received: unknown, ...args: A): MatcherResult {
    const run = judged(received);
    // Thrown, not failed: under `.not` a failed match would pass, and a builder handed over without `.run()` would pass every `.not`.
    if (typeof run === 'string') throw new TypeError(run);
    const r = test(run, ...args);
    return {
      pass: r.pass,
      message: () => `expected the run (seed ${run.trace.seed}) ${this.isNot ? r.notExpected : r.expected}\n${r.shows}\nReproduce:\n${run.reproduce}`,
    };
  };
}

/**
 * An accepted stale write is damage done whenever the run stopped; "safe"
 * and "fenced" speak for the whole scenario, so a run cut at its budget has
 * neither.
 */
function outcome(want: Verdict['outcome'], words: string): ReturnType<typeof matcher<[]>> {
  return matcher((run) => ({
    pass: run.verdict.outcome === want && (want === 'unsafe' || run.trace.stop.reason === 'completed'),
    expected: `to be ${words}`,
    notExpected: `not to be ${words}`,
    shows:
      run.trace.stop.reason === 'completed'
        ? `Its outcome is ${run.verdict.outcome}:\n${findings(run.verdict)}`
        : `It stopped at its ${run.trace.stop.reason} before the scenario ended; so far its outcome is ${run.verdict.outcome}:\n${findings(run.verdict)}`,
  }));
}

/**
 * A matcher's argument that names no client of the run, or no way a lock is
 * lost, or is no fencing token, would make its `.not` pass whatever the run
 * did: it is refused, with what the run has.
 */
function knownClient(run: Judged, name: string | undefined, matcherName: string): void {
  if (name === undefined) return;
  const names = run.trace.scenario.clients.map((c) => c.name);
  if (!names.includes(name)) throw new TypeError(`${matcherName}: the run has no client named ${JSON.stringify(name)} (clients: ${names.join(', ')})`);
}

const LOST_HOW: readonly HoldingEnd[] = ['expired', 'deleted', 'overwritten', 'lost'];

function fenceArg(fence: unknown, matcherName: string): void {
  if (fence !== undefined && !(typeof fence === 'number' && Number.isInteger(fence)))
    throw new TypeError(`${matcherName}: expected a fencing token (a whole number), got ${show(fence)}`);
}

const pair = (a: string | undefined, b: string | undefined): string =>
  a === undefined ? 'any two clients' : b === undefined ? `${a} and another client` : `${a} and ${b}`;

/**
 * The matchers, for `expect.extend`. Each reads the checker's verdict (or,
 * for writes, the resource's events), so a failure shows the findings.
 */
export const locklabMatchers = {
  /** No stale write reached the resource, and the run ended by itself (not at its budget). */
  toBeSafe: outcome('safe', 'safe (no stale write reaching the resource)'),
  /** Stale writes reached the resource and fencing rejected every one, and the run ended by itself. */
  toBeFenced: outcome('fenced', 'fenced (every stale write rejected by fencing)'),
  /** A stale write was accepted: the resource is corrupted. */
  toBeUnsafe: outcome('unsafe', 'unsafe (a stale write accepted)'),

  /** Two clients (these two, in either order, when named) believed they held the same key at the same time. */
  toHaveDoubleOwnership: matcher((run, a?: string, b?: string) => {
    knownClient(run, a, 'toHaveDoubleOwnership');
    knownClient(run, b, 'toHaveDoubleOwnership');
    const windows = run.verdict.doubleOwnership;
    const hit = windows.some((w) => (a === undefined || w.clients.includes(a)) && (b === undefined || w.clients.includes(b)));
    return {
      pass: hit,
      expected: `to have double ownership by ${pair(a, b)}`,
      notExpected: `to have no double ownership by ${pair(a, b)}`,
      shows:
        windows.length === 0
          ? 'No two clients ever believed they held the same key at once.'
          : `Double ownership:\n${windows.map((w) => `  ${w.clients.join(' and ')} on ${w.key} from ${formatInstant(w.fromUs)} to ${formatInstant(w.toUs)}${at(w.seqs)}`).join('\n')}`,
    };
  }),

  /** The resource rejected a write (carrying this fencing token, when given). */
  toHaveRejectedWrite: matcher((run, fence?: number) => {
    fenceArg(fence, 'toHaveRejectedWrite');
    return {
      pass: writes(run.trace).some((e) => e.kind === 'write.rejected' && (fence === undefined || e.fence === fence)),
      expected: `to have a write ${fence === undefined ? '' : `with fencing token ${fence} `}rejected by the resource`,
      notExpected: `to have no write ${fence === undefined ? '' : `with fencing token ${fence} `}rejected by the resource`,
      shows: `Writes at the resource:\n${listWrites(run.trace)}`,
    };
  }),

  /** A stale write (with this fencing token, when given) got through: the damage fencing exists to stop. */
  toHaveAcceptedStaleWrite: matcher((run, fence?: number) => {
    fenceArg(fence, 'toHaveAcceptedStaleWrite');
    return {
      pass: run.verdict.staleWrites.some((w) => w.accepted && (fence === undefined || w.fence === fence)),
      expected: `to have a stale write ${fence === undefined ? '' : `with fencing token ${fence} `}accepted`,
      notExpected: `to have no stale write ${fence === undefined ? '' : `with fencing token ${fence} `}accepted`,
      shows: `Writes at the resource:\n${listWrites(run.trace)}\nThe checker says:\n${findings(run.verdict)}`,
    };
  }),

  /** The store dropped a lock (of this client, ended this way: expired, deleted, overwritten, lost) while its client still believed. */
  toHaveLostLock: matcher((run, client?: string, how?: HoldingEnd) => {
    knownClient(run, client, 'toHaveLostLock');
    if (how !== undefined && !LOST_HOW.includes(how))
      throw new TypeError(`toHaveLostLock: expected how the lock was lost, one of ${LOST_HOW.map((h) => JSON.stringify(h)).join(', ')}, got ${show(how)}`);
    const lost = run.verdict.lostLocks;
    const what = `${client ?? 'a client'}${how === undefined ? '' : ` (${how})`}`;
    return {
      pass: lost.some((l) => (client === undefined || l.client === client) && (how === undefined || l.how === how)),
      expected: `to have a lost lock of ${what}`,
      notExpected: `to have no lost lock of ${what}`,
      shows:
        lost.length === 0
          ? 'No lock was lost under a client that still believed it.'
          : `Lost locks:\n${lost.map((l) => `  ${l.client} at ${formatInstant(l.atUs)}: ${l.how}, ${l.reason}${at(l.seqs)}`).join('\n')}`,
    };
  }),

  /** The run ended by itself rather than at its event or time budget. */
  toComplete: matcher((run) => ({
    pass: run.trace.stop.reason === 'completed',
    expected: 'to complete',
    notExpected: 'to stop at its budget',
    shows: `It stopped with ${run.trace.stop.reason} after ${run.trace.stop.events} kernel events at ${formatInstant(run.trace.stop.timeUs)}.`,
  })),
};

/** The matchers' signatures as a test sees them, for declaring them to Vitest (or Jest). */
export interface LocklabMatchers<R = unknown> {
  toBeSafe(): R;
  toBeFenced(): R;
  toBeUnsafe(): R;
  toHaveDoubleOwnership(a?: string, b?: string): R;
  toHaveRejectedWrite(fence?: number): R;
  toHaveAcceptedStaleWrite(fence?: number): R;
  toHaveLostLock(client?: string, how?: Exclude<HoldingEnd, 'released'>): R;
  toComplete(): R;
}
