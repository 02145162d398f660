import { lockCyclesOf } from '../../sim/check/summary.js';
import { clientOf, deriveIntervals } from '../../sim/check/intervals.js';
import type { JsonValue, TraceDocument, TraceEvent } from '../../sim/trace/types.js';
import type { Arrow, ClientLane, MachineClock, Mark, Partition, Span, StoreLane, TraceModel, Write } from './types.js';

const TRUTH_ENDS = new Set(['lock.released', 'lock.expired', 'lock.deleted', 'lock.overwritten', 'lock.lost']);
const FAULT_MARKS = new Set(['clock.jump', 'clock.drift', 'msg.lost']);

/** The lane an actor's events are drawn on, used to route request/response arrows. */
export function laneIdOf(actor: string, clients: ReadonlySet<string>): string {
  if (clients.has(actor)) return `client:${actor}`;
  if (actor === 'resource') return 'resource';
  if (actor === 'faults' || actor === 'net') return 'faults';
  return `store:${actor}`;
}

const ownerLabel = (owner: string | undefined, fence: number | undefined): string => `${owner ?? '?'}${fence === undefined ? '' : ` #${fence}`}`;

interface Open {
  fromUs: number;
  label: string;
  seq: number;
}

class SpanBuilder {
  readonly spans: Span[] = [];
  private readonly open = new Map<string, Open>();
  start(key: string, e: TraceEvent, label: string): void {
    if (!this.open.has(key)) this.open.set(key, { fromUs: e.timeUs, label, seq: e.seq });
  }
  end(key: string, e: TraceEvent): void {
    const o = this.open.get(key);
    if (o === undefined) return;
    this.open.delete(key);
    this.spans.push({ fromUs: o.fromUs, toUs: e.timeUs, label: o.label, seq: o.seq, end: e.kind });
  }
  /** Closes what the trace left open at its last instant and returns the spans in start order. */
  finish(endUs: number): Span[] {
    for (const o of this.open.values()) this.spans.push({ fromUs: o.fromUs, toUs: endUs, label: o.label, seq: o.seq, end: 'open' });
    this.open.clear();
    return this.spans.sort((a, b) => a.fromUs - b.fromUs || a.seq - b.seq);
  }
}

interface ClientAcc {
  belief: SpanBuilder;
  truth: SpanBuilder;
  pauses: SpanBuilder;
  marks: Mark[];
  beliefSeqs: number[];
}

/**
 * Derives the lanes, spans and marks of a trace in one pass. It reads only
 * the trace (never the simulator), so a trace recorded on real servers is
 * drawn exactly like a simulated one.
 */
