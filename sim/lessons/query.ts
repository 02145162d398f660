import type { TraceEvent } from '../trace/types.js';
import type { EventQuery } from './types.js';

function matches(e: TraceEvent, q: EventQuery): boolean {
  if (q.kind !== undefined && !(typeof q.kind === 'string' ? e.kind === q.kind : q.kind.includes(e.kind))) return false;
  if (q.actor !== undefined && e.actor !== q.actor) return false;
  if (q.machine !== undefined && e.machine !== q.machine) return false;
  if (q.owner !== undefined && e.owner !== q.owner) return false;
  if (q.peer !== undefined && e.peer !== q.peer) return false;
  if (q.fence !== undefined && e.fence !== q.fence) return false;
  if (q.reason !== undefined && !(e.reason ?? '').includes(q.reason)) return false;
  if (q.holds !== undefined && e.believes?.holds !== q.holds) return false;
  return true;
}

/** Every event the query's fields match, within its `after`/`before` bounds, in trace order (ignores `nth`). */
export function matchingEvents(events: readonly TraceEvent[], q: EventQuery): TraceEvent[] {
  const afterSeq = q.after === undefined ? -1 : (findEvent(events, q.after)?.seq ?? Infinity);
  const beforeSeq = q.before === undefined ? Infinity : (findEvent(events, q.before)?.seq ?? -1);
  return events.filter((e) => e.seq > afterSeq && e.seq < beforeSeq && matches(e, q));
}

/** The event a query names: its `nth` match (1 = first, the default; -1 = last), or undefined when there is none. */
export function findEvent(events: readonly TraceEvent[], q: EventQuery): TraceEvent | undefined {
  const all = matchingEvents(events, q);
  const nth = q.nth ?? 1;
  return nth < 0 ? all[all.length + nth] : all[nth - 1];
}

/** A query in words, for problems and failed statements: "the 2nd acquire.ok by B after …". */
export function describeQuery(q: EventQuery): string {
  const kind = q.kind === undefined ? 'event' : typeof q.kind === 'string' ? q.kind : q.kind.join(' or ');
  const nth = q.nth === undefined || q.nth === 1 ? 'the first' : q.nth === -1 ? 'the last' : `match ${q.nth} of`;
  const parts = [`${nth} ${kind}`];
  if (q.actor !== undefined) parts.push(`by ${q.actor}`);
  if (q.machine !== undefined) parts.push(`on ${q.machine}`);
  if (q.peer !== undefined) parts.push(`with ${q.peer}`);
  if (q.owner !== undefined) parts.push(`for ${q.owner}`);
  if (q.fence !== undefined) parts.push(`with token ${q.fence}`);
  if (q.reason !== undefined) parts.push(`saying "${q.reason}"`);
  if (q.holds !== undefined) parts.push(q.holds ? 'while holding' : 'while holding nothing');
  if (q.after !== undefined) parts.push(`after ${describeQuery(q.after)}`);
  if (q.before !== undefined) parts.push(`before ${describeQuery(q.before)}`);
  return parts.join(' ');
}
