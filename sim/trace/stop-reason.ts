import { forEachStep } from '../scenario/steps.js';
import { grouped } from '../scenario/limits.js';
import { formatDuration, formatInstant } from '../time.js';
import type { TraceDocument } from './types.js';

/*
 * Why a run stopped before it finished, in words the CLI's last line and the
 * lab's verdict share: which budget, where, whether a client may wait for
 * ever, and which field lets it go on.
 */

/** How a run ended, as the timeline's last line says it: completed, or stopped at which budget and what to do about it. */
export interface RunEnd {
  readonly scenario: TraceDocument['scenario'];
  readonly stop: TraceDocument['stop'];
  /** Trace events recorded. */
  readonly traceEvents: number;
  /** A run on real servers took real time; a simulated one, simulated time. */
  readonly source?: TraceDocument['source'] | undefined;
  /** The kernel events a run that keeps its trace was held to, when that (and not the scenario's budget) stopped it. */
  readonly keptCapEvents?: number | undefined;
}

/** Why a run stopped at a budget, in one line: which budget, where it stopped, and how to let it go on. Undefined for a completed run. */
export function stopReason(end: RunEnd): string | undefined {
  const s = end.stop;
  if (s.reason === 'completed') return undefined;
  const real = end.source === 'real';
  const after = real
    ? `after ${grouped(s.events)} trace events and ${formatInstant(s.timeUs)} of real time`
    : `after ${grouped(s.events)} kernel events and ${formatInstant(s.timeUs)}`;
  if (end.keptCapEvents !== undefined) {
    return `Run stopped at the event budget of a run that keeps its whole trace (${grouped(end.keptCapEvents)} events: maxTraceEvents; the scenario allows ${grouped(end.scenario.budget.maxEvents)}) ${after}. To run it whole, stream the trace instead: --out trace.jsonl or --json --stream, and --head N/--tail N for the timeline.`;
  }
  const which =
    s.reason === 'event-budget'
      ? `event budget (${end.scenario.budget.maxEvents} events)`
      : `${real ? 'time' : 'simulated-time'} budget (${formatDuration(end.scenario.budget.maxTimeMs * 1000)})`;
  const waiter = waitsForEver(end.scenario);
  const why =
    waiter !== undefined
      ? `${waiter} may wait for ever (a blocking acquire with no waitTimeoutMs), which would keep the run from finishing`
      : 'no client here waits for ever, so the run was long rather than stuck';
  const raise = real ? 'Raise --max-time (budget.maxTimeMs)' : 'Raise budget.maxEvents or budget.maxTimeMs';
  const late = s.reason === 'time-budget' ? setAfter(end.scenario) : [];
  if (late.length > 0) {
    // The run waited for what the scenario set after its end: saying it was "long" would hide a time written in the wrong unit or place.
    const them = late.length === 1 ? 'it' : 'them';
    return `Run stopped at its ${which} ${after}: ${late.join(', ')} ${late.length === 1 ? 'was' : 'were'} set after the budget and never happened. Move ${them} earlier, or raise ${real ? '--max-time (budget.maxTimeMs)' : 'budget.maxTimeMs'}.`;
  }
  return `Run stopped at its ${which} ${after}: ${why}. ${raise} to let it run longer.`;
}

/** The faults and client starts a scenario sets after its time budget, as "faults[0] (a pause at 7200 s)", "client B's start (at 90 s)". */
function setAfter(scenario: RunEnd['scenario']): string[] {
  const endMs = scenario.budget.maxTimeMs;
  const out: string[] = [];
  scenario.faults.forEach((f, i) => {
    if (f.atMs > endMs) out.push(`faults[${i}] (${f.kind} at ${formatDuration(f.atMs * 1000)})`);
  });
  for (const c of scenario.clients) if (c.startMs > endMs) out.push(`client ${c.name}'s start (at ${formatDuration(c.startMs * 1000)})`);
  return out;
}

/** The first client that blocks on an acquire with no time limit, as "client A" (its lifecycle or any of its steps); undefined when none does. */
function waitsForEver(scenario: RunEnd['scenario']): string | undefined {
  for (const c of scenario.clients) {
    let found = c.steps === null && c.acquire.mode === 'blocking' && c.acquire.waitTimeoutMs === null;
    if (c.steps !== null)
      forEachStep(c.steps, '', (s) => {
        if ((s.step === 'acquire' || s.step === 'acquireRead') && s.blocking && s.waitTimeoutMs === null) found = true;
      });
    if (found) return `client ${c.name}`;
  }
  return undefined;
}

/** How a trace document's run ended, for formatStop. */
export function runEndOf(doc: TraceDocument): RunEnd {
  return { scenario: doc.scenario, stop: doc.stop, traceEvents: doc.events.length, source: doc.source };
}