export function buildModel(doc: TraceDocument): TraceModel {
  const events = doc.events;
  const n = events.length;
  const times = new Float64Array(n);
  const startUs = n > 0 ? events[0]!.timeUs : 0;
  const endUs = Math.max(n > 0 ? events[n - 1]!.timeUs : 0, doc.stop.timeUs, startUs + 1);

  const clientNames = doc.scenario.clients.map((c) => c.name);
  const clientSet = new Set(clientNames);
  for (const e of events) if (e.believes !== undefined) clientSet.add(e.actor);
  const clientAcc = new Map<string, ClientAcc>();
  const clientMachine = new Map<string, string>(doc.scenario.clients.map((c) => [c.name, c.machine]));
  // A forked child's lane says whose process it was forked from.
  const parents = new Map<string, string>();
  const accFor = (name: string): ClientAcc => {
    let a = clientAcc.get(name);
    if (a === undefined) {
      a = { belief: new SpanBuilder(), truth: new SpanBuilder(), pauses: new SpanBuilder(), marks: [], beliefSeqs: [] };
      clientAcc.set(name, a);
    }
    return a;
  };
  for (const name of clientNames) accFor(name);

  const storeOrder: string[] = [];
  const storeMachine = new Map<string, string>();
  const storeHolds = new Map<string, SpanBuilder>();
  const storeDowns = new Map<string, SpanBuilder>();
  const storeMarks = new Map<string, Mark[]>();
  const storeFor = (e: TraceEvent): string => {
    if (!storeHolds.has(e.actor)) {
      storeOrder.push(e.actor);
      storeMachine.set(e.actor, e.machine);
      storeHolds.set(e.actor, new SpanBuilder());
      storeDowns.set(e.actor, new SpanBuilder());
      storeMarks.set(e.actor, []);
    }
    return e.actor;
  };

  const stale = new Set(doc.verdict.staleWrites.map((w) => w.seq));
  const writes: Write[] = [];
  const faultBands = new SpanBuilder();
  const partitions: Partition[] = [];
  const openPartitions = new Map<string, { fromUs: number; seq: number; groups: string[][] }>();
  const faultMarks: Mark[] = [];
  const arrowHops = new Map<number, { atUs: number; lane: string }[]>();
  const arrowOrder: number[] = [];
  const lostMsgs = new Map<number, { atUs: number; toLane: string }>();

  const machineNames = doc.scenario.machines.map((m) => m.name);
  const machineDrift = new Map<string, number>(doc.scenario.machines.map((m) => [m.name, m.clockDriftPpm]));
  const samples = new Map<string, { t: number[]; l: number[]; d: number[] }>();
  const sampleFor = (m: string) => {
    let s = samples.get(m);
    if (s === undefined) {
      s = { t: [], l: [], d: [] };
      samples.set(m, s);
      if (!machineNames.includes(m)) machineNames.push(m);
    }
    return s;
  };

  for (let i = 0; i < n; i++) {
    const e = events[i]!;
    times[i] = e.timeUs;
    if (e.kind === 'clock.drift') {
      const ppm = e.data?.driftPpm;
      if (typeof ppm === 'number') machineDrift.set(e.machine, ppm);
    }
    if (e.localUs !== undefined) {
      const s = sampleFor(e.machine);
      s.t.push(e.timeUs);
      s.l.push(e.localUs);
      s.d.push(machineDrift.get(e.machine) ?? 0);
    }
    if (e.msg !== undefined && e.kind === 'msg.lost' && e.peer !== undefined) lostMsgs.set(e.msg, { atUs: e.timeUs, toLane: laneIdOf(e.peer, clientSet) });
    if (e.msg !== undefined && e.actor !== 'net') {
      let hops = arrowHops.get(e.msg);
      if (hops === undefined) {
        hops = [];
        arrowHops.set(e.msg, hops);
        arrowOrder.push(e.msg);
      }
      hops.push({ atUs: e.timeUs, lane: laneIdOf(e.actor, clientSet) });
    }

    if (clientSet.has(e.actor)) {
      const a = accFor(e.actor);
      if (!clientMachine.has(e.actor)) clientMachine.set(e.actor, e.machine);
      if (e.believes !== undefined) {
        a.beliefSeqs.push(e.seq);
      }
      if (e.kind === 'process.pause') a.pauses.start('pause', e, 'paused');
      else if (e.kind === 'process.resume') a.pauses.end('pause', e);
      else if (e.kind === 'process.crash') {
        a.pauses.end('pause', e);
        a.marks.push({ atUs: e.timeUs, seq: e.seq, kind: e.kind, label: 'crash' });
      } else if (e.kind.startsWith('exception.')) a.marks.push({ atUs: e.timeUs, seq: e.seq, kind: e.kind, label: exceptionLabel(e) });
      else if (e.kind === 'process.fork') {
        const child = typeof e.data?.child === 'string' ? e.data.child : '?';
        parents.set(child, e.actor);
        a.marks.push({ atUs: e.timeUs, seq: e.seq, kind: e.kind, label: `forks ${child}` });
      } else if (e.kind === 'refresh.ok') a.marks.push({ atUs: e.timeUs, seq: e.seq, kind: e.kind, label: 'refreshes its lease' });
      else if (e.kind === 'acquire.giveup') {
        const n = typeof e.data?.attempts === 'number' ? e.data.attempts : undefined;
        a.marks.push({ atUs: e.timeUs, seq: e.seq, kind: e.kind, label: n === undefined ? 'gives up' : `gives up after ${n} attempt${n === 1 ? '' : 's'}` });
      }
      continue;
    }
    if (e.actor === 'resource') {
      if (e.kind === 'write.accepted' || e.kind === 'write.rejected') {
        writes.push({
          atUs: e.timeUs,
          seq: e.seq,
          kind: e.kind,
          label: `${e.owner ?? '?'}${e.fence === undefined ? ' (no token)' : ` #${e.fence}`}`,
          owner: e.owner ?? '?',
          fence: e.fence ?? null,
          accepted: e.kind === 'write.accepted',
          stale: stale.has(e.seq),
        });
      }
      continue;
    }
    if (e.actor === 'faults' || e.actor === 'net') {
      // Faults of one schedule entry pair up by their index (data.fault).
      const id = String(e.data?.fault ?? '');
      const groups = partitionGroups(e.data?.groups);
      const groupsText = groups.map((g) => g.join(' ')).join(' | ');
      if (e.kind === 'partition.start') {
        faultBands.start(`partition ${id}`, e, `partition ${groupsText}`);
        openPartitions.set(id, { fromUs: e.timeUs, seq: e.seq, groups });
      } else if (e.kind === 'partition.end') {
        faultBands.end(`partition ${id}`, e);
        const open = openPartitions.get(id);
        if (open !== undefined) partitions.push({ fromUs: open.fromUs, seq: open.seq, toUs: e.timeUs, groups: open.groups });
        openPartitions.delete(id);
      } else if (e.kind === 'latency.start') faultBands.start(`latency ${id}`, e, `latency +${Math.round(Number(e.data?.extraUs ?? 0) / 1000)} ms`);
      else if (e.kind === 'latency.end') faultBands.end(`latency ${id}`, e);
      else if (FAULT_MARKS.has(e.kind)) faultMarks.push({ atUs: e.timeUs, seq: e.seq, kind: e.kind, label: faultLabel(e) });
      continue;
    }
    if (e.kind.startsWith('lock.') || e.kind.startsWith('store.')) {
      const store = storeFor(e);
      if (e.kind === 'lock.granted') {
        accFor(e.peer ?? clientOf(e.owner ?? '?'));
      } else if (TRUTH_ENDS.has(e.kind)) {
        if (e.kind !== 'lock.released') storeMarks.get(store)!.push({ atUs: e.timeUs, seq: e.seq, kind: e.kind, label: e.kind.slice(5) });
      } else if (e.kind === 'store.down') storeDowns.get(store)!.start('down', e, 'down');
      else if (e.kind === 'store.up') storeDowns.get(store)!.end('down', e);
    }
  }

  // Holdings and beliefs come from the checker's own derivation (sim/check/intervals.ts), so the
  // picture cannot disagree with the verdict: a client's truth bar is its group's holding, with quorum.
  const iv = deriveIntervals(events);
  const span = (fromUs: number, toUs: number | undefined, endSeq: number | undefined, label: string, seq: number): Span => ({
    fromUs,
    toUs: toUs ?? endUs,
    label,
    seq,
    end: endSeq === undefined ? 'open' : events[endSeq]!.kind,
  });
  for (const b of iv.beliefs) accFor(b.client).belief.spans.push(span(b.startUs, b.endUs, b.endSeq, ownerLabel(b.owner, b.fence), b.startSeq));
  for (const h of iv.holdings)
    accFor(h.client).truth.spans.push(span(h.startUs, h.endUs, h.endSeq, ownerLabel(h.owner, events[h.startSeq]!.fence), h.startSeq));
  for (const nh of iv.nodeHoldings) {
    storeFor(events[nh.startSeq]!);
    storeHolds.get(nh.node)!.spans.push(span(nh.startUs, nh.endUs, nh.endSeq, ownerLabel(nh.owner, nh.fence), nh.startSeq));
  }

  const clients: ClientLane[] = [...clientAcc.entries()].map(([name, a]) => ({
    name,
    machine: clientMachine.get(name) ?? '?',
    parent: parents.get(name) ?? null,
    belief: a.belief.finish(endUs),
    truth: a.truth.finish(endUs),
    pauses: a.pauses.finish(endUs),
    marks: a.marks,
    beliefSeqs: Int32Array.from(a.beliefSeqs),
  }));
  const stores: StoreLane[] = storeOrder.map((name) => ({
    name,
    machine: storeMachine.get(name) ?? '?',
    holds: storeHolds.get(name)!.finish(endUs),
    downs: storeDowns.get(name)!.finish(endUs),
    marks: storeMarks.get(name)!,
  }));
  if (stores.length === 0) {
    const s = doc.scenario.store;
    stores.push({ name: String(s.name), machine: String(s.machine ?? '?'), holds: [], downs: [], marks: [] });
  }
  const arrows: Arrow[] = [];
  for (const msg of arrowOrder) {
    const hops = arrowHops.get(msg)!;
    const lost = lostMsgs.get(msg);
    // A dropped request has only its sender's hop; it is still drawn, ending where it was lost.
    if (lost !== undefined) arrows.push({ msg, hops, lost });
    else if (hops.length >= 2) arrows.push({ msg, hops });
  }
  const machines: MachineClock[] = machineNames.map((name) => {
    const s = samples.get(name) ?? { t: [], l: [], d: [] };
    return { name, trueUs: Float64Array.from(s.t), localUs: Float64Array.from(s.l), driftPpm: Float64Array.from(s.d) };
  });

  return {
    startUs,
    endUs,
    times,
    clients,
    stores,
    resource: { name: 'resource', machine: doc.scenario.resource.machine, writes },
    faultBands: faultBands.finish(endUs),
    // A partition still in force when the trace ends lasts to its end.
    partitions: [...partitions, ...[...openPartitions.values()].map((o) => ({ fromUs: o.fromUs, seq: o.seq, toUs: endUs, groups: o.groups }))],
    faultMarks,
    doubleOwnership: doc.verdict.doubleOwnership,
    arrows,
    machines,
    lockCycles: lockCyclesOf(iv),
  };
}

