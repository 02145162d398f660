import { KeptTrace } from './kept.js';
import type { Belief, JsonValue, TraceEvent } from './types.js';

/**
 * The optional parts of an event, as the simulation hands them to the
 * recorder. An undefined field is simply left out of the trace.
 */
export interface EventFields {
  localUs?: number | undefined;
  key?: string | undefined;
  owner?: string | undefined;
  fence?: number | undefined;
  ttlUs?: number | undefined;
  peer?: string | undefined;
  msg?: number | undefined;
  reason?: string | undefined;
  believes?: Belief | undefined;
  data?: Record<string, JsonValue> | undefined;
}

/**
 * Appends events in the order they happen, numbering them. Fields are copied
 * in one fixed order so that equal runs serialize to equal bytes.
 */
export class Recorder {
  /** The events, when kept (in columns, see KeptTrace); a run that streams them to a checker keeps none. */
  readonly kept: KeptTrace | undefined;
  /** How many events have been recorded. */
  count = 0;
  /** Called with each event as it is recorded (a streaming checker, a hasher, a file). */
  onEvent: ((e: TraceEvent) => void) | undefined;

  constructor(keep = true) {
    this.kept = keep ? new KeptTrace() : undefined;
  }

  /** The kept events as objects (none when they are not kept): see KeptTrace.toArray. */
  get events(): TraceEvent[] {
    return this.kept?.toArray() ?? [];
  }

  /**
   * Records one event. `key` and `believes` are passed apart from `f` so that
   * callers need not copy `f` to add them.
   */
  record(
    timeUs: number,
    kind: string,
    actor: string,
    machine: string,
    localUs: number | undefined,
    f: EventFields,
    key: string | undefined,
    believes: Belief | undefined,
  ): TraceEvent {
    // Every event gets every field, in the one canonical order, with undefined
    // where absent: one object shape keeps the engine fast, and JSON leaves
    // undefined fields out, so the bytes are as if they were never there.
    const e = {
      seq: this.count++,
      timeUs,
      kind,
      actor,
      machine,
      localUs,
      key,
      owner: f.owner,
      fence: f.fence,
      ttlUs: f.ttlUs,
      peer: f.peer,
      msg: f.msg,
      reason: f.reason,
      believes,
      data: f.data,
    } as TraceEvent;
    this.kept?.push(e);
    this.onEvent?.(e);
    return e;
  }
}
