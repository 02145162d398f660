import { InputError, type InputIssue } from '../errors.js';
import { LIMITS } from '../scenario/limits.js';
import { quickCompiler } from '../scenario/schema-check.js';
import { checkListWith, checkWith, listParts } from '../scenario/schema-issues.js';
import { traceSchema } from './schema.js';
import { traceEvent, traceOuter } from './validators.generated.js';
import type { TraceDocument } from './types.js';

/*
 * Reading a trace back, with the trace schema's precompiled validators
 * (sim/trace/validators.generated.js, 1.8 MB): this module is loaded by what
 * reads traces (`locklab check`, the lab's file import, `locklab export`),
 * not by a run.
 */

let checkShape: ((data: unknown) => { issues: InputIssue[]; more: number }) | undefined;

/**
 * Checks that `data` is a trace of this schema version, with events in
 * order. Throws an InputError naming `source` and the bad paths.
 */
export function validateTrace(data: unknown, source: string): TraceDocument {
  const schemaVersion = (data as { schema?: unknown } | null)?.schema;
  if (data !== null && typeof data === 'object' && !Array.isArray(data) && schemaVersion === undefined) {
    const looksLikeScenario = 'clients' in data && 'machines' in data;
    const hint = looksLikeScenario ? 'this is a scenario, not a trace: run it with `locklab run`' : 'not a Locklab trace';
    throw new InputError(source, [{ path: 'schema', message: `is required but missing (${hint})` }]);
  }
  if (data !== null && typeof data === 'object' && schemaVersion !== undefined && schemaVersion !== 'locklab.trace/1') {
    throw new InputError(source, [{ path: 'schema', message: `this Locklab reads trace schema "locklab.trace/1", got ${JSON.stringify(schemaVersion)}` }]);
  }
  // Events are checked one at a time, so a huge bad trace costs no more memory than a good one.
  checkShape ??= traceCheck();
  const { issues, more } = checkShape(data);
  if (issues.length > 0) throw new InputError(source, issues, more);
  const doc = data as TraceDocument;
  const order = outOfOrder(doc.events);
  if (order.length > 0) throw new InputError(source, order.slice(0, LIMITS.maxIssuesShown), Math.max(0, order.length - LIMITS.maxIssuesShown));
  return doc;
}

/** The trace's check: its precompiled parts, and a quick validator of events compiled only to count bad ones past those listed. */
function traceCheck(): (data: unknown) => { issues: InputIssue[]; more: number } {
  const { outer, item } = listParts(traceSchema(), 'events');
  return checkListWith(checkWith(traceOuter, outer), traceEvent, item, 'events', quickCompiler(item));
}

/**
 * Events out of sequence or out of time order, each blamed on the event
 * that is wrong. Neighbours are compared pairwise, so one edited timestamp
 * is one issue (not one for every event after it), and it names the event
 * whose removal restores the order: a time pushed late is blamed on itself,
 * not on the innocent event that follows it.
 */
function outOfOrder(events: readonly { seq: number; timeUs: number }[]): InputIssue[] {
  const issues: InputIssue[] = [];
  const t = (i: number) => events[i]!.timeUs;
  events.forEach((e, i) => {
    if (e.seq !== i) issues.push({ path: `events[${i}].seq`, message: `expected ${i} (events are numbered in order), got ${e.seq}` });
    if (i === 0 || t(i) >= t(i - 1)) return;
    const withoutPrevious = i < 2 || t(i - 2) <= t(i);
    const withoutThis = i + 1 >= events.length || t(i - 1) <= t(i + 1);
    if (withoutPrevious && !withoutThis) {
      const next = i + 1 < events.length ? `, and the one after that at ${t(i + 1)}` : '';
      issues.push({
        path: `events[${i - 1}].timeUs`,
        message: `is later than the events after it (${t(i - 1)}, then ${t(i)}${next}): events are in time order`,
      });
    } else issues.push({ path: `events[${i}].timeUs`, message: `goes back in time (${t(i)} after ${t(i - 1)})` });
  });
  return issues;
}