/** "throws RuntimeException", "acquire() throws LockAcquiringException": short enough to sit beside its mark. */
function exceptionLabel(e: TraceEvent): string {
  const thrown = typeof e.data?.thrown === 'string' ? e.data.thrown : 'an exception';
  const method = typeof e.data?.method === 'string' && e.data.method !== 'throw' ? `${e.data.method}() ` : '';
  return `${method}throws ${thrown}`;
}

function faultLabel(e: TraceEvent): string {
  if (e.kind === 'clock.jump') {
    const by = Number(e.data?.byUs ?? 0);
    return `${e.machine} clock ${by >= 0 ? '+' : '−'}${formatShort(Math.abs(by))}`;
  }
  if (e.kind === 'clock.drift') return `${e.machine} drift ${String(e.data?.driftPpm ?? '?')} ppm`;
  return `lost msg #${e.msg ?? '?'}`;
}

function formatShort(us: number): string {
  return us >= 1_000_000 ? `${(us / 1_000_000).toFixed(us % 1_000_000 === 0 ? 0 : 1)} s` : `${Math.round(us / 1000)} ms`;
}

/** Reads the groups of a partition event's `data.groups`: an array of arrays of machine names. */
function partitionGroups(v: JsonValue | undefined): string[][] {
  if (!Array.isArray(v)) return [];
  return v.map((g) => (Array.isArray(g) ? g.map(String) : [String(g)]));
}
