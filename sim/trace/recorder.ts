import type { Belief, TraceEvent } from './types.js';

/** The optional parts of an event, as the simulation hands them to the recorder. */
export interface EventFields {
  localUs?: number;
  key?: string;
  owner?: string;
  fence?: number;
  ttlUs?: number;
  peer?: string;
  msg?: number;
  reason?: string;
  believes?: Belief;
  data?: Record<string, number | string | boolean>;
}

/**
 * Appends events in the order they happen, numbering them. Fields are copied
 * in one fixed order so that equal runs serialize to equal bytes.
 */
export class Recorder {
  readonly events: TraceEvent[] = [];

  record(timeUs: number, kind: string, actor: string, machine: string, f: EventFields = {}): TraceEvent {
    const e: TraceEvent = { seq: this.events.length, timeUs, kind, actor, machine };
    if (f.localUs !== undefined) e.localUs = f.localUs;
    if (f.key !== undefined) e.key = f.key;
    if (f.owner !== undefined) e.owner = f.owner;
    if (f.fence !== undefined) e.fence = f.fence;
    if (f.ttlUs !== undefined) e.ttlUs = f.ttlUs;
    if (f.peer !== undefined) e.peer = f.peer;
    if (f.msg !== undefined) e.msg = f.msg;
    if (f.reason !== undefined) e.reason = f.reason;
    if (f.believes !== undefined) e.believes = normalizeBelief(f.believes);
    if (f.data !== undefined) e.data = f.data;
    this.events.push(e);
    return e;
  }
}

function normalizeBelief(b: Belief): Belief {
  const out: { holds: boolean; owner?: string; fence?: number; ttlLeftUs?: number } = { holds: b.holds };
  if (b.owner !== undefined) out.owner = b.owner;
  if (b.fence !== undefined) out.fence = b.fence;
  if (b.ttlLeftUs !== undefined) out.ttlLeftUs = b.ttlLeftUs;
  return out;
}
