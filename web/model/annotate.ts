import type { TraceDocument, TraceEvent } from '../../sim/trace/types.js';
import { storeKind } from '../../sim/stores/registry.js';
import { findingsOf, highestTokensBefore, type Finding } from './findings.js';
import { laneIdOf } from './build.js';
import type { Mark, TraceModel } from './types.js';

/** An attempt to get the lock that did not: from its request to the answer, with the reason in a few words. */
export interface Refusal extends Mark {
  readonly fromUs: number;
  readonly reason: string;
}

/**
 * What the lab draws and says on top of the model: the findings tied to
 * their events, refused attempts, whom each request was sent to, the store
 * nodes in the order the scenario declares them, the highest token the
 * resource had seen before each write. Derived once per trace, like the
 * model, and plain data (no functions), so the worker can derive it and
 * hand it over.
 */
export interface Annotations {
  readonly findings: readonly Finding[];
  /** Seqs of the events findings are marked on, ascending (playback stops at each). */
  readonly flagged: Int32Array;
  /** The finding marked on each flagged seq. */
  readonly findingAt: ReadonlyMap<number, Finding>;
  /** The lane each flagged event is drawn on. */
  readonly flaggedLane: ReadonlyMap<number, string>;
  readonly refusals: ReadonlyMap<string, readonly Refusal[]>;
  /** The lane each request was sent to, by message id (a sparse array), for replies that come back with no event at the other end. */
  readonly requestLane: readonly (string | undefined)[];
  /** Store lane names in the scenario's order. */
  readonly storeOrder: readonly string[];
  readonly highestBefore: ReadonlyMap<number, number | null>;
  /** Fault events the model has no drawing for (a deploy, IPC removal), as marks on the faults lane. */
  readonly otherFaults: readonly Mark[];
}

const REFUSALS = new Set(['acquire.denied', 'quorum.missed', 'acquire.error', 'acquire.timeout']);
const DRAWN_FAULTS = new Set(['partition.start', 'partition.end', 'latency.start', 'latency.end', 'clock.jump', 'clock.drift', 'msg.lost']);

function num(e: TraceEvent, name: string): number | undefined {
  const v = e.data?.[name];
  return typeof v === 'number' ? v : undefined;
}

/** Why an attempt failed, short enough to sit beside its mark. */
export function refusalReason(e: TraceEvent): string {
  switch (e.kind) {
    case 'acquire.denied': {
      const holder = e.data?.holder;
      if (typeof holder === 'string') return `held by ${holder}`;
      return e.reason ?? 'held';
    }
    case 'quorum.missed':
      return `${num(e, 'granted') ?? 0} of ${num(e, 'of') ?? '?'} ${typeof e.data?.unit === 'string' ? e.data.unit : 'nodes'}, ${num(e, 'needed') ?? '?'} needed`;
    case 'acquire.error':
      return 'cannot connect';
    case 'acquire.timeout':
      return 'no answer in time';
    default:
      return e.kind;
  }
}

/** Node names in the order the store kind declares them; nodes it does not name come after, in natural order. */
function storeOrderOf(doc: TraceDocument, model: TraceModel): string[] {
  let declared: string[] = [];
  try {
    declared = storeKind(doc.scenario.store.kind)?.nodeNames(doc.scenario.store, doc.scenario) ?? [];
  } catch {
    // A trace from another version may carry a store this one cannot read; natural order will do.
  }
  const rank = (name: string) => {
    const i = declared.indexOf(name);
    return i === -1 ? declared.length : i;
  };
  return model.stores.map((s) => s.name).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b, 'en', { numeric: true }));
}

export function annotate(doc: TraceDocument, model: TraceModel): Annotations {
  const clients = new Set(model.clients.map((c) => c.name));
  // Message ids count up from 1, so plain arrays indexed by id are the cheapest maps for a 100k-event trace.
  const requestAt: number[] = [];
  const requestLane: string[] = [];
  const refusals = new Map<string, Refusal[]>();
  const otherFaults: Mark[] = [];
  for (const e of doc.events) {
    if (e.msg !== undefined && e.kind.endsWith('.request')) {
      requestAt[e.msg] = e.timeUs;
      if (e.peer !== undefined) requestLane[e.msg] = laneIdOf(e.peer, clients);
    }
    if (REFUSALS.has(e.kind) && clients.has(e.actor)) {
      let list = refusals.get(e.actor);
      if (list === undefined) refusals.set(e.actor, (list = []));
      const from = e.msg === undefined ? e.timeUs : (requestAt[e.msg] ?? e.timeUs);
      const reason = refusalReason(e);
      list.push({ atUs: e.timeUs, fromUs: Math.min(from, e.timeUs), seq: e.seq, kind: e.kind, label: reason, reason });
    }
    if ((e.actor === 'faults' || e.actor === 'net') && !DRAWN_FAULTS.has(e.kind)) {
      otherFaults.push({ atUs: e.timeUs, seq: e.seq, kind: e.kind, label: e.kind.replace('.start', '').replace('.', ' ') });
    }
  }
  const findings = findingsOf(doc, model);
  const findingAt = new Map<number, Finding>();
  // Where two findings fall on one event, the worse one is marked.
  const weight = { damage: 3, fenced: 2, warning: 1 } as const;
  for (const f of findings) {
    const had = findingAt.get(f.seq);
    if (had === undefined || weight[f.severity] > weight[had.severity]) findingAt.set(f.seq, f);
  }
  const flaggedLane = new Map<number, string>();
  for (const seq of findingAt.keys()) {
    const e = doc.events[seq];
    if (e !== undefined) flaggedLane.set(seq, laneIdOf(e.actor, clients));
  }
  return {
    findings,
    flagged: Int32Array.from([...findingAt.keys()].sort((a, b) => a - b)),
    findingAt,
    flaggedLane,
    refusals,
    requestLane,
    storeOrder: storeOrderOf(doc, model),
    highestBefore: highestTokensBefore(model.resource.writes),
    otherFaults,
  };
}
